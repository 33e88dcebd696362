/**
 * The Signal bot (issue 15 §2) as a pure, deterministic state machine: spot, long only, one market.
 * Outside signals (a TradingView alert sent to the server's webhook) arrive as the action
 * `{name: 'signal', params: {seq, action: 'buy' | 'sell' | 'close', amount?}}`; `seq` is the signal's
 * number per bot (increasing, from the server's table), so a replayed signal (seq ≤ lastSeq) does
 * nothing. Each signal becomes at most one market order:
 * - buy: quote = amount ?? amountQuote, base = quote / last price rounded down to the amount step;
 *   refused when the position cost (fees excluded, buys in flight included) + quote > maxPositionQuote.
 * - sell: min(amount ?? amountQuote, position value) worth of base; close: the whole position.
 * Every sell is a trade: buyPrice = the position's average price, sellPrice = the fill.
 * See docs/bots/signal.md.
 */
import { decDiv, decMul, decToNumber, decToString, formatAmount, roundDownToStep, toDec } from '../money';
import type {
  MarketRules,
  PlaceOrderCommand,
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
import { dispatchEvent, eventHandlers, refuseEvent } from '../shared/dispatch';
import { log, rejectParams } from '../shared/logging';
import { newOrderRef } from '../shared/orders';
import { markStopped, markStopping, userStop } from '../shared/stopping';
import { recordTrade, roundPnl } from '../shared/trades';
import type {
  SignalAction,
  SignalConfig,
  SignalOrderRef,
  SignalOutcome,
  SignalSkipReason,
  SignalState,
  SignalSummary,
} from './types';

/** Signals kept in `state.recent`. */
export const SIGNAL_RECENT_MAX = 50;
/** The action name the server sends signals with. */
export const SIGNAL_ACTION = 'signal';
/** Market orders sent at a close_market stop (retried after an exchange error). */
export const SIGNAL_MAX_CLOSE_ATTEMPTS = 3;

/** Thrown by createSignalBot for a configuration the strategy cannot run. */
export class SignalConfigError extends StrategyConfigError {
  constructor(code: string, message: string) {
    super('SignalConfigError', code, message);
  }
}

type Cx = StepContext<SignalState>;

// ---------------------------------------------------------------------------------------------------
// Config and creation

export function validateSignalConfig(config: SignalConfig): void {
  const fail = failWith(SignalConfigError);
  if (!config || typeof config !== 'object') fail('invalid_config', 'config is required');
  if (!positive(config.amountQuote) || config.amountQuote > 1e12)
    fail('invalid_amount', 'amountQuote must be a positive number of quote');
  if (!positive(config.maxPositionQuote) || config.maxPositionQuote > 1e12)
    fail('invalid_max_position', 'maxPositionQuote must be a positive number of quote');
  if (config.maxPositionQuote < config.amountQuote)
    fail(
      'max_position_below_amount',
      `maxPositionQuote ${config.maxPositionQuote} is below the amount per signal ${config.amountQuote}.`,
    );
  checkMarketRules(config.rules, fail, true);
  if (config.symbol !== undefined && typeof config.symbol !== 'string')
    fail('invalid_symbol', 'symbol must be a string');
}

export function createSignalBot(botId: string, config: SignalConfig): SignalState {
  if (typeof botId !== 'string' || !botId) throw new SignalConfigError('invalid_bot_id', 'botId is required');
  validateSignalConfig(config);
  return {
    version: 1,
    botId,
    config: { ...config, rules: { ...config.rules } },
    status: 'running',
    seq: 0,
    lastTs: null,
    lastPrice: null,
    lastSeq: 0,
    position: { qty: '0', cost: '0', fees: '0', openedAt: null },
    orders: [],
    recent: [],
    realizedPnl: '0',
    sells: 0,
    stopMode: null,
    stopReason: null,
    closeAttempts: 0,
  };
}

// ---------------------------------------------------------------------------------------------------
// Reading a state

export function signalSummary(s: SignalState): SignalSummary {
  const qty = toDec(s.position.qty);
  const total = toDec(s.position.cost) + toDec(s.position.fees);
  return {
    qty: decToNumber(qty),
    avgEntry: qty > 0n ? Number(formatAmount(decToString(decDiv(total, qty)), 10)) : 0,
    cost: decToNumber(toDec(s.position.cost)),
    pnlQuote: s.realizedPnl,
    lastSeq: s.lastSeq,
    status: s.status,
    pending: s.orders.length,
  };
}

/** Quote committed to buys in flight (their requested quote). */
function pendingBuyQuote(s: SignalState): bigint {
  let q = 0n;
  for (const o of s.orders) if (o.side === 'buy') q += toDec(o.quote);
  return q;
}

/** Base already promised to sells in flight. */
function pendingSellBase(s: SignalState): bigint {
  let q = 0n;
  for (const o of s.orders) if (o.side === 'sell') q += toDec(o.amount);
  return q;
}

// ---------------------------------------------------------------------------------------------------
// The step function

/** Applies one event. Never mutates `state`; the same state and event always give the same result. */
export function stepSignal(state: SignalState, event: StrategyEvent): StepResult<SignalState> {
  const cx = beginStep(state, event);
  if (cx.s.status !== 'stopped') dispatchEvent(cx, event, HANDLERS);
  // A stopped bot still answers a signal (onSignal logs it as skipped); it ignores everything else.
  else if (event.type === 'action' && event.name === SIGNAL_ACTION) onSignal(cx, event.params);
  return endStep(cx);
}

/** A signal action; the settings of other kinds and liquidation (it trades spot) log invalid_value. */
const HANDLERS = eventHandlers<Cx, void>({
  tick: (cx, e) => {
    if (positive(e.price)) {
      cx.s.lastPrice = e.price;
      cx.s.lastTs = cx.ts;
    }
  },
  action: (cx, e) => {
    if (e.name !== SIGNAL_ACTION) log(cx, 'warn', 'invalid_value', { field: 'action' });
    else onSignal(cx, e.params);
  },
  filled: onFilled,
  partial: onPartial,
  cancelled: onCancelled,
  rejected: onRejected,
  stop: (cx, mode) => userStop(cx, mode, beginStop),
  other: refuseEvent,
});

// --- signals -----------------------------------------------------------------------------------------

function remember(cx: Cx, outcome: SignalOutcome): void {
  const s = cx.s;
  const recent = s.recent.length >= SIGNAL_RECENT_MAX ? s.recent.slice(1 - SIGNAL_RECENT_MAX) : [...s.recent];
  recent.push(outcome);
  s.recent = recent;
}

function skip(
  cx: Cx,
  seq: number,
  action: SignalAction | null,
  reason: SignalSkipReason,
  params: Record<string, string | number> = {},
): void {
  log(cx, 'warn', 'signal_skipped', { seq, action: action ?? '', reason, ...params });
  remember(cx, { seq, action, clientOrderIds: [], outcome: 'skipped', reason });
}

function onSignal(cx: Cx, params: Record<string, unknown>): void {
  const s = cx.s;
  const p = params && typeof params === 'object' ? params : {};
  const seq = p.seq;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq <= 0) {
    log(cx, 'warn', 'invalid_value', { field: 'seq' });
    return;
  }
  // A replay (the server re-feeds accepted signals after a restart): the first feed already acted.
  if (seq <= s.lastSeq) return;
  s.lastSeq = seq;
  const action = p.action;
  if (action !== 'buy' && action !== 'sell' && action !== 'close') {
    log(cx, 'warn', 'invalid_value', { field: 'signal_action', seq });
    remember(cx, { seq, action: null, clientOrderIds: [], outcome: 'skipped', reason: 'invalid' });
    return;
  }
  const amount = p.amount;
  if (amount !== undefined && amount !== null && !positive(amount)) {
    log(cx, 'warn', 'invalid_value', { field: 'amount', seq });
    remember(cx, { seq, action, clientOrderIds: [], outcome: 'skipped', reason: 'invalid' });
    return;
  }
  // The market price when the signal is executed (the server reads it): a process that runs the bot
  // only for this action has no fresh tick, and a buy is sized on the price.
  if (positive(p.price)) s.lastPrice = p.price;
  if (s.status !== 'running') return skip(cx, seq, action, 'not_running');
  const quote = typeof amount === 'number' ? amount : s.config.amountQuote;
  if (action === 'buy') buy(cx, seq, quote);
  else sell(cx, seq, action, quote);
}

function buy(cx: Cx, seq: number, quote: number): void {
  const s = cx.s;
  const price = s.lastPrice;
  if (price === null) return skip(cx, seq, 'buy', 'no_price');
  const committed = toDec(s.position.cost) + pendingBuyQuote(s);
  if (committed + toDec(quote) > toDec(s.config.maxPositionQuote))
    return skip(cx, seq, 'buy', 'max_position', {
      position_cost: formatAmount(decToString(committed)),
      amount: quote,
      max_position: s.config.maxPositionQuote,
    });
  const r = s.config.rules;
  const base = roundDownToStep(quote / price, r.amountStep);
  const violation = minViolation(s.config.rules, base, price);
  if (violation)
    return skip(cx, seq, 'buy', 'below_min_cost', {
      min_reason: violation,
      amount: base,
      price,
      min_cost: r.minCost,
      min_amount: r.minAmount,
    });
  const id = nextId(s);
  s.orders = [
    ...s.orders,
    { ...newOrderRef(id, { side: 'buy' as const, signalSeq: seq, quote }, price, base) },
  ];
  cx.places.push({
    type: 'place_order',
    clientOrderId: id,
    side: 'buy',
    orderType: 'market',
    amount: base,
    quoteAmount: quote,
    role: 'signal_buy',
    lotId: `sig-${seq}`,
  });
  log(cx, 'info', 'signal_order', { seq, action: 'buy', amount: base, quote, price });
  remember(cx, { seq, action: 'buy', clientOrderIds: [id], outcome: 'executed' });
}

function sell(cx: Cx, seq: number, action: 'sell' | 'close', quote: number): void {
  const s = cx.s;
  const r = s.config.rules;
  const free = toDec(s.position.qty) - pendingSellBase(s);
  const held = free > 0n ? roundDownToStep(decToNumber(free), r.amountStep) : 0;
  if (!(held > 0)) return skip(cx, seq, action, 'no_position');
  const price = s.lastPrice;
  let base = held;
  if (action === 'sell') {
    if (price === null) return skip(cx, seq, action, 'no_price');
    base = Math.min(held, roundDownToStep(quote / price, r.amountStep));
  }
  const violation =
    price === null ? (base > 0 ? null : 'zero_amount') : minViolation(s.config.rules, base, price);
  if (violation)
    return skip(cx, seq, action, 'below_min_cost', {
      min_reason: violation,
      amount: base,
      price: price ?? 0,
      min_cost: r.minCost,
      min_amount: r.minAmount,
    });
  const id = nextId(s);
  placeSell(cx, id, base, seq, 'signal_sell');
  log(cx, 'info', 'signal_order', { seq, action, amount: base, price: price ?? 0 });
  remember(cx, { seq, action, clientOrderIds: [id], outcome: 'executed' });
}

function placeSell(cx: Cx, id: string, base: number, seq: number, role: 'signal_sell' | 'close'): void {
  const s = cx.s;
  s.orders = [
    ...s.orders,
    { ...newOrderRef(id, { side: 'sell' as const, signalSeq: seq, quote: 0 }, s.lastPrice ?? 0, base) },
  ];
  const cmd: PlaceOrderCommand = {
    type: 'place_order',
    clientOrderId: id,
    side: 'sell',
    orderType: 'market',
    amount: base,
    role,
    lotId: seq > 0 ? `sig-${seq}` : `${s.botId}-close`,
  };
  cx.places.push(cmd);
}

/** Why an order of `amount` base at `price` is below the market's minimums (null when it is not). */
function minViolation(m: MarketRules, amount: number, price: number): string | null {
  if (!(amount > 0)) return 'zero_amount';
  if (amount < m.minAmount) return 'min_amount';
  if (decMul(toDec(amount), toDec(price)) < toDec(m.minCost)) return 'min_cost';
  return null;
}

// --- order events ------------------------------------------------------------------------------------

function findOrder(s: SignalState, id: string): number {
  for (let i = 0; i < s.orders.length; i++) if (s.orders[i]!.clientOrderId === id) return i;
  return -1;
}

/** Copy-on-write of the order at `i` (the array and the ref) before changing it. */
function ownOrder(s: SignalState, i: number): SignalOrderRef {
  const o = { ...s.orders[i]! };
  s.orders = s.orders.map((x, k) => (k === i ? o : x));
  return o;
}

function removeOrder(s: SignalState, id: string): void {
  s.orders = s.orders.filter((o) => o.clientOrderId !== id);
}

function onPartial(cx: Cx, id: string, filled: number, price: number, fee: number): void {
  const s = cx.s;
  const i = findOrder(s, id);
  if (i < 0 || !validFill(filled, price, fee) || filled < s.orders[i]!.filled) return;
  const o = ownOrder(s, i);
  o.filled = filled;
  o.avgPrice = price;
  o.fee = fee;
}

function onFilled(cx: Cx, id: string, amount: number, price: number, fee: number): void {
  const s = cx.s;
  const i = findOrder(s, id);
  if (i < 0 || !validFill(amount, price, fee)) return;
  const o = s.orders[i]!;
  removeOrder(s, id);
  settle(cx, o, amount, price, fee);
}

function onCancelled(cx: Cx, id: string, filled?: number, price?: number, fee?: number): void {
  const s = cx.s;
  const i = findOrder(s, id);
  if (i < 0) return;
  const o = { ...s.orders[i]! };
  if (filled !== undefined && validFill(filled, price ?? 0, fee ?? 0) && filled >= o.filled) {
    o.filled = filled;
    o.avgPrice = price ?? o.avgPrice;
    o.fee = fee ?? o.fee;
  }
  removeOrder(s, id);
  log(cx, 'warn', 'order_rejected', {
    role: o.side === 'buy' ? 'signal_buy' : 'signal_sell',
    reason: 'cancelled',
    seq: o.signalSeq,
    filled: o.filled,
  });
  settle(cx, o, o.filled, o.avgPrice, o.fee);
}

function onRejected(cx: Cx, id: string, reason: RejectReason, message?: string): void {
  const s = cx.s;
  const i = findOrder(s, id);
  if (i < 0) return;
  const o = s.orders[i]!;
  removeOrder(s, id);
  const role = o.signalSeq > 0 ? (o.side === 'buy' ? 'signal_buy' : 'signal_sell') : 'close';
  if (role === 'close') {
    if (reason !== 'exchange_error' && reason !== 'unknown') s.closeAttempts = SIGNAL_MAX_CLOSE_ATTEMPTS;
    log(cx, 'warn', 'close_failed', {
      ...rejectParams({ reason }, message),
      attempt: s.closeAttempts,
      max_attempts: SIGNAL_MAX_CLOSE_ATTEMPTS,
    });
  } else {
    log(cx, 'warn', 'order_rejected', rejectParams({ role, reason, seq: o.signalSeq }, message));
  }
  continueStop(cx);
}

/** An order ended with `qty` filled at average `price` paying `fee` (quote): the position moves. */
function settle(cx: Cx, o: SignalOrderRef, qty: number, price: number, fee: number): void {
  if (qty > 0) {
    if (o.side === 'buy') bought(cx, o, qty, price, fee);
    else sold(cx, o, qty, price, fee);
  }
  continueStop(cx);
}

function bought(cx: Cx, o: SignalOrderRef, qty: number, price: number, fee: number): void {
  const s = cx.s;
  const p = s.position;
  s.position = {
    qty: decToString(toDec(p.qty) + toDec(qty)),
    cost: decToString(toDec(p.cost) + decMul(toDec(qty), toDec(price))),
    fees: decToString(toDec(p.fees) + toDec(fee)),
    openedAt: p.openedAt ?? cx.ts,
  };
  log(cx, 'info', 'signal_filled', {
    seq: o.signalSeq,
    side: 'buy',
    qty,
    price,
    fee,
    position: s.position.qty,
  });
}

/**
 * A sell of `qty` filled: the position's share of cost and buy fees goes with it, one trade
 * (buyPrice = the position's average price, fees excluded; buyFee = its share of the buy fees).
 */
function sold(cx: Cx, o: SignalOrderRef, qty: number, price: number, fee: number): void {
  const s = cx.s;
  const p = s.position;
  const held = toDec(p.qty);
  if (held <= 0n) return;
  let q = toDec(qty);
  if (q > held) q = held; // a venue never sells more than the bot sent; guard the books anyway
  const whole = q === held || held - q < toDec(s.config.rules.amountStep);
  const costShare = whole && q === held ? toDec(p.cost) : decDiv(decMul(toDec(p.cost), q), held);
  const feeShare = whole && q === held ? toDec(p.fees) : decDiv(decMul(toDec(p.fees), q), held);
  const avg = decDiv(toDec(p.cost), held);
  const buyPrice = Number(formatAmount(decToString(avg), 10));
  const pnl = roundPnl(decMul(q, toDec(price)) - costShare - feeShare - toDec(fee));
  const key = o.signalSeq > 0 ? `sig-${o.signalSeq}` : `${s.botId}-close-${o.clientOrderId}`;
  recordTrade(cx, {
    lotId: key,
    key,
    qty: decToNumber(q),
    buyPrice,
    sellPrice: price,
    buyTime: p.openedAt ?? cx.ts,
    sellTime: cx.ts,
    buyFee: decToNumber(feeShare),
    sellFee: fee,
    pnlNet: pnl,
  });
  s.sells += 1;
  const left = held - q;
  s.position =
    left > 0n
      ? {
          qty: decToString(left),
          cost: decToString(toDec(p.cost) - costShare),
          fees: decToString(toDec(p.fees) - feeShare),
          openedAt: p.openedAt,
        }
      : { qty: '0', cost: '0', fees: '0', openedAt: null };
  log(cx, 'info', 'signal_filled', {
    seq: o.signalSeq,
    side: 'sell',
    qty: decToNumber(q),
    price,
    fee,
    pnl_net: pnl,
    position: s.position.qty,
  });
}

// --- stopping ----------------------------------------------------------------------------------------

function beginStop(cx: Cx, mode: StopMode, reason: StopReason): void {
  const s = cx.s;
  if (s.status !== 'running') return;
  markStopping(cx, mode, reason);
  continueStop(cx);
}

/** Once no order is in flight: close_market sells the whole position at market, then the bot stops. */
function continueStop(cx: Cx): void {
  const s = cx.s;
  if (s.status !== 'stopping' || s.orders.length > 0) return;
  if (s.stopMode === 'close_market' && s.closeAttempts < SIGNAL_MAX_CLOSE_ATTEMPTS) {
    const r = s.config.rules;
    const amount = roundDownToStep(decToNumber(toDec(s.position.qty)), r.amountStep);
    if (amount > 0) {
      const price = s.lastPrice;
      const violation = price === null ? null : minViolation(r, amount, price);
      if (violation) {
        log(cx, 'warn', 'below_min_cost', {
          role: 'close',
          reason: violation,
          amount,
          price: price ?? 0,
          min_cost: r.minCost,
          min_amount: r.minAmount,
          symbol: s.config.symbol ?? '',
        });
      } else {
        s.closeAttempts += 1;
        placeSell(cx, nextId(s), amount, 0, 'close');
        return;
      }
    }
  }
  markStopped(cx, s.stopReason ?? 'user_cancel_only');
}

// ---------------------------------------------------------------------------------------------------
// The Strategy

/** Whether `a` and `b` differ only in the last price and time. */
export function samePersistedSignal(a: SignalState, b: SignalState): boolean {
  return (
    a.status === b.status &&
    a.seq === b.seq &&
    a.lastSeq === b.lastSeq &&
    a.position === b.position &&
    a.orders === b.orders &&
    a.recent === b.recent &&
    a.realizedPnl === b.realizedPnl &&
    a.closeAttempts === b.closeAttempts &&
    a.config === b.config
  );
}

/** Ticks never make the signal bot act: every tick is quiet (only the last price is noted). */
export function signalQuietBand(): QuietBand {
  return { low: 0, high: Number.POSITIVE_INFINITY, until: Number.POSITIVE_INFINITY };
}

/** The Signal bot as a `Strategy` (bots.kind 'signal'). */
export const signalBot: Strategy<SignalState, SignalConfig> = {
  kind: 'signal',
  create: createSignalBot,
  step: stepSignal,
  samePersisted: samePersistedSignal,
  realizedPnl: (s) => s.realizedPnl,
  quietBand: signalQuietBand,
  noteQuietTick: noteQuietTick,
};
