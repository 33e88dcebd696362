/**
 * The manual order of the spot and futures screens (kind 'manual', issue 16) as a pure, deterministic
 * state machine: one entry (limit or market) sent by the action `manual_place`, then, once the entry
 * has ended with something filled, its take profit and stop loss as one-cancels-the-other:
 * - the take profit rests on the exchange: a limit order on the opposite side at `tp` for the filled
 *   amount rounded down (reduceOnly on derivatives);
 * - the stop loss is watched on ticks (buy entry: price ≤ sl; sell entry: price ≥ sl). Reaching it
 *   cancels the take profit and, once the cancel (or its fill) is confirmed, closes what is still held
 *   at market (role `manual_sl`).
 * Every exit fill is a trade of the entry's lot (buy entry: buy = entry, sell = exit; sell entry: the
 * mirror, as the Grid Bot DCA's SHORT). The order stops when an exit has filled, when the entry was
 * refused, or at the user's stop (cancel_only: cancel what is open, keep what is held; close_market:
 * then close it at market). See docs/bots/manual.md.
 */
import { decMul, decToNumber, decToString, roundDownToStep, toDec, type Dec } from '../money';
import type {
  ClosedTrade,
  PlaceOrderCommand,
  QuietBand,
  RejectReason,
  StepResult,
  StopMode,
  StopReason,
  Strategy,
  StrategyEvent,
} from '../strategy';
import { checkMarketRules, nonNegative, positive, validFill } from '../shared/checks';
import { StrategyConfigError, failWith } from '../shared/config-error';
import { beginStep, endStep, nextId, noteQuietTick, type StepContext } from '../shared/context';
import { dispatchEvent, eventHandlers, refuseEvent } from '../shared/dispatch';
import { log, rejectParams } from '../shared/logging';
import { markStopped, markStopping, userStop } from '../shared/stopping';
import { recordTrade, roundPnl } from '../shared/trades';
import {
  MANUAL_ACTIONS,
  MANUAL_KIND,
  type ManualConfig,
  type ManualEntryStatus,
  type ManualOrderRef,
  type ManualState,
  type ManualSummary,
} from './types';

/** Market closes sent for one order (an exchange error or a venue cancel is tried again). */
export const MANUAL_MAX_CLOSE_ATTEMPTS = 3;

/** Thrown by createManualOrder for a configuration the strategy cannot run. */
export class ManualConfigError extends StrategyConfigError {
  constructor(code: string, message: string) {
    super('ManualConfigError', code, message);
  }
}

type Cx = StepContext<ManualState>;
/** The three order slots of the state. */
type Slot = 'entry' | 'tp' | 'close';
/** Why an order ended without filling completely: the venue's refusal, its cancel, or null (ours). */
type Failure = RejectReason | 'cancelled' | null;

/** The user's text for a refusal without a message from the venue (EN; the venue's own text wins). */
const REJECT_TEXT: Record<RejectReason, string> = {
  min_cost: 'The order value is below the exchange minimum.',
  insufficient_funds: 'Insufficient balance.',
  precision: 'The exchange did not accept the price or quantity precision.',
  exchange_error: 'Exchange error.',
  unknown: 'The exchange refused the order.',
};

// ---------------------------------------------------------------------------------------------------
// Config and creation

const isFlag = (x: unknown): boolean => x === undefined || typeof x === 'boolean';
const isPrice = (x: unknown): boolean => x === null || x === undefined || positive(x);

export function validateManualConfig(config: ManualConfig): void {
  const fail = failWith(ManualConfigError);
  if (!config || typeof config !== 'object') fail('invalid_config', 'config is required');
  if (typeof config.symbol !== 'string' || !config.symbol)
    fail('invalid_symbol', 'symbol must be a pair such as BTC/USDT');
  if (config.side !== 'buy' && config.side !== 'sell') fail('invalid_side', 'side must be buy or sell');
  if (config.orderType !== 'limit' && config.orderType !== 'market')
    fail('invalid_order_type', 'orderType must be limit or market');
  if (config.orderType === 'limit' ? !positive(config.price) : !isPrice(config.price))
    fail('invalid_price', 'a limit order needs a positive price');
  if (!positive(config.amount) || config.amount > 1e15)
    fail('invalid_amount', 'amount must be a positive number of base');
  if (!isPrice(config.tp)) fail('invalid_tp', 'tp must be a positive price or null');
  if (!isPrice(config.sl)) fail('invalid_sl', 'sl must be a positive price or null');
  const buy = config.side === 'buy';
  const tp = config.tp ?? null;
  const sl = config.sl ?? null;
  // Against the limit price (a market order's price is checked by the server on the market price).
  const entry = config.orderType === 'limit' ? config.price! : null;
  if (tp !== null && entry !== null && (buy ? tp <= entry : tp >= entry))
    fail('tp_wrong_side', `tp ${tp} must be ${buy ? 'above' : 'below'} the entry price ${entry}`);
  if (sl !== null && entry !== null && (buy ? sl >= entry : sl <= entry))
    fail('sl_wrong_side', `sl ${sl} must be ${buy ? 'below' : 'above'} the entry price ${entry}`);
  if (tp !== null && sl !== null && (buy ? sl >= tp : sl <= tp))
    fail('tp_sl_crossed', `sl ${sl} must be on the other side of the entry from tp ${tp}`);
  checkMarketRules(config.rules, fail, true);
  if (!isFlag(config.derivatives) || !isFlag(config.reduceOnly))
    fail('invalid_flag', 'derivatives and reduceOnly must be booleans');
  if (config.reduceOnly && !config.derivatives) fail('reduce_only_spot', 'reduceOnly is for futures orders');
}

export function createManualOrder(botId: string, config: ManualConfig): ManualState {
  if (typeof botId !== 'string' || !botId) throw new ManualConfigError('invalid_bot_id', 'botId is required');
  validateManualConfig(config);
  const tp = config.tp ?? null;
  const sl = config.sl ?? null;
  return {
    version: 1,
    botId,
    config: { ...config, tp, sl, rules: { ...config.rules } },
    seq: 0,
    lastPrice: null,
    lastTs: null,
    entry: null,
    tp: null,
    close: null,
    exitState: tp !== null || sl !== null ? 'waiting_entry' : 'none',
    exited: '0',
    closeAttempts: 0,
    realizedPnl: '0',
    trades: 0,
    error: null,
    stopMode: null,
    stopReason: null,
    status: 'running',
  };
}

// ---------------------------------------------------------------------------------------------------
// Reading a state

const live = (o: ManualOrderRef | null): o is ManualOrderRef =>
  o !== null && (o.status === 'open' || o.status === 'cancelling');

/** The side of the exits: the opposite of the entry. */
const exitSide = (c: ManualConfig): 'buy' | 'sell' => (c.side === 'buy' ? 'sell' : 'buy');

/** Base still held from the entry: its fills less the settled exits and the fills of exits still open. */
function heldDec(s: ManualState): Dec {
  if (!s.entry) return 0n;
  let held = toDec(s.entry.filled) - toDec(s.exited);
  if (live(s.tp)) held -= toDec(s.tp.filled);
  if (live(s.close)) held -= toDec(s.close.filled);
  return held;
}

function entryStatus(e: ManualOrderRef | null): ManualEntryStatus {
  if (!e) return 'pending';
  switch (e.status) {
    case 'open':
    case 'cancelling':
      return e.filled > 0 ? 'partially_filled' : 'open';
    case 'filled':
    case 'cancelled':
    case 'rejected':
      return e.status;
  }
}

export function manualSummary(s: ManualState): ManualSummary {
  const e = s.entry;
  const filled = e ? e.filled : 0;
  const average = e && e.filled > 0 ? e.avgPrice : null;
  return {
    entryStatus: entryStatus(e),
    exitState: s.exitState,
    filled,
    average,
    fee: e ? e.fee : 0,
    // Quote, exact: filled × average fill price.
    cost: average === null ? 0 : decToNumber(decMul(toDec(filled), toDec(average))),
    held: decToNumber(heldDec(s)),
    pnl: s.trades > 0 ? Number(s.realizedPnl) : null,
    error: s.error,
    open: s.status !== 'stopped',
  };
}

// ---------------------------------------------------------------------------------------------------
// The step function

/** Applies one event. Never mutates `state`; the same state and event always give the same result. */
export function stepManual(state: ManualState, event: StrategyEvent): StepResult<ManualState> {
  const cx = beginStep(state, event);
  // A stopped order has nothing open (the stop waits for every answer): replays change nothing.
  if (cx.s.status !== 'stopped') dispatchEvent(cx, event, HANDLERS);
  return endStep(cx);
}

/** The DCA settings log invalid_value. */
const HANDLERS = eventHandlers<Cx, void>({
  tick: (cx, e) => onTick(cx, e.price),
  action: (cx, e) => onAction(cx, e.name, e.params),
  filled: (cx, id, amount, price, fee) => onFill(cx, id, amount, price, fee, true),
  partial: (cx, id, filled, price, fee) => onFill(cx, id, filled, price, fee, false),
  cancelled: onCancelled,
  rejected: onRejected,
  stop: (cx, mode) => userStop(cx, mode, beginStop),
  liquidated: (cx, e) => onLiquidated(cx, e.price, e.contracts),
  other: refuseEvent,
});

// --- ticks and the stop loss -------------------------------------------------------------------------

function slReached(s: ManualState, price: number | null): boolean {
  const sl = s.config.sl;
  if (sl === null || price === null) return false;
  return s.config.side === 'buy' ? price <= sl : price >= sl;
}

function onTick(cx: Cx, price: number): void {
  if (!positive(price)) return;
  const s = cx.s;
  s.lastPrice = price;
  s.lastTs = cx.ts;
  if (s.status !== 'running') return;
  if (s.exitState === 'failed') return finish(cx, 'exit_failed');
  if (s.exitState === 'active' && slReached(s, price)) triggerSl(cx, price);
}

/** The stop loss is reached: the take profit is cancelled, then what is held is closed at market. */
function triggerSl(cx: Cx, price: number): void {
  const s = cx.s;
  s.exitState = 'sl_triggered';
  log(cx, 'warn', 'sl_hit', { price, sl: s.config.sl ?? 0 });
  beginStop(cx, 'close_market', 'sl_hit');
}

// --- the entry ---------------------------------------------------------------------------------------

function newRef(
  clientOrderId: string,
  role: ManualOrderRef['role'],
  side: 'buy' | 'sell',
  orderType: 'limit' | 'market',
  price: number | null,
  amount: number,
  ts: number,
): ManualOrderRef {
  return {
    clientOrderId,
    role,
    side,
    orderType,
    price,
    amount,
    filled: 0,
    avgPrice: null,
    fee: 0,
    status: 'open',
    placedAt: ts,
    doneAt: null,
  };
}

function onAction(cx: Cx, name: string, params: Record<string, unknown>): void {
  const s = cx.s;
  if (name !== MANUAL_ACTIONS.place) {
    log(cx, 'warn', 'invalid_value', { field: 'action' });
    return;
  }
  // A repeat (the server retrying its call, a replay after a restart) or a place after a stop: nothing.
  if (s.entry !== null || s.status !== 'running') return;
  const p: Record<string, unknown> = params && typeof params === 'object' ? params : {};
  // The market price the server read as it placed the order (a market order's fresh price).
  if (positive(p.price)) s.lastPrice = p.price;
  const c = s.config;
  const id = nextId(s);
  const price = c.orderType === 'limit' ? c.price! : null;
  s.entry = newRef(id, 'manual_entry', c.side, c.orderType, price, c.amount, cx.ts);
  const cmd: PlaceOrderCommand = {
    type: 'place_order',
    clientOrderId: id,
    side: c.side,
    orderType: c.orderType,
    ...(price !== null ? { price } : {}),
    amount: c.amount,
    role: 'manual_entry',
  };
  if (c.derivatives && c.reduceOnly) cmd.reduceOnly = true;
  cx.places.push(cmd);
  log(cx, 'info', 'manual_placed', {
    side: c.side,
    order_type: c.orderType,
    price: price ?? '',
    amount: c.amount,
    tp: c.tp ?? '',
    sl: c.sl ?? '',
    symbol: c.symbol,
  });
}

// --- order events ------------------------------------------------------------------------------------

/** The slot holding client order `id` while it is open; null for unknown or settled ids (replays). */
function openSlot(s: ManualState, id: string): Slot | null {
  if (live(s.entry) && s.entry.clientOrderId === id) return 'entry';
  if (live(s.tp) && s.tp.clientOrderId === id) return 'tp';
  if (live(s.close) && s.close.clientOrderId === id) return 'close';
  return null;
}

/** A fill report: cumulative `filled` at average `price` with cumulative `fee`; `complete` ends the order. */
function onFill(cx: Cx, id: string, filled: number, price: number, fee: number, complete: boolean): void {
  const s = cx.s;
  const slot = openSlot(s, id);
  if (slot === null || !validFill(filled, price, fee)) return;
  const o = s[slot]!;
  // A partial report older than one already applied (events re-delivered out of order).
  if (!complete && filled < o.filled) return;
  s[slot] = {
    ...o,
    filled,
    avgPrice: filled > 0 ? price : o.avgPrice,
    fee,
    ...(complete ? { status: 'filled' as const, doneAt: cx.ts } : {}),
  };
  if (complete) settled(cx, slot, null);
}

function onCancelled(cx: Cx, id: string, filled?: number, price?: number, fee?: number): void {
  const s = cx.s;
  const slot = openSlot(s, id);
  if (slot === null) return;
  const o = s[slot]!;
  const next: ManualOrderRef = { ...o, status: 'cancelled', doneAt: cx.ts };
  // The venue may report the partial fill in the cancel itself; otherwise the last partial report counts.
  if (filled !== undefined && validFill(filled, price ?? 0, fee ?? 0) && filled >= o.filled) {
    next.filled = filled;
    if (filled > 0 && price !== undefined && price > 0) next.avgPrice = price;
    next.fee = fee ?? o.fee;
  }
  s[slot] = next;
  // Ours when we asked for it; otherwise the venue cancelled the order on its own.
  settled(cx, slot, o.status === 'cancelling' ? null : 'cancelled');
}

function onRejected(cx: Cx, id: string, reason: RejectReason, message?: string): void {
  const s = cx.s;
  const slot = openSlot(s, id);
  if (slot === null) return;
  const o = s[slot]!;
  const next: ManualOrderRef = { ...o, status: 'rejected', doneAt: cx.ts, rejectReason: reason };
  if (typeof message === 'string' && message) next.rejectMessage = message.slice(0, 200);
  s[slot] = next;
  settled(cx, slot, reason, message);
}

/** The order in `slot` has ended (filled, cancelled or refused). */
function settled(cx: Cx, slot: Slot, failure: Failure, message?: string): void {
  if (slot === 'entry') entryDone(cx, failure, message);
  else if (slot === 'tp') tpDone(cx, failure, message);
  else closeDone(cx, failure, message);
}

/** The venue's text of a refusal, else ours for its reason. */
function rejectText(reason: RejectReason, message?: string): string {
  const m = typeof message === 'string' ? message.trim() : '';
  return m ? m.slice(0, 200) : REJECT_TEXT[reason];
}

function entryDone(cx: Cx, failure: Failure, message?: string): void {
  const s = cx.s;
  const e = s.entry!;
  if (e.filled > 0)
    log(cx, 'info', 'manual_filled', {
      role: 'manual_entry',
      side: e.side,
      qty: e.filled,
      price: e.avgPrice ?? 0,
      fee: e.fee,
    });
  if (failure !== null) {
    log(cx, 'warn', 'order_rejected', rejectParams({ role: 'manual_entry', reason: failure }, message));
    if (e.filled === 0)
      s.error = failure === 'cancelled' ? 'The exchange cancelled the order.' : rejectText(failure, message);
  }
  // Stopping: a stop cancelled it (or it filled first); the stop decides what happens to the fill.
  if (s.status === 'stopping') return advance(cx);
  if (e.filled > 0) return armExits(cx);
  // Nothing filled: the exits will never be placed.
  if (s.exitState === 'waiting_entry') s.exitState = 'cancelled';
  finish(cx, 'entry_failed');
}

/** The entry ended with a fill while running: the take profit goes out and the stop loss is watched. */
function armExits(cx: Cx): void {
  const s = cx.s;
  const c = s.config;
  if (c.tp === null && c.sl === null) {
    s.exitState = 'none';
    return finish(cx, 'order_done');
  }
  const amount = roundDownToStep(s.entry!.filled, c.rules.amountStep);
  if (!(amount > 0)) {
    // Less than one amount step filled (a partial fill the venue then cancelled): nothing can be sent.
    s.exitState = 'failed';
    s.error = 'The filled quantity is below the amount step: no take profit or stop loss can be placed.';
    log(cx, 'warn', 'order_rejected', { role: 'manual_tp', reason: 'zero_amount', amount: s.entry!.filled });
    return finish(cx, 'exit_failed');
  }
  s.exitState = 'active';
  log(cx, 'info', 'manual_exits_active', { tp: c.tp ?? '', sl: c.sl ?? '', amount });
  // The last price may already be past the stop loss (the fill came after a fast move): close at once,
  // without placing a take profit that would have to be cancelled in the same breath.
  if (slReached(s, s.lastPrice)) return triggerSl(cx, s.lastPrice!);
  if (c.tp === null) return;
  const id = nextId(s);
  const side = exitSide(c);
  s.tp = newRef(id, 'manual_tp', side, 'limit', c.tp, amount, cx.ts);
  const cmd: PlaceOrderCommand = {
    type: 'place_order',
    clientOrderId: id,
    side,
    orderType: 'limit',
    price: c.tp,
    amount,
    role: 'manual_tp',
    lotId: s.entry!.clientOrderId,
  };
  if (c.derivatives) cmd.reduceOnly = true;
  cx.places.push(cmd);
}

function tpDone(cx: Cx, failure: Failure, message?: string): void {
  const s = cx.s;
  const t = s.tp!;
  if (t.filled > 0) exitTrade(cx, t);
  if (t.status === 'filled') {
    s.exitState = 'tp_filled';
    return s.status === 'stopping' ? advance(cx) : finish(cx, 'order_done');
  }
  if (failure !== null)
    log(
      cx,
      'warn',
      'order_rejected',
      rejectParams({ role: 'manual_tp', reason: failure, price: t.price ?? 0 }, message),
    );
  // Our cancel (the stop loss or the user's stop), or a refusal that no longer matters.
  if (s.status === 'stopping') return advance(cx);
  s.error =
    failure === 'cancelled'
      ? 'Take profit cancelled by the exchange.'
      : `Take profit refused: ${rejectText(failure ?? 'unknown', message)}`;
  // The stop loss still guards what is held.
  if (s.config.sl !== null) return;
  s.exitState = 'failed';
  // On derivatives the venue cancels a reduce-only order when the position is gone, and a liquidation's
  // event comes right behind its cancels: the order stops at the next tick, so a liquidation is recorded.
  if (failure === 'cancelled' && s.config.derivatives) return;
  finish(cx, 'exit_failed');
}

function closeDone(cx: Cx, failure: Failure, message?: string): void {
  const s = cx.s;
  const o = s.close!;
  if (o.filled > 0) exitTrade(cx, o);
  if (o.status === 'filled') {
    if (s.stopReason === 'sl_hit') s.exitState = 'sl_filled';
    return advance(cx);
  }
  const reason = failure ?? 'cancelled';
  // Funds, minimum and precision refusals do not pass by retrying; an exchange error or a cancel may.
  if (reason !== 'exchange_error' && reason !== 'unknown' && reason !== 'cancelled')
    s.closeAttempts = MANUAL_MAX_CLOSE_ATTEMPTS;
  log(cx, 'warn', 'close_failed', {
    ...rejectParams({ role: o.role, reason }, message),
    attempt: s.closeAttempts,
    max_attempts: MANUAL_MAX_CLOSE_ATTEMPTS,
  });
  if (s.closeAttempts >= MANUAL_MAX_CLOSE_ATTEMPTS) {
    s.exitState = 'failed';
    s.error = `Market close failed: ${
      reason === 'cancelled' ? 'the exchange cancelled it.' : rejectText(reason, message)
    }`;
  }
  advance(cx);
}

/**
 * An exit of the entry's lot: `qty` base at `price` with `fee` (quote). The entry's fee is shared pro
 * rata by differences of cumulative shares (fee × exited / filled), so the shares of every exit add up
 * to the whole entry fee exactly once everything is exited.
 */
function recordExit(cx: Cx, suffix: string, qty: Dec, price: number, fee: number): number {
  const s = cx.s;
  const e = s.entry!;
  const filled = toDec(e.filled);
  const before = toDec(s.exited);
  const after = before + qty;
  const entryFee = toDec(e.fee);
  const share = filled > 0n ? (entryFee * after) / filled - (entryFee * before) / filled : 0n;
  const entryPrice = e.avgPrice ?? 0;
  const long = e.side === 'buy';
  const gross = decMul(qty, toDec(price)) - decMul(qty, toDec(entryPrice));
  const pnlNet = roundPnl((long ? gross : -gross) - share - toDec(fee));
  const entryTime = e.doneAt ?? e.placedAt;
  const q = decToNumber(qty);
  const key = `${e.clientOrderId}#${suffix}`;
  const trade: ClosedTrade = long
    ? {
        lotId: e.clientOrderId,
        key,
        qty: q,
        buyPrice: entryPrice,
        sellPrice: price,
        buyTime: entryTime,
        sellTime: cx.ts,
        buyFee: decToNumber(share),
        sellFee: fee,
        pnlNet,
      }
    : {
        lotId: e.clientOrderId,
        key,
        qty: q,
        buyPrice: price,
        sellPrice: entryPrice,
        buyTime: cx.ts,
        sellTime: entryTime,
        buyFee: fee,
        sellFee: decToNumber(share),
        pnlNet,
      };
  recordTrade(cx, trade);
  s.trades += 1;
  s.exited = decToString(after);
  return pnlNet;
}

/** A take profit or close ended with `o.filled` filled: one trade, keyed by the exit's client id. */
function exitTrade(cx: Cx, o: ManualOrderRef): void {
  const price = o.avgPrice ?? 0;
  const pnl = recordExit(cx, o.clientOrderId, toDec(o.filled), price, o.fee);
  log(cx, 'info', 'manual_filled', {
    role: o.role,
    side: o.side,
    qty: o.filled,
    price,
    fee: o.fee,
    pnl_net: pnl,
  });
}

// --- stopping ----------------------------------------------------------------------------------------

/** A user's stop, or the stop loss (close_market, 'sl_hit'). Only from running. */
function beginStop(cx: Cx, mode: StopMode, reason: StopReason): void {
  const s = cx.s;
  if (s.status !== 'running') return;
  if (reason !== 'sl_hit' && (s.exitState === 'waiting_entry' || s.exitState === 'active'))
    s.exitState = 'cancelled';
  markStopping(cx, mode, reason);
  advance(cx);
}

/**
 * While stopping: cancel the entry and the take profit when open; once nothing is open, close_market
 * closes what is held at market (at most MANUAL_MAX_CLOSE_ATTEMPTS orders), then the order stops.
 */
function advance(cx: Cx): void {
  const s = cx.s;
  if (s.status !== 'stopping') return;
  for (const slot of ['entry', 'tp'] as const) {
    const o = s[slot];
    if (o === null || o.status !== 'open') continue;
    s[slot] = { ...o, status: 'cancelling' };
    cx.cmds.push({ type: 'cancel_order', clientOrderId: o.clientOrderId });
  }
  if (live(s.entry) || live(s.tp) || live(s.close)) return;
  if (s.stopMode === 'close_market' && s.closeAttempts < MANUAL_MAX_CLOSE_ATTEMPTS) {
    const amount = roundDownToStep(decToNumber(heldDec(s)), s.config.rules.amountStep);
    if (amount > 0) return sendClose(cx, amount);
  }
  // The stop loss with nothing (left) to close: what was held went out through the exits already.
  if (s.exitState === 'sl_triggered') s.exitState = 'sl_filled';
  finish(cx, s.stopReason ?? 'user_cancel_only');
}

function sendClose(cx: Cx, amount: number): void {
  const s = cx.s;
  const c = s.config;
  const side = exitSide(c);
  const role = s.stopReason === 'sl_hit' ? 'manual_sl' : 'close';
  s.closeAttempts += 1;
  const id = nextId(s);
  s.close = newRef(id, role, side, 'market', null, amount, cx.ts);
  const cmd: PlaceOrderCommand = {
    type: 'place_order',
    clientOrderId: id,
    side,
    orderType: 'market',
    amount,
    role,
    lotId: s.entry!.clientOrderId,
  };
  if (c.derivatives) cmd.reduceOnly = true;
  cx.places.push(cmd);
}

/** Stops for `reason`; a stop loss that ended otherwise says how it ended. */
function finish(cx: Cx, reason: StopReason): void {
  const s = cx.s;
  let r = reason;
  if (r === 'sl_hit' && s.exitState === 'tp_filled') r = 'order_done';
  else if (r === 'sl_hit' && s.exitState === 'failed') r = 'exit_failed';
  markStopped(cx, r);
}

/**
 * The venue liquidated the position at `price` (derivatives): the runner delivered the cancels of the
 * orders already; an exit's partial fill is its own trade, the rest held is a trade at `price` without
 * fee, then the order stops ('liquidated').
 */
function onLiquidated(cx: Cx, price: number, contracts: number): void {
  const s = cx.s;
  if (!s.config.derivatives) return log(cx, 'warn', 'invalid_value', { field: 'liquidated' });
  if (!positive(price)) return log(cx, 'warn', 'invalid_value', { field: 'price' });
  log(cx, 'warn', 'liquidated', { price, contracts: nonNegative(contracts) ? contracts : 0 });
  for (const slot of ['entry', 'tp', 'close'] as const) {
    const o = s[slot];
    if (!live(o)) continue;
    s[slot] = { ...o, status: 'cancelled', doneAt: cx.ts };
    if (slot !== 'entry' && o.filled > 0) exitTrade(cx, o);
  }
  const held = heldDec(s);
  if (held > 0n) recordExit(cx, `liq-${cx.ts}`, held, price, 0);
  if (s.exitState === 'waiting_entry' || s.exitState === 'active' || s.exitState === 'sl_triggered')
    s.exitState = 'cancelled';
  s.error = `Position liquidated at ${price}.`;
  s.stopMode = null;
  markStopped(cx, 'liquidated');
}

// ---------------------------------------------------------------------------------------------------
// The Strategy

/** Whether `a` and `b` differ only in the last price and time (nested refs are replaced on change). */
export function samePersistedManual(a: ManualState, b: ManualState): boolean {
  return (
    a.status === b.status &&
    a.seq === b.seq &&
    a.entry === b.entry &&
    a.tp === b.tp &&
    a.close === b.close &&
    a.exitState === b.exitState &&
    a.exited === b.exited &&
    a.closeAttempts === b.closeAttempts &&
    a.realizedPnl === b.realizedPnl &&
    a.trades === b.trades &&
    a.error === b.error &&
    a.stopMode === b.stopMode &&
    a.stopReason === b.stopReason &&
    a.config === b.config &&
    a.botId === b.botId &&
    a.version === b.version
  );
}

const NOTHING: QuietBand = Object.freeze({ low: 0, high: 0, until: 0 });
const EVERYTHING: QuietBand = Object.freeze({
  low: 0,
  high: Number.POSITIVE_INFINITY,
  until: Number.POSITIVE_INFINITY,
});

/**
 * Ticks only note the price, except while the exits are active with a stop loss: then prices on the
 * safe side of it are quiet (above the sl for a buy entry, below it for a sell entry), and while the
 * order waits for the next tick to stop (a take profit the venue cancelled on derivatives): none is.
 */
export function manualQuietBand(s: ManualState): QuietBand {
  const sl = s.config.sl;
  // A take profit the venue cancelled on derivatives: the next tick stops the order (none is quiet).
  if (s.status === 'running' && s.exitState === 'failed') return NOTHING;
  if (s.status !== 'running' || s.exitState !== 'active' || sl === null) return EVERYTHING;
  return s.config.side === 'buy'
    ? { low: sl, high: Number.POSITIVE_INFINITY, until: Number.POSITIVE_INFINITY }
    : { low: 0, high: sl, until: Number.POSITIVE_INFINITY };
}

/** The manual order as a `Strategy` (bots.kind 'manual'). */
export const manualOrder: Strategy<ManualState, ManualConfig> = {
  kind: MANUAL_KIND,
  create: createManualOrder,
  step: stepManual,
  samePersisted: samePersistedManual,
  realizedPnl: (s) => s.realizedPnl,
  quietBand: manualQuietBand,
  noteQuietTick: noteQuietTick,
};
