/**
 * VNC (kind 'classic-vnc'): a base quantity a classic DCA bot left on the account when it stopped keeping
 * its assets, sold at its own take profit: one limit sell of the whole quantity at
 * cost / qty × (1 + tpVncPct / 100) (cost = quote spent including fees).
 *
 * The recorded trades use buyPrice = cost / qty with the buy fees already inside the cost, so
 * buyFee is 0 (the VNC does not know the fees apart from the cost).
 */
import { decDiv, decMul, decToNumber, decToString, roundDownToStep, roundUpToStep, toDec } from '../money';
import type {
  ClosedTrade,
  QuietBand,
  RejectReason,
  StepResult,
  StopMode,
  StopReason,
  Strategy,
  StrategyEvent,
} from '../strategy';
import { checkMarketRules, positive, validFill } from '../shared/checks';
import { StrategyConfigError, failWith } from '../shared/config-error';
import { beginStep, endStep, nextId, noteQuietTick, type StepContext } from '../shared/context';
import { log, rejectParams } from '../shared/logging';
import { closeOrder, limitOrder, newOrderRef } from '../shared/orders';
import { closeRefused, markStopped, markStopping, userStop } from '../shared/stopping';
import { due } from '../shared/backoff';
import { recordTrade as recordTradeOf, roundPnl } from '../shared/trades';
import { classicMinViolation, TP_VNC_OPTIONS } from './strategy';
import type { VncConfig, VncFirst, VncOrderRef, VncState, VncSummary } from './types';

/** Wait before a refused sell is placed again. */
export const VNC_RETRY_MS = 60_000;
export const VNC_MAX_CLOSE_ATTEMPTS = 3;

export class VncConfigError extends StrategyConfigError {
  constructor(code: string, message: string) {
    super('VncConfigError', code, message);
  }
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
  const fail = failWith(VncConfigError);
  if (typeof botId !== 'string' || !botId) fail('invalid_bot_id', 'botId is required');
  if (typeof config.symbol !== 'string' || !config.symbol) fail('invalid_symbol', 'symbol is required');
  checkMarketRules(config.market, fail, false);
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

/** A VNC has one order, replaced rather than changed in place: `owned` is not used. */
type Cx = StepContext<VncState>;

export function stepVnc(state: VncState, event: StrategyEvent): StepResult<VncState> {
  const cx: Cx = beginStep(state, event);
  const s = cx.s;
  if (s.status !== 'stopped' && handle(cx, event)) {
    if (s.status === 'running') reconcile(cx);
    else if (s.status === 'stopping') continueStop(cx);
  }
  return endStep(cx);
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
      return userStop(cx, e.mode, beginStop);
    case 'action':
      return onAction(cx, e.name, e.params);
    case 'set_sl':
    case 'set_tp_plus':
    case 'set_ra':
    case 'relocate':
    case 'liquidated': // a VNC sells spot base: nothing of it can be liquidated
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
  const given = filled !== undefined && validFill(filled, price ?? 0, fee ?? 0);
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
  if (s.status === 'running' && tradable(s) === 0) markStopped(cx, 'sold');
  return true;
}

function recordTrade(cx: Cx, ref: VncOrderRef): void {
  const s = cx.s;
  const q = toDec(ref.filled);
  const sellQuote = decMul(q, toDec(ref.avgPrice));
  const costSold = toDec(ref.costSold);
  const exact = sellQuote - costSold - toDec(ref.fee);
  const pnlNet = roundPnl(exact);
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
  recordTradeOf(cx, trade);
  log(cx, 'info', 'vnc_sold', { qty: ref.filled, price: ref.avgPrice, pnl_net: pnlNet });
}

function onRejected(cx: Cx, id: string, reason: RejectReason, message?: string): boolean {
  const s = cx.s;
  const ref = s.sell;
  if (!ref || ref.clientOrderId !== id) return false;
  s.sell = null;
  const params = rejectParams({ role: ref.market ? 'close' : 'vnc_sell', reason }, message);
  const permanent = reason === 'min_cost' || reason === 'precision';
  if (ref.market) {
    closeRefused(cx, s, reason, params, VNC_MAX_CLOSE_ATTEMPTS);
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
  return { ...newOrderRef(id, { market }, price, amount), costSold: '0' };
}

/** The sell of `qty` at `price` is below a minimum of the market: not placed, and not retried. */
function logBelowMin(cx: Cx, violation: string, qty: number, price: number): void {
  const { market, symbol } = cx.s.config;
  log(cx, 'warn', 'vnc_below_min', {
    reason: violation,
    qty,
    price,
    min_cost: market.minCost,
    min_amount: market.minAmount,
    symbol,
  });
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
  if (!due(s.sellRetryAt, cx.ts)) return;
  s.sellRetryAt = null;
  const violation = classicMinViolation(s.config.market, desired.amount, desired.price);
  if (violation) {
    s.blocked = true;
    logBelowMin(cx, violation, desired.amount, desired.price);
    return;
  }
  const id = nextId(s);
  s.sell = newRef(id, false, desired.price, desired.amount);
  const lotId = `${s.botId}-v${s.trades + 1}`;
  cx.places.push(limitOrder(id, 'sell', desired.price, desired.amount, 'vnc_sell', { lotId }));
}

function beginStop(cx: Cx, mode: StopMode, reason: StopReason): void {
  const s = cx.s;
  if (s.status !== 'running') return;
  markStopping(cx, mode, reason);
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
      logBelowMin(cx, violation, amount, price);
    } else {
      s.closeAttempts += 1;
      const id = nextId(s);
      s.sell = newRef(id, true, price, amount);
      cx.places.push(closeOrder(id, amount, `${s.botId}-v${s.trades + 1}`));
      return;
    }
  }
  markStopped(cx, s.stopReason ?? 'user_cancel_only');
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

/** The VNC as a `Strategy` (bots.kind 'classic-vnc'). Its create takes the first residual in the config. */
export const classicVnc: Strategy<VncState, VncConfig & { first: VncFirst }> = {
  kind: 'classic-vnc',
  create: (botId, config) => createVnc(botId, config, config.first),
  step: stepVnc,
  samePersisted: samePersistedVnc,
  realizedPnl: (s) => s.realizedPnl,
  quietBand: vncQuietBand,
  noteQuietTick,
};
