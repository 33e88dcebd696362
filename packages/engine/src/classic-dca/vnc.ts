/**
 * VNC (kind 'classic_vnc'): a base quantity a classic DCA bot left on the account when it stopped keeping
 * its assets, sold at its own take profit: one limit sell of the whole quantity at
 * cost / qty × (1 + tpVncPct / 100) (cost = quote spent including fees).
 *
 * The recorded trades use buyPrice = cost / qty with the buy fees already inside the cost, so
 * buyFee is 0 (the VNC does not know the fees apart from the cost).
 */
import {
  decDiv,
  decMul,
  decToNumber,
  decToString,
  formatAmount,
  roundDownToStep,
  roundUpToStep,
  toDec,
} from '../money';
import { PNL_DECIMALS } from '../grid-dca/strategy';
import type {
  ClosedTrade,
  QuietBand,
  RejectReason,
  StepResult,
  StopMode,
  StopReason,
  Strategy,
  StrategyCommand,
  StrategyEvent,
} from '../strategy';
import { classicMinViolation, TP_VNC_OPTIONS } from './strategy';
import type { VncConfig, VncFirst, VncOrderRef, VncState, VncSummary } from './types';

/** Wait before a refused sell is placed again. */
export const VNC_RETRY_MS = 60_000;
export const VNC_MAX_CLOSE_ATTEMPTS = 3;

export class VncConfigError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'VncConfigError';
  }
}

function positive(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x) && x > 0;
}
function nonNegative(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x) && x >= 0;
}

/** A cost given as a number or a decimal string, as an exact decimal string; null when invalid. */
function parseCost(x: unknown): string | null {
  if (typeof x !== 'number' && typeof x !== 'string') return null;
  if (typeof x === 'number' && !Number.isFinite(x)) return null;
  try {
    const d = toDec(x);
    return d >= 0n ? decToString(d) : null;
  } catch {
    return null;
  }
}

/** A residual to merge: `{source, qty, cost, buyTime}`; null when invalid. */
function parseSource(p: unknown): { source: string; qty: string; cost: string; buyTime: number } | null {
  if (!p || typeof p !== 'object') return null;
  const r = p as Record<string, unknown>;
  const cost = parseCost(r.cost);
  if (typeof r.source !== 'string' || !r.source || r.source.length > 200) return null;
  if (!positive(r.qty) || cost === null || typeof r.buyTime !== 'number' || !Number.isFinite(r.buyTime))
    return null;
  return { source: r.source, qty: decToString(toDec(r.qty)), cost, buyTime: r.buyTime };
}

export function createVnc(botId: string, config: VncConfig, first: VncFirst): VncState {
  const fail = (code: string, message: string): never => {
    throw new VncConfigError(code, message);
  };
  if (typeof botId !== 'string' || !botId) fail('invalid_bot_id', 'botId is required');
  if (typeof config.symbol !== 'string' || !config.symbol) fail('invalid_symbol', 'symbol is required');
  const m = config.market;
  if (!m || !positive(m.amountStep) || !positive(m.priceStep))
    fail('invalid_market', 'market amountStep and priceStep must be positive');
  if (!nonNegative(m.minAmount) || !nonNegative(m.minCost))
    fail('invalid_market', 'market minimums must be non-negative numbers');
  if (!TP_VNC_OPTIONS.includes(config.tpVncPct))
    fail('invalid_tp_vnc', `tpVncPct must be one of ${TP_VNC_OPTIONS.join(', ')}`);
  const src = parseSource(first);
  if (!src) return fail('invalid_source', 'first must be {source, qty > 0, cost >= 0, buyTime}');
  return {
    version: 1,
    botId,
    config: { symbol: config.symbol, market: { ...config.market }, tpVncPct: config.tpVncPct },
    status: 'running',
    seq: 1,
    qty: src.qty,
    cost: src.cost,
    buyTime: src.buyTime,
    sources: [src.source],
    sell: null,
    sellRetryAt: null,
    blocked: false,
    closeAttempts: 0,
    trades: 0,
    realizedPnl: '0',
    lastPrice: null,
    lastTs: null,
    stopMode: null,
    stopReason: null,
  };
}

function tradable(s: VncState): number {
  const q = Number(s.qty);
  return q > 0 ? roundDownToStep(q, s.config.market.amountStep) : 0;
}

/** The take-profit sell of the VNC: cost / qty × (1 + pct), exact, rounded UP; null when nothing to sell. */
export function vncSellOrder(state: VncState): { price: number; amount: number } | null {
  const amount = tradable(state);
  if (!(amount > 0)) return null;
  const exact = decDiv(
    decMul(toDec(state.cost), toDec(100) + toDec(state.config.tpVncPct)),
    decMul(toDec(state.qty), toDec(100)),
  );
  return { price: roundUpToStep(decToNumber(exact), state.config.market.priceStep), amount };
}

export function summarizeVnc(state: VncState): VncSummary {
  const sell = state.sell;
  return {
    qty: Number(state.qty),
    cost: Number(state.cost),
    sellPrice: sell && !sell.market && !sell.cancelling ? sell.price : null,
    tpVncPct: state.config.tpVncPct,
  };
}

interface Cx {
  s: VncState;
  cmds: StrategyCommand[];
  places: StrategyCommand[];
  ts: number;
}

function log(
  cx: Cx,
  level: 'info' | 'warn',
  code: string,
  params: Record<string, string | number> = {},
): void {
  cx.cmds.push({ type: 'log', level, code, params });
}

export function stepVnc(state: VncState, event: StrategyEvent): StepResult<VncState> {
  const s: VncState = { ...state };
  const ts = 'ts' in event && typeof event.ts === 'number' ? event.ts : (s.lastTs ?? 0);
  const cx: Cx = { s, cmds: [], places: [], ts };
  if (s.status !== 'stopped' && handle(cx, event)) {
    if (s.status === 'running') reconcile(cx);
    else if (s.status === 'stopping') continueStop(cx);
  }
  const commands = cx.places.length === 0 ? cx.cmds : cx.cmds.concat(cx.places);
  return { state: s, commands };
}

function handle(cx: Cx, e: StrategyEvent): boolean {
  const s = cx.s;
  switch (e.type) {
    case 'tick':
      if (!positive(e.price)) return false;
      s.lastPrice = e.price;
      s.lastTs = cx.ts;
      return s.status === 'running';
    case 'order_filled':
      return onFill(cx, e.clientOrderId, e.amount, e.price, e.fee, 'filled');
    case 'order_partially_filled':
      return onFill(cx, e.clientOrderId, e.filled, e.price, e.fee, 'partial');
    case 'order_cancelled':
      return onFill(cx, e.clientOrderId, e.filled, e.price, e.fee, 'cancelled');
    case 'order_rejected':
      return onRejected(cx, e.clientOrderId, e.reason, e.message);
    case 'stop':
      if (e.mode !== 'close_market' && e.mode !== 'cancel_only') {
        log(cx, 'warn', 'invalid_value', { field: 'mode' });
        return false;
      }
      beginStop(cx, e.mode, e.mode === 'close_market' ? 'user_close_market' : 'user_cancel_only');
      return true;
    case 'action':
      return onAction(cx, e.name, e.params);
    case 'set_sl':
    case 'set_tp_plus':
    case 'set_ra':
    case 'relocate':
      return false;
  }
}

function onAction(cx: Cx, name: string, params: Record<string, unknown>): boolean {
  const s = cx.s;
  if (name === 'add_vnc') {
    const src = parseSource(params);
    if (!src) {
      log(cx, 'warn', 'invalid_value', { field: 'add_vnc' });
      return false;
    }
    if (s.sources.includes(src.source)) return false; // already merged: idempotent
    if (s.status !== 'running') {
      log(cx, 'warn', 'invalid_value', { field: 'status' });
      return false;
    }
    s.qty = decToString(toDec(s.qty) + toDec(src.qty));
    s.cost = decToString(toDec(s.cost) + toDec(src.cost));
    s.buyTime = Math.min(s.buyTime, src.buyTime);
    s.sources = [...s.sources, src.source];
    s.blocked = false;
    log(cx, 'info', 'vnc_merged', { source: src.source, qty: src.qty, cost: src.cost, total_qty: s.qty });
    return true;
  }
  if (name === 'set_tp_vnc') {
    const pct = params?.pct;
    if (typeof pct !== 'number' || !TP_VNC_OPTIONS.includes(pct)) {
      log(cx, 'warn', 'invalid_value', { field: 'pct' });
      return false;
    }
    s.config = { ...s.config, tpVncPct: pct };
    s.blocked = false;
    log(cx, 'info', 'tp_vnc_set', { pct });
    return true;
  }
  log(cx, 'warn', 'invalid_value', { field: 'action' });
  return false;
}

/** Books the not yet booked part of the sell's cumulative fill: base and its pro-rata cost leave the VNC. */
function applyFill(s: VncState, ref: VncOrderRef, filled: number, price: number, fee: number): void {
  if (filled < ref.filled) return;
  const dq = toDec(filled) - toDec(ref.filled);
  const held = toDec(s.qty);
  const q = dq < held ? dq : held;
  const share = q >= held ? toDec(s.cost) : held > 0n ? (toDec(s.cost) * q) / held : 0n;
  s.qty = decToString(held - q);
  s.cost = decToString(toDec(s.cost) - share);
  ref.costSold = decToString(toDec(ref.costSold) + share);
  ref.filled = filled;
  ref.avgPrice = price;
  ref.fee = fee;
}

function onFill(
  cx: Cx,
  id: string,
  filled: number | undefined,
  price: number | undefined,
  fee: number | undefined,
  kind: 'filled' | 'partial' | 'cancelled',
): boolean {
  const s = cx.s;
  if (!s.sell || s.sell.clientOrderId !== id) return false;
  const ref: VncOrderRef = { ...s.sell };
  const given =
    filled !== undefined && nonNegative(filled) && nonNegative(price ?? 0) && nonNegative(fee ?? 0);
  if (kind !== 'cancelled' && !given) return false;
  const cum = given ? filled : 0;
  if (kind === 'partial' && cum <= ref.filled) return false;
  if (given && cum > ref.filled) applyFill(s, ref, cum, price ?? ref.avgPrice, fee ?? ref.fee);
  if (kind === 'partial') {
    s.sell = ref;
    return true;
  }
  s.sell = null;
  if (ref.filled > 0) recordTrade(cx, ref);
  if (kind === 'cancelled' && !ref.cancelling && ref.filled === 0) {
    if (ref.market) log(cx, 'warn', 'close_failed', { reason: 'cancelled', attempt: s.closeAttempts });
    else {
      s.sellRetryAt = cx.ts + VNC_RETRY_MS;
      log(cx, 'warn', 'order_rejected', {
        role: 'vnc_sell',
        reason: 'cancelled',
        retry_in_s: VNC_RETRY_MS / 1000,
      });
    }
  }
  if (s.status === 'running' && tradable(s) === 0) finishStop(cx, 'sold');
  return true;
}

function recordTrade(cx: Cx, ref: VncOrderRef): void {
  const s = cx.s;
  const q = toDec(ref.filled);
  const sellQuote = decMul(q, toDec(ref.avgPrice));
  const costSold = toDec(ref.costSold);
  const exact = sellQuote - costSold - toDec(ref.fee);
  const pnlNet = Number(formatAmount(decToString(exact), PNL_DECIMALS));
  s.trades += 1;
  const trade: ClosedTrade = {
    lotId: `${s.botId}-v${s.trades}`,
    qty: ref.filled,
    buyPrice: decToNumber(decDiv(costSold, q)),
    sellPrice: ref.avgPrice,
    buyTime: s.buyTime,
    sellTime: cx.ts,
    buyFee: 0,
    sellFee: ref.fee,
    pnlNet,
  };
  cx.cmds.push({ type: 'record_trade', trade });
  s.realizedPnl = decToString(toDec(s.realizedPnl) + toDec(pnlNet));
  log(cx, 'info', 'vnc_sold', { qty: ref.filled, price: ref.avgPrice, pnl_net: pnlNet });
}

function onRejected(cx: Cx, id: string, reason: RejectReason, message?: string): boolean {
  const s = cx.s;
  const ref = s.sell;
  if (!ref || ref.clientOrderId !== id) return false;
  s.sell = null;
  const params: Record<string, string | number> = { role: ref.market ? 'close' : 'vnc_sell', reason };
  if (typeof message === 'string' && message) params.message = message.slice(0, 200);
  const permanent = reason === 'min_cost' || reason === 'precision';
  if (ref.market) {
    if (reason !== 'exchange_error' && reason !== 'unknown') s.closeAttempts = VNC_MAX_CLOSE_ATTEMPTS;
    log(cx, 'warn', 'close_failed', {
      ...params,
      attempt: s.closeAttempts,
      max_attempts: VNC_MAX_CLOSE_ATTEMPTS,
    });
    return true;
  }
  if (permanent) s.blocked = true;
  else {
    s.sellRetryAt = cx.ts + VNC_RETRY_MS;
    params.retry_in_s = VNC_RETRY_MS / 1000;
  }
  log(cx, 'warn', reason === 'insufficient_funds' ? 'insufficient_funds' : 'order_rejected', params);
  return true;
}

function newRef(id: string, market: boolean, price: number, amount: number): VncOrderRef {
  return {
    clientOrderId: id,
    market,
    price,
    amount,
    filled: 0,
    avgPrice: 0,
    fee: 0,
    cancelling: false,
    costSold: '0',
  };
}

function reconcile(cx: Cx): void {
  const s = cx.s;
  if (s.lastPrice === null) return;
  const desired = vncSellOrder(s);
  const sell = s.sell;
  if (sell) {
    if (sell.cancelling || sell.market) return;
    const remaining = decToNumber(toDec(sell.amount) - toDec(sell.filled));
    if (desired && sell.price === desired.price && remaining === desired.amount) return;
    s.sell = { ...sell, cancelling: true };
    cx.cmds.push({ type: 'cancel_order', clientOrderId: sell.clientOrderId });
    return;
  }
  if (!desired || s.blocked) return;
  if (s.sellRetryAt !== null) {
    if (cx.ts < s.sellRetryAt) return;
    s.sellRetryAt = null;
  }
  const violation = classicMinViolation(s.config.market, desired.amount, desired.price);
  if (violation) {
    s.blocked = true;
    log(cx, 'warn', 'vnc_below_min', {
      reason: violation,
      qty: desired.amount,
      price: desired.price,
      min_cost: s.config.market.minCost,
      min_amount: s.config.market.minAmount,
      symbol: s.config.symbol,
    });
    return;
  }
  const id = `${s.botId}-${s.seq}`;
  s.seq += 1;
  s.sell = newRef(id, false, desired.price, desired.amount);
  cx.places.push({
    type: 'place_order',
    clientOrderId: id,
    side: 'sell',
    orderType: 'limit',
    price: desired.price,
    amount: desired.amount,
    role: 'vnc_sell',
    lotId: `${s.botId}-v${s.trades + 1}`,
  });
}

function beginStop(cx: Cx, mode: StopMode, reason: StopReason): void {
  const s = cx.s;
  if (s.status !== 'running') return;
  s.status = 'stopping';
  s.stopMode = mode;
  s.stopReason = reason;
  log(cx, 'info', 'stopping', { mode, reason });
  if (s.sell && !s.sell.cancelling && !s.sell.market) {
    s.sell = { ...s.sell, cancelling: true };
    cx.cmds.push({ type: 'cancel_order', clientOrderId: s.sell.clientOrderId });
  }
}

function continueStop(cx: Cx): void {
  const s = cx.s;
  if (s.status !== 'stopping' || s.sell) return;
  const amount = tradable(s);
  if (s.stopMode === 'close_market' && amount > 0 && s.closeAttempts < VNC_MAX_CLOSE_ATTEMPTS) {
    const price = s.lastPrice ?? decToNumber(decDiv(toDec(s.cost), toDec(s.qty)));
    const violation = classicMinViolation(s.config.market, amount, price);
    if (violation) {
      s.closeAttempts = VNC_MAX_CLOSE_ATTEMPTS;
      log(cx, 'warn', 'vnc_below_min', {
        reason: violation,
        qty: amount,
        price,
        min_cost: s.config.market.minCost,
        min_amount: s.config.market.minAmount,
        symbol: s.config.symbol,
      });
    } else {
      s.closeAttempts += 1;
      const id = `${s.botId}-${s.seq}`;
      s.seq += 1;
      s.sell = newRef(id, true, price, amount);
      cx.places.push({
        type: 'place_order',
        clientOrderId: id,
        side: 'sell',
        orderType: 'market',
        amount,
        role: 'close',
        lotId: `${s.botId}-v${s.trades + 1}`,
      });
      return;
    }
  }
  finishStop(cx, s.stopReason ?? 'user_cancel_only');
}

function finishStop(cx: Cx, reason: StopReason): void {
  const s = cx.s;
  s.status = 'stopped';
  s.stopReason = reason;
  cx.cmds.push({ type: 'stopped', reason });
}

export function samePersistedVnc(a: VncState, b: VncState): boolean {
  return (
    a.status === b.status &&
    a.seq === b.seq &&
    a.config === b.config &&
    a.qty === b.qty &&
    a.cost === b.cost &&
    a.buyTime === b.buyTime &&
    a.sources === b.sources &&
    a.sell === b.sell &&
    a.sellRetryAt === b.sellRetryAt &&
    a.blocked === b.blocked &&
    a.closeAttempts === b.closeAttempts &&
    a.trades === b.trades &&
    a.realizedPnl === b.realizedPnl &&
    a.stopMode === b.stopMode &&
    a.stopReason === b.stopReason &&
    (a.lastPrice === null) === (b.lastPrice === null)
  );
}

/** Ticks matter to a running VNC only before its sell is placed (or when a retry is due). */
export function vncQuietBand(s: VncState): QuietBand | null {
  const all = { low: 0, high: Number.POSITIVE_INFINITY, until: Number.POSITIVE_INFINITY };
  if (s.status !== 'running') return all;
  if (s.lastPrice === null) return null;
  const sell = s.sell;
  if (sell) {
    if (sell.cancelling || sell.market) return all;
    const desired = vncSellOrder(s);
    const remaining = decToNumber(toDec(sell.amount) - toDec(sell.filled));
    return desired && sell.price === desired.price && remaining === desired.amount ? all : null;
  }
  if (s.blocked || !vncSellOrder(s)) return all;
  if (s.sellRetryAt !== null) return { ...all, until: s.sellRetryAt };
  return null;
}

/** The VNC as a `Strategy` (bots.kind 'classic_vnc'). Its create takes the first residual in the config. */
export const classicVnc: Strategy<VncState, VncConfig & { first: VncFirst }> = {
  kind: 'classic_vnc',
  create: (botId, config) => createVnc(botId, config, config.first),
  step: stepVnc,
  samePersisted: samePersistedVnc,
  realizedPnl: (s) => s.realizedPnl,
  quietBand: vncQuietBand,
  noteQuietTick(s, price, ts) {
    if (s.status === 'stopped') return;
    s.lastPrice = price;
    s.lastTs = ts;
  },
};
