/**
 * Classic DCA bot (kind 'classic-dca') as a pure, deterministic state machine. See
 * docs/bots/classic-dca.md.
 *
 * One cycle: a market base order of A quote (once the trend filter allows it), then `os` safety limit
 * buys of A at entry × (1 − S)^k, and one take-profit limit sell of the whole position at the average
 * entry (fees included) × (1 + T). Every change of the average moves the take profit (cancel, then
 * place after the cancel is answered). The take-profit fill closes the cycle with one recorded trade.
 * The position is the bot's one pending order (`classicLots`): the LOT_ACTIONS add funds to it, sell it
 * at market, forget it, or turn its auto-fund (a buy at every further 10 % below the entry) on or off.
 *
 * Why this file is ~1,400 lines: every candle is a step (no quiet fast path), and the step calls the
 * position helpers (average, take profit, trend, open orders) many times; under tsx / V8 a call into
 * another ES module is not free: split into eleven files by concern the backtest took 20-30 % more CPU
 * time, and with only the position helpers in a file of their own still ~11 % (bench/backtest.bench.ts,
 * same-process A/B, issue 39). Only the configuration (config.ts: defaults, check, createClassicDca),
 * used once per bot, is apart.
 */
import {
  type Dec,
  DEC_SCALE,
  decDiv,
  decimalsOf,
  decMul,
  decToNumber,
  decToString,
  roundDownToStep,
  roundUpToStep,
  toDec,
} from '../money';
import {
  AUTO_FUND_MAX_STEPS,
  AUTO_FUND_STEP_PCT,
  type ClosedTrade,
  LOT_ACTIONS,
  type LotInfo,
  type MarketRules,
  type OrderRole,
  type QuietBand,
  type RejectReason,
  type StepResult,
  type StopMode,
  type StopReason,
  type Strategy,
  type StrategyEvent,
} from '../strategy';
import { backoffOver, bumpBackoff as bumpBackoffBy, due, pauseBuys, resetBackoff } from '../shared/backoff';
import { positive, validFill } from '../shared/checks';
import { beginStep, endStep, nextId, type StepContext } from '../shared/context';
import { dispatchEvent, eventHandlers } from '../shared/dispatch';
import { log, logBelowMin, rejectParams } from '../shared/logging';
import { closeOrder, limitOrder, marketBuy, newOrderRef } from '../shared/orders';
import {
  checkStopPrices as checkStopPricesBy,
  closeRefused,
  markStopped,
  markStopping,
  setStopPrice,
  userStop,
} from '../shared/stopping';
import { recordTrade, roundPnl } from '../shared/trades';
import type {
  ClassicDcaConfig,
  ClassicDcaState,
  ClassicDcaSummary,
  ClassicOrderRef,
  ClassicPosition,
} from './types';
import {
  CLASSIC_FIRST_BACKOFF_MS,
  CLASSIC_MAX_BACKOFF_MS,
  CLASSIC_MAX_CLOSE_ATTEMPTS,
  CLASSIC_TP_RETRY_MS,
  createClassicDca,
  TP_VNC_OPTIONS,
  ZERO_POSITION,
  ZERO_SALES,
} from './config';

// The public API of this kind (packages/engine/src/index.ts exports this file).
export {
  CLASSIC_DCA_DEFAULTS,
  TP_VNC_OPTIONS,
  CLASSIC_FIRST_BACKOFF_MS,
  CLASSIC_MAX_BACKOFF_MS,
  CLASSIC_TP_RETRY_MS,
  CLASSIC_MAX_CLOSE_ATTEMPTS,
  ClassicDcaConfigError,
  validateClassicDcaConfig,
  createClassicDca,
} from './config';

// ---------------------------------------------------------------------------------------------------
// Pure helpers

/** Safety level k: entry × (1 − S)^k, rounded down to the price step (float noise snapped first). */
export function classicLevelPrice(config: ClassicDcaConfig, entry: number, k: number): number {
  // The levels of the last entry per config object (a pure cache: ticks ask for them again and again).
  let hit = levelPrices.get(config);
  if (!hit || hit.entry !== entry || hit.sepPct !== config.sepPct || hit.step !== config.market.priceStep) {
    hit = { entry, sepPct: config.sepPct, step: config.market.priceStep, prices: [] };
    levelPrices.set(config, hit);
  }
  if (Number.isInteger(k) && k >= 0 && k <= MAX_CACHED_LEVEL) {
    const cached = hit.prices[k];
    if (cached !== undefined) return cached;
    const price = computeLevelPrice(config, entry, k);
    hit.prices[k] = price;
    return price;
  }
  return computeLevelPrice(config, entry, k);
}

const MAX_CACHED_LEVEL = 100;
const levelPrices = new WeakMap<
  ClassicDcaConfig,
  { entry: number; sepPct: number; step: number; prices: (number | undefined)[] }
>();

function computeLevelPrice(config: ClassicDcaConfig, entry: number, k: number): number {
  const raw = entry * Math.pow(1 - config.sepPct / 100, k);
  return roundDownToStep(Number(raw.toPrecision(12)), config.market.priceStep);
}

/** Why an order of `amount` at `price` cannot be placed (null when it can). */
export function classicMinViolation(market: MarketRules, amount: number, price: number): string | null {
  if (!(amount > 0)) return 'zero_amount';
  if (amount < market.minAmount) return 'min_amount';
  if (decMul(toDec(amount), toDec(price)) < toDec(market.minCost)) return 'min_cost';
  return null;
}

/** Quote spent for the position, fees included (exact). */
function positionCost(p: ClassicPosition): Dec {
  return toDec(p.quote) + toDec(p.fee);
}

/** The average entry per position object (a pure cache, as takeProfits below). */
const averages = new WeakMap<ClassicPosition, number | null>();

/** Average entry (fees included) of the position; null when nothing is held. */
export function classicAverage(state: ClassicDcaState): number | null {
  const p = state.position;
  const hit = averages.get(p);
  if (hit !== undefined) return hit;
  const q = toDec(p.qty);
  const avg = q <= 0n ? null : decToNumber(decDiv(positionCost(p), q));
  averages.set(p, avg);
  return avg;
}

/** Base amount the take profit sells: the position rounded down to the amount step. */
function tradableQty(s: ClassicDcaState): number {
  const q = Number(s.position.qty);
  return q > 0 ? roundDownToStep(q, s.config.market.amountStep) : 0;
}

/**
 * The last take profit computed per position object (positions are replaced, never changed in place):
 * ticks and quiet bands ask for it again and again, and it costs exact decimal divisions. A pure cache.
 */
const takeProfits = new WeakMap<
  ClassicPosition,
  { tpPct: number; priceStep: number; amountStep: number; tp: { price: number; amount: number } | null }
>();

/** Take profit of the position: cost / qty × (1 + T), exact, rounded UP; null without a tradable qty. */
export function classicTakeProfit(state: ClassicDcaState): { price: number; amount: number } | null {
  const { tpPct, market } = state.config;
  const hit = takeProfits.get(state.position);
  if (
    hit &&
    hit.tpPct === tpPct &&
    hit.priceStep === market.priceStep &&
    hit.amountStep === market.amountStep
  ) {
    return hit.tp && { price: hit.tp.price, amount: hit.tp.amount };
  }
  const tp = computeTakeProfit(state);
  takeProfits.set(state.position, {
    tpPct,
    priceStep: market.priceStep,
    amountStep: market.amountStep,
    tp: tp && { ...tp },
  });
  return tp;
}

function computeTakeProfit(state: ClassicDcaState): { price: number; amount: number } | null {
  const amount = tradableQty(state);
  if (!(amount > 0)) return null;
  const q = toDec(state.position.qty);
  const exact = decDiv(
    decMul(positionCost(state.position), toDec(100) + toDec(state.config.tpPct)),
    decMul(q, toDec(100)),
  );
  return { price: roundUpToStep(decToNumber(exact), state.config.market.priceStep), amount };
}

/** What is left of an order to fill, exact (without a fill, its amount: the same number as the exact
 *  difference whenever the amount has at most DEC_SCALE decimals, as stepped amounts do). */
function unfilled(o: { amount: number; filled: number }): number {
  if (o.filled === 0 && decimalsOf(o.amount) <= DEC_SCALE) return o.amount;
  return decToNumber(toDec(o.amount) - toDec(o.filled));
}

/** Trend filter: 'ok' when the last closed candle closes above the SMA of the last maPeriod closes. */
function trendCheck(s: ClassicDcaState): { state: 'ok' | 'warming' | 'wait'; close: number; ma: number } {
  const need = s.config.maPeriod;
  const n = s.candles.length;
  if (n < need) return { state: 'warming', close: 0, ma: 0 };
  let sum = 0;
  for (let i = n - need; i < n; i++) sum += s.candles[i]!.c;
  const ma = sum / need;
  const close = s.candles[n - 1]!.c;
  return { state: close > ma ? 'ok' : 'wait', close, ma };
}

function hasMarketBuy(s: ClassicDcaState): boolean {
  const o = s.orders;
  for (let i = 0; i < o.length; i++) if (o[i]!.market && o[i]!.side === 'buy') return true;
  return false;
}

function findOrder(s: ClassicDcaState, role: OrderRole): ClassicOrderRef | null {
  const o = s.orders;
  for (let i = 0; i < o.length; i++) if (o[i]!.role === role) return o[i]!;
  return null;
}

function safetyAt(s: ClassicDcaState, k: number): boolean {
  const o = s.orders;
  for (let i = 0; i < o.length; i++) if (o[i]!.role === 'safety' && o[i]!.level === k) return true;
  return false;
}

/** The id of the current cycle's position: its pending-order id and the lotId of its trade. */
export function classicPositionId(state: ClassicDcaState): string {
  return `${state.botId}-c${state.cycle}`;
}

/** Whether the bot holds a position the user can act on (the base filled, a tradable qty). */
function holdsPosition(s: ClassicDcaState): boolean {
  return s.cycleOpen && s.entry !== null && tradableQty(s) > 0;
}

/** The action in flight on the position: a user's sale or forget, else an add-funds / auto-fund buy. */
function positionBusy(s: ClassicDcaState): LotInfo['busy'] {
  if (s.lotBusy) return s.lotBusy;
  return findOrder(s, 'add_funds') ? 'adding' : null;
}

/**
 * Auto-fund step k triggers at price ≤ entry × (1 − AUTO_FUND_STEP_PCT × k / 100), compared exactly:
 * price × 100 ≤ entry × (100 − AUTO_FUND_STEP_PCT × k).
 */
function autoFundTriggered(entry: number, k: number, price: number): boolean {
  return toDec(price) * 100n <= decMul(toDec(entry), toDec(100 - AUTO_FUND_STEP_PCT * k));
}

/**
 * The bot's position as a pending order (`Strategy.lots`): none when the bot is stopped (a kept
 * position goes to `residual`, the server's VNC) or holds no tradable qty. `entryPrice` and `cost` are
 * WITHOUT buy fees (quote paid ÷ qty), unlike `summarizeClassicDca`'s dca and the take profit, which
 * include them; `cost` is the quote of the tradable qty (pro rata when dust below one amount step is
 * held). `firstPrice` is the base order's fill (`entry`), from which safety levels and auto-fund steps
 * are measured; `tpPrice` the resting take profit, else the one the position will get.
 */
export function classicLots(state: ClassicDcaState): LotInfo[] {
  const s = state;
  if (s.status === 'stopped' || !holdsPosition(s)) return [];
  const qty = tradableQty(s);
  const held = toDec(s.position.qty);
  const quote = toDec(s.position.quote);
  const q = toDec(qty);
  const cost = q === held ? quote : (quote * q) / held;
  const tp = findOrder(s, 'take_profit');
  const tpPrice = tp && !tp.cancelling ? tp.price : (classicTakeProfit(s)?.price ?? 0);
  return [
    {
      id: classicPositionId(s),
      openedAt: s.cycleStart ?? s.lastTs ?? 0,
      qty,
      entryPrice: decToNumber(decDiv(quote, held)),
      cost: decToNumber(cost),
      firstPrice: s.entry!,
      tpPrice,
      autoFund: s.autoFund ?? false,
      autoFundSteps: s.autoFundSteps ?? 0,
      busy: positionBusy(s),
    },
  ];
}

/** Figures for the dashboard. */
export function summarizeClassicDca(state: ClassicDcaState, price: number): ClassicDcaSummary {
  const s = state;
  const qty = Number(s.position.qty);
  const cost = positionCost(s.position);
  const validPrice = Number.isFinite(price) && price > 0;
  const unrealized = validPrice && qty > 0 ? decMul(toDec(s.position.qty), toDec(price)) - cost : 0n;
  const realized = Number(s.realizedPnl);
  const unrealizedPnl = decToNumber(unrealized);
  let safetyResting = 0;
  for (const o of s.orders) if (o.role === 'safety' && !o.cancelling) safetyResting++;
  const tp = findOrder(s, 'take_profit');
  let waitingFor: string | null = null;
  let phase: ClassicDcaSummary['phase'];
  if (s.status === 'stopped') phase = 'stopped';
  else if (s.status === 'stopping') phase = 'stopping';
  else if (s.cycleOpen) phase = 'in_position';
  else {
    phase = 'waiting';
    if (s.orders.length > 0) waitingFor = 'orders';
    else if (s.buyRetryAt !== null) waitingFor = 'retry';
    else if (s.config.trendFilter) {
      const t = trendCheck(s).state;
      waitingFor = t === 'warming' ? 'candles' : t === 'wait' ? 'trend' : null;
    }
  }
  return {
    phase,
    dca: classicAverage(s),
    qty,
    cost: decToNumber(cost),
    tpPrice: tp && !tp.cancelling ? tp.price : null,
    unrealizedPnl,
    realizedPnl: realized,
    pnl: decToNumber(unrealized + toDec(s.realizedPnl)),
    cycleStart: s.cycleStart,
    cycles: s.cycles,
    safetyFilled: s.safetyFills,
    safetyResting,
    waitingFor,
  };
}

// ---------------------------------------------------------------------------------------------------
// The step function

/** `owned`: whether `s.orders` (and its refs) is already this step's own copy. */
type Cx = StepContext<ClassicDcaState>;

/** Copy-on-write of the order list: the first change copies it (and its refs). */
function ownOrders(cx: Cx): void {
  if (cx.owned) return;
  cx.owned = true;
  cx.s.orders = cx.s.orders.map((o) => ({ ...o }));
}

const BACKOFF = { firstMs: CLASSIC_FIRST_BACKOFF_MS, maxMs: CLASSIC_MAX_BACKOFF_MS };

/** Applies one event. Never mutates `state`; the same state and event always give the same result. */
export function stepClassicDca(state: ClassicDcaState, event: StrategyEvent): StepResult<ClassicDcaState> {
  const cx: Cx = beginStep(state, event);
  if (cx.s.status !== 'stopped' && dispatchEvent(cx, event, HANDLERS)) settle(cx);
  return endStep(cx);
}

/** After a handled event: restore the running invariant, or go on stopping. */
function settle(cx: Cx): void {
  if (cx.s.status === 'running') reconcile(cx);
  else if (cx.s.status === 'stopping') continueStop(cx);
}

/** Each handler returns false when the event changed nothing (unknown order, bad input); relocation
 *  and RA (Grid Bot DCA settings) change nothing here. */
const HANDLERS = eventHandlers<Cx, boolean>({
  tick: (cx, e) => onTick(cx, e.price),
  filled: onFilled,
  partial: onPartial,
  cancelled: onCancelled,
  rejected: onRejected,
  setSl: (cx, e) => setStopPrice(cx, 'sl', e.sl),
  setTpPlus: (cx, e) => setStopPrice(cx, 'tpPlus', e.tpPlus),
  stop: (cx, mode) => userStop(cx, mode, beginStop),
  action: (cx, e) => onAction(cx, e.name, e.params),
  liquidated: (cx, e) => onLiquidated(cx, e.price, e.contracts),
  other: () => false,
});

/**
 * The venue liquidated the position at `price` (derivatives): the orders are gone (the runner delivered
 * their cancels), what is held is sold at `price` without fee into the cycle's trade, and the bot stops.
 */
function onLiquidated(cx: Cx, price: number, contracts: number): boolean {
  const s = cx.s;
  if (!positive(price)) {
    log(cx, 'warn', 'invalid_value', { field: 'price' });
    return false;
  }
  log(cx, 'warn', 'liquidated', { price, contracts: Number.isFinite(contracts) ? contracts : 0 });
  ownOrders(cx);
  s.orders = [];
  const q = toDec(s.position.qty);
  if (q > 0n) {
    const liq: ClassicOrderRef = newRef(`${s.botId}-liq`, 'close', 'sell', true, price, decToNumber(q));
    applyFill(cx, liq, decToNumber(q), price, 0);
  }
  recordCycleTrade(cx);
  markStopped(cx, 'liquidated');
  return false;
}

function onAction(cx: Cx, name: string, params: Record<string, unknown>): boolean {
  const s = cx.s;
  const p = params && typeof params === 'object' ? params : {};
  switch (name) {
    case 'add_funds':
      return addFunds(cx, p.amount);
    case LOT_ACTIONS.addFunds:
    case LOT_ACTIONS.sell:
    case LOT_ACTIONS.forget:
    case LOT_ACTIONS.autoFund:
      return onLotAction(cx, name, p);
    case 'set_r':
    case 'set_r_os': {
      if (typeof p.enabled !== 'boolean') {
        log(cx, 'warn', 'invalid_value', { field: 'enabled' });
        return false;
      }
      if (name === 'set_r') s.config = { ...s.config, r: p.enabled };
      else s.config = { ...s.config, rOs: p.enabled };
      log(cx, 'info', name === 'set_r' ? 'r_set' : 'r_os_set', { enabled: p.enabled ? 1 : 0 });
      return true;
    }
    case 'set_tp_vnc': {
      if (typeof p.pct !== 'number' || !TP_VNC_OPTIONS.includes(p.pct)) {
        log(cx, 'warn', 'invalid_value', { field: 'pct' });
        return false;
      }
      s.config = { ...s.config, tpVncPct: p.pct };
      log(cx, 'info', 'tp_vnc_set', { pct: p.pct });
      return true;
    }
    default:
      log(cx, 'warn', 'invalid_value', { field: 'action' });
      return false;
  }
}

/** `add_funds` (and LOT_ACTIONS.addFunds): a market buy of `amount` quote merged into the position. */
function addFunds(cx: Cx, amount: unknown): boolean {
  const s = cx.s;
  const price = s.lastPrice;
  if (
    !positive(amount) ||
    amount > 1e12 ||
    s.status !== 'running' ||
    !s.cycleOpen ||
    s.entry === null ||
    price === null ||
    s.lotBusy
  ) {
    log(cx, 'warn', 'invalid_value', { field: 'amount' });
    return false;
  }
  const qty = roundDownToStep(amount / price, s.config.market.amountStep);
  const violation = classicMinViolation(s.config.market, qty, price);
  if (violation) {
    logBelowMin(cx, 'add_funds', violation, qty, price);
    return false;
  }
  log(cx, 'info', 'add_funds', { amount, price });
  placeMarketBuy(cx, 'add_funds', amount, qty, price);
  return true;
}

/**
 * The LOT_ACTIONS on the position (`lotId` = classicPositionId). Bad params log `invalid_value`; a lot
 * that is not the current position, a bot not running, no position or an action in flight log
 * `lot_action_refused` {lot_id, action, reason: unknown_lot | not_running | not_in_position | busy}.
 * Either way nothing changes.
 */
function onLotAction(cx: Cx, name: string, p: Record<string, unknown>): boolean {
  const s = cx.s;
  const lotId = p.lotId;
  if (typeof lotId !== 'string' || !lotId) {
    log(cx, 'warn', 'invalid_value', { field: 'lotId' });
    return false;
  }
  if (name === LOT_ACTIONS.addFunds && (!positive(p.amount) || p.amount > 1e12)) {
    log(cx, 'warn', 'invalid_value', { field: 'amount' });
    return false;
  }
  if (name === LOT_ACTIONS.autoFund && typeof p.enabled !== 'boolean') {
    log(cx, 'warn', 'invalid_value', { field: 'enabled' });
    return false;
  }
  const refuse = (reason: string): false => {
    log(cx, 'warn', 'lot_action_refused', { lot_id: lotId, action: name, reason });
    return false;
  };
  if (lotId !== classicPositionId(s)) return refuse('unknown_lot');
  if (s.status !== 'running') return refuse('not_running');
  if (!holdsPosition(s)) return refuse('not_in_position');
  if (positionBusy(s) !== null) return refuse('busy');
  switch (name) {
    case LOT_ACTIONS.addFunds:
      return addFunds(cx, p.amount);
    case LOT_ACTIONS.autoFund:
      s.autoFund = p.enabled === true;
      log(cx, 'info', 'auto_fund_set', { lot_id: lotId, enabled: s.autoFund ? 1 : 0 });
      return true;
    case LOT_ACTIONS.sell: {
      const amount = tradableQty(s);
      const price = s.lastPrice ?? s.entry!;
      const violation = classicMinViolation(s.config.market, amount, price);
      if (violation) return refuse(violation);
      s.lotBusy = 'selling';
      log(cx, 'info', 'lot_selling', { lot_id: lotId, qty: amount, price });
      cancelResting(cx);
      return true;
    }
    case LOT_ACTIONS.forget:
    default:
      s.lotBusy = 'deleting';
      cancelResting(cx);
      return true;
  }
}

/**
 * A user's sale or forget, once every order of the cycle is answered (market buys filled, the rest
 * cancelled): the sale sends its market sell of the whole tradable qty; the forget drops the position and
 * ends the cycle. A sale that cannot be sent any more (below the minimum now) fails: `close_failed`, and
 * the take profit and safety buys are placed again.
 */
function continueLotAction(cx: Cx): void {
  const s = cx.s;
  if (s.orders.length > 0) return;
  if (s.lotBusy === 'deleting') {
    forgetPosition(cx);
    closeCycle(cx);
    return;
  }
  const amount = tradableQty(s);
  if (!(amount > 0)) {
    closeCycle(cx);
    return;
  }
  const lotId = classicPositionId(s);
  const price = s.lastPrice ?? s.entry ?? 0;
  const violation = classicMinViolation(s.config.market, amount, price);
  if (violation) {
    s.lotBusy = null;
    log(cx, 'warn', 'close_failed', { lot_id: lotId, reason: violation });
    return;
  }
  ownOrders(cx);
  const ref = newRef(nextId(s), 'close', 'sell', true, price, amount);
  s.orders.push(ref);
  cx.places.push(closeOrder(ref.clientOrderId, amount, lotId));
}

/** Drops the position from tracking without a trade (its base stays on the account). */
function forgetPosition(cx: Cx): void {
  const s = cx.s;
  const held = toDec(s.position.qty);
  log(cx, 'info', 'lot_forgotten', {
    lot_id: classicPositionId(s),
    qty: decToNumber(held),
    price: held > 0n ? decToNumber(decDiv(toDec(s.position.quote), held)) : 0,
  });
  s.position = ZERO_POSITION;
  s.lotBusy = null;
}

/** The user's market sell of the position answered: sold, the cycle closes as at its take profit. */
function saleSettled(cx: Cx, filled: boolean): void {
  const s = cx.s;
  if (tradableQty(s) === 0) {
    closeCycle(cx);
    return;
  }
  s.lotBusy = null;
  log(cx, 'warn', 'close_failed', {
    lot_id: classicPositionId(s),
    reason: filled ? 'partial' : 'cancelled',
  });
}

/**
 * Auto-fund on a tick: in a position with auto-fund on, nothing in flight and buys not paused, step
 * k = autoFundSteps + 1 (≤ AUTO_FUND_MAX_STEPS) triggers at price ≤ entry × (1 − 10 % × k). The step is
 * used whether it buys (a market buy of `amount` quote, as add_funds) or is skipped (below the minimum
 * here, refused by the venue later). At most one step per tick.
 */
function autoFundTick(cx: Cx, price: number): void {
  const s = cx.s;
  if (!s.autoFund || s.lotBusy || !s.cycleOpen || s.entry === null) return;
  const k = (s.autoFundSteps ?? 0) + 1;
  if (k > AUTO_FUND_MAX_STEPS || !autoFundTriggered(s.entry, k, price)) return;
  if (hasMarketBuy(s) || !backoffOver(s, cx.ts) || !(tradableQty(s) > 0)) return;
  s.autoFundSteps = k;
  const c = s.config;
  const lotId = classicPositionId(s);
  const qty = roundDownToStep(c.amount / price, c.market.amountStep);
  const violation = classicMinViolation(c.market, qty, price);
  if (violation) {
    log(cx, 'warn', 'auto_fund_skipped', { lot_id: lotId, step: k, reason: violation });
    return;
  }
  const drawdown = Number((((price - s.entry) / s.entry) * 100).toFixed(2));
  log(cx, 'info', 'auto_fund', { lot_id: lotId, step: k, drawdown_pct: drawdown, amount: c.amount });
  placeMarketBuy(cx, 'add_funds', c.amount, qty, price, k);
}

// --- ticks and candles -------------------------------------------------------------------------------

function onTick(cx: Cx, price: number): boolean {
  const s = cx.s;
  if (!Number.isFinite(price) || price <= 0) return false;
  s.lastPrice = price;
  s.lastTs = cx.ts;
  const closed = updateCandles(s, price, cx.ts);
  if (s.status !== 'running') return false;
  if (checkStopPrices(cx, price)) return true;
  if (closed) onCandleClosed(cx);
  autoFundTick(cx, price);
  return true;
}

/** Builds the forming candle; returns true when a candle closed. */
function updateCandles(s: ClassicDcaState, price: number, ts: number): boolean {
  const ms = s.config.candleMs;
  const bucket = Math.floor(ts / ms) * ms;
  const f = s.forming;
  if (f === null) {
    const last = s.candles[s.candles.length - 1];
    if (last && last.t > bucket) return false; // older than the seeded candles
    if (last && last.t === bucket) {
      // The seeded candle of this interval is still forming: reopen it.
      s.candles = s.candles.slice(0, -1);
      s.forming = { t: bucket, o: last.o, h: Math.max(last.h, price), l: Math.min(last.l, price), c: price };
      return false;
    }
    s.forming = { t: bucket, o: price, h: price, l: price, c: price };
    return false;
  }
  if (bucket <= f.t) {
    s.forming = { t: f.t, o: f.o, h: Math.max(f.h, price), l: Math.min(f.l, price), c: price };
    return false;
  }
  const keep = s.config.maPeriod + 2;
  const next = s.candles.length >= keep ? s.candles.slice(s.candles.length - keep + 1) : s.candles.slice();
  next.push(f);
  s.candles = next;
  s.forming = { t: bucket, o: price, h: price, l: price, c: price };
  return true;
}

/** SL (price at or below) and TP+ (price at or above): sell the position at market and stop. */
function checkStopPrices(cx: Cx, price: number): boolean {
  return checkStopPricesBy(cx, price, beginStop);
}

/**
 * Smart averaging, decided on candle close: in a position with the close below the average entry, a
 * candle closing above the previous candle's high, after that one closed below the one before it,
 * buys `smartAmount` quote at market.
 */
function onCandleClosed(cx: Cx): void {
  const s = cx.s;
  const c = s.config;
  if (!c.smartAveraging || !s.cycleOpen || s.entry === null || s.lotBusy || hasMarketBuy(s)) return;
  const n = s.candles.length;
  if (n < 3) return;
  const c0 = s.candles[n - 3]!;
  const c1 = s.candles[n - 2]!;
  const c2 = s.candles[n - 1]!;
  const avg = classicAverage(s);
  if (avg === null || !(c2.c < avg)) return;
  if (!(c1.c < c0.c && c2.c > c1.h)) return;
  const price = s.lastPrice ?? c2.c;
  const qty = roundDownToStep(c.smartAmount / price, c.market.amountStep);
  const violation = classicMinViolation(c.market, qty, price);
  if (violation) {
    log(cx, 'warn', 'smart_buy_skipped', {
      reason: violation === 'min_amount' ? 'min_amount' : 'min_cost',
      amount: c.smartAmount,
      min_cost: c.market.minCost,
    });
    return;
  }
  if (!backoffOver(s, cx.ts)) {
    log(cx, 'warn', 'smart_buy_skipped', {
      reason: 'backoff',
      amount: c.smartAmount,
      min_cost: c.market.minCost,
    });
    return;
  }
  log(cx, 'info', 'smart_buy', { close: c2.c, high: c1.h });
  placeMarketBuy(cx, 'smart_buy', c.smartAmount, qty, price);
}

function bumpBackoff(s: ClassicDcaState, ts: number): void {
  bumpBackoffBy(s, ts, BACKOFF);
}

function newRef(
  clientOrderId: string,
  role: OrderRole,
  side: 'buy' | 'sell',
  market: boolean,
  price: number,
  amount: number,
): ClassicOrderRef {
  return newOrderRef(clientOrderId, { role, side, market }, price, amount);
}

function placeMarketBuy(
  cx: Cx,
  role: OrderRole,
  quote: number,
  amount: number,
  price: number,
  autoStep?: number,
): void {
  ownOrders(cx);
  const s = cx.s;
  const ref = newRef(nextId(s), role, 'buy', true, price, amount);
  if (autoStep !== undefined) ref.autoStep = autoStep;
  s.orders.push(ref);
  cx.places.push(marketBuy(ref.clientOrderId, amount, quote, role));
}

// --- the running invariant ---------------------------------------------------------------------------

function reconcile(cx: Cx): void {
  const s = cx.s;
  if (s.buyRetryAt !== null && cx.ts >= s.buyRetryAt) s.buyRetryAt = null;
  if (s.cycleOpen && s.lotBusy) {
    continueLotAction(cx);
    if (s.cycleOpen && s.lotBusy) return; // waiting for the cancels, or for the sale
  }
  if (!s.cycleOpen) {
    waitingPhase(cx);
    return;
  }
  if (s.entry === null) return; // the base order is on its way
  placeSafeties(cx);
  if (!hasMarketBuy(s)) takeProfit(cx);
}

/** No cycle is open: once every order is answered, stop (r off), adopt a late fill, or start a cycle. */
function waitingPhase(cx: Cx): void {
  const s = cx.s;
  if (s.orders.length > 0) return;
  if (s.cycles > 0 && !s.config.r) {
    keepResidual(cx);
    markStopped(cx, 'cycle_done');
    return;
  }
  if (tradableQty(s) > 0) {
    // A buy cancelled at the cycle's close filled first: it opens the next cycle.
    const q = toDec(s.position.qty);
    s.cycleOpen = true;
    s.entry = decToNumber(decDiv(toDec(s.position.quote), q));
    log(cx, 'info', 'cycle_adopted', { cycle: s.cycle, qty: s.position.qty, price: s.entry });
    reconcile(cx);
    return;
  }
  const price = s.lastPrice;
  if (price === null || s.buyRetryAt !== null) return;
  if (s.config.trendFilter) {
    const t = trendCheck(s);
    if (t.state === 'warming') {
      if ((s.trendLogged & 1) === 0) {
        s.trendLogged |= 1;
        log(cx, 'info', 'trend_warming', { have: s.candles.length, need: s.config.maPeriod });
      }
      return;
    }
    if (t.state === 'wait') {
      if ((s.trendLogged & 2) === 0) {
        s.trendLogged |= 2;
        log(cx, 'info', 'trend_wait', { close: t.close, ma: round12(t.ma) });
      }
      return;
    }
    log(cx, 'info', 'trend_ok', { close: t.close, ma: round12(t.ma) });
  }
  placeBase(cx, price);
}

function round12(x: number): number {
  return Number(x.toPrecision(12));
}

function placeBase(cx: Cx, price: number): void {
  const s = cx.s;
  const c = s.config;
  const amount = roundDownToStep(c.amount / price, c.market.amountStep);
  const violation = classicMinViolation(c.market, amount, price);
  if (violation) {
    logBelowMin(cx, 'base', violation, amount, price, { cycle: s.cycle });
    keepResidual(cx);
    markStopped(cx, 'entry_failed');
    return;
  }
  s.cycleOpen = true;
  log(cx, 'info', 'cycle_started', { cycle: s.cycle, price, amount: c.amount });
  placeMarketBuy(cx, 'base', c.amount, amount, price);
}

/** Safety limit buys on every level that is not resting, filled (unless re-armed) or skipped. */
function placeSafeties(cx: Cx): void {
  const s = cx.s;
  const c = s.config;
  const entry = s.entry!;
  const canBuy = backoffOver(s, cx.ts);
  if (!canBuy) return;
  for (let k = 1; k <= c.os; k++) {
    if (safetyAt(s, k) || s.skippedLevels.includes(k)) continue;
    const price = classicLevelPrice(c, entry, k);
    if (s.filledLevels.includes(k)) {
      if (!c.rOs || s.lastPrice === null || !(s.lastPrice > price)) continue;
      s.filledLevels = s.filledLevels.filter((x) => x !== k);
      log(cx, 'info', 'safety_rearmed', { level: k, price });
    }
    const amount = roundDownToStep(c.amount / price, c.market.amountStep);
    const violation = price > 0 ? classicMinViolation(c.market, amount, price) : 'zero_amount';
    if (violation) {
      s.skippedLevels = [...s.skippedLevels, k];
      logBelowMin(cx, 'safety', violation, amount, price, { level: k });
      continue;
    }
    ownOrders(cx);
    const ref = newRef(nextId(s), 'safety', 'buy', false, price, amount);
    ref.level = k;
    s.orders.push(ref);
    cx.places.push(limitOrder(ref.clientOrderId, 'buy', price, amount, 'safety', { level: k }));
  }
}

/** One take profit for the whole position at the current average; moved by cancel-then-place. */
function takeProfit(cx: Cx): void {
  const s = cx.s;
  const desired = classicTakeProfit(s);
  const tp = findOrder(s, 'take_profit');
  if (tp) {
    if (tp.cancelling) return;
    const remaining = unfilled(tp);
    if (desired && tp.price === desired.price && remaining === desired.amount) return;
    ownOrders(cx);
    const own = findOrder(s, 'take_profit')!;
    own.cancelling = true;
    cx.cmds.push({ type: 'cancel_order', clientOrderId: own.clientOrderId });
    return;
  }
  if (!desired || s.tpBlocked || findOrder(s, 'close')) return;
  if (!due(s.tpRetryAt, cx.ts)) return;
  s.tpRetryAt = null;
  const violation = classicMinViolation(s.config.market, desired.amount, desired.price);
  if (violation) {
    s.tpBlocked = true;
    logBelowMin(cx, 'take_profit', violation, desired.amount, desired.price, { cycle: s.cycle });
    return;
  }
  ownOrders(cx);
  const ref = newRef(nextId(s), 'take_profit', 'sell', false, desired.price, desired.amount);
  s.orders.push(ref);
  const lotId = `${s.botId}-c${s.cycle}`;
  cx.places.push(
    limitOrder(ref.clientOrderId, 'sell', desired.price, desired.amount, 'take_profit', { lotId }),
  );
}

// --- order events ------------------------------------------------------------------------------------

function orderIndex(s: ClassicDcaState, id: string): number {
  const o = s.orders;
  for (let i = 0; i < o.length; i++) if (o[i]!.clientOrderId === id) return i;
  return -1;
}

/**
 * Books the part of an order's cumulative fill not yet booked: a buy adds base, quote and fee to the
 * position; a sell takes its base out of the position with its pro-rata share of the buy cost, and adds
 * to the cycle's sales.
 */
function applyFill(cx: Cx, ref: ClassicOrderRef, filled: number, price: number, fee: number): void {
  const s = cx.s;
  if (filled < ref.filled) return;
  const dq = toDec(filled) - toDec(ref.filled);
  const dquote = decMul(toDec(filled), toDec(price)) - decMul(toDec(ref.filled), toDec(ref.avgPrice));
  const dfee = toDec(fee) - toDec(ref.fee);
  ref.filled = filled;
  ref.avgPrice = price;
  ref.fee = fee;
  if (dq === 0n && dquote === 0n && dfee === 0n) return;
  const p = s.position;
  if (ref.side === 'buy') {
    s.position = {
      qty: decToString(toDec(p.qty) + dq),
      quote: decToString(toDec(p.quote) + dquote),
      fee: decToString(toDec(p.fee) + dfee),
    };
    if (dq > 0n && s.cycleStart === null) s.cycleStart = cx.ts;
    s.tpBlocked = false;
    return;
  }
  const held = toDec(p.qty);
  const q = dq < held ? dq : held;
  let buyQuote = toDec(p.quote);
  let buyFee = toDec(p.fee);
  if (q < held) {
    buyQuote = held > 0n ? (buyQuote * q) / held : 0n;
    buyFee = held > 0n ? (buyFee * q) / held : 0n;
  }
  s.position = {
    qty: decToString(held - q),
    quote: decToString(toDec(p.quote) - buyQuote),
    fee: decToString(toDec(p.fee) - buyFee),
  };
  const a = s.sales;
  s.sales = {
    qty: decToString(toDec(a.qty) + dq),
    quote: decToString(toDec(a.quote) + dquote),
    fee: decToString(toDec(a.fee) + dfee),
    buyQuote: decToString(toDec(a.buyQuote) + buyQuote),
    buyFee: decToString(toDec(a.buyFee) + buyFee),
  };
}

function onPartial(cx: Cx, id: string, filled: number, price: number, fee: number): boolean {
  const i = orderIndex(cx.s, id);
  if (i < 0 || !validFill(filled, price, fee)) return false;
  if (filled <= cx.s.orders[i]!.filled) return false; // stale or repeated update
  ownOrders(cx);
  applyFill(cx, cx.s.orders[i]!, filled, price, fee);
  return true;
}

function removeOrder(s: ClassicDcaState, i: number): ClassicOrderRef {
  const ref = s.orders[i]!;
  s.orders.splice(i, 1);
  return ref;
}

function onFilled(cx: Cx, id: string, amount: number, price: number, fee: number): boolean {
  const s = cx.s;
  const i = orderIndex(s, id);
  if (i < 0 || !validFill(amount, price, fee)) return false;
  ownOrders(cx);
  const ref = s.orders[i]!;
  if (amount >= ref.filled) applyFill(cx, ref, amount, price, fee);
  removeOrder(s, i);
  settled(cx, ref, true);
  return true;
}

function onCancelled(cx: Cx, id: string, filled?: number, price?: number, fee?: number): boolean {
  const s = cx.s;
  const i = orderIndex(s, id);
  if (i < 0) return false;
  ownOrders(cx);
  const ref = s.orders[i]!;
  if (filled !== undefined && validFill(filled, price ?? 0, fee ?? 0) && filled > ref.filled)
    applyFill(cx, ref, filled, price ?? ref.avgPrice, fee ?? ref.fee);
  removeOrder(s, i);
  settled(cx, ref, false);
  return true;
}

/** An order left the venue (filled, or cancelled with `ref.filled` of it filled). */
function settled(cx: Cx, ref: ClassicOrderRef, filled: boolean): void {
  const s = cx.s;
  const got = ref.filled > 0;
  switch (ref.role) {
    case 'base':
      if (got) {
        if (s.entry === null) s.entry = ref.avgPrice;
        log(cx, 'info', 'base_filled', {
          cycle: s.cycle,
          price: ref.avgPrice,
          qty: ref.filled,
          fee: ref.fee,
        });
      } else {
        if (s.entry === null) s.cycleOpen = false;
        log(cx, 'warn', 'order_rejected', { role: 'base', reason: 'cancelled' });
        bumpBackoff(s, cx.ts);
      }
      return;
    case 'safety':
      if (got) {
        if (!s.filledLevels.includes(ref.level!)) s.filledLevels = [...s.filledLevels, ref.level!];
        s.safetyFills += 1;
        log(cx, 'info', 'safety_filled', {
          level: ref.level!,
          price: ref.avgPrice,
          qty: ref.filled,
          fee: ref.fee,
        });
      } else if (!ref.cancelling) {
        log(cx, 'warn', 'order_rejected', { role: 'safety', reason: 'cancelled', level: ref.level! });
        bumpBackoff(s, cx.ts);
      }
      return;
    case 'add_funds':
    case 'smart_buy':
      if (got)
        log(cx, 'info', 'buy_filled', { role: ref.role, price: ref.avgPrice, qty: ref.filled, fee: ref.fee });
      else if (ref.autoStep !== undefined)
        log(cx, 'warn', 'auto_fund_skipped', {
          lot_id: classicPositionId(s),
          step: ref.autoStep,
          reason: 'cancelled',
        });
      else log(cx, 'warn', 'order_rejected', { role: ref.role, reason: 'cancelled' });
      return;
    case 'take_profit':
      if (got) resetBackoff(s);
      if (got && s.cycleOpen && tradableQty(s) === 0) closeCycle(cx);
      else if (!filled && !ref.cancelling && !got) {
        s.tpRetryAt = cx.ts + CLASSIC_TP_RETRY_MS;
        log(cx, 'warn', 'order_rejected', { role: 'take_profit', reason: 'cancelled', retry_in_s: 60 });
      }
      return;
    case 'close':
      if (got) resetBackoff(s);
      if (s.status === 'running' && s.lotBusy === 'selling') saleSettled(cx, filled);
      else if (!filled)
        log(cx, 'warn', 'close_failed', {
          reason: 'cancelled',
          attempt: s.closeAttempts,
          max_attempts: CLASSIC_MAX_CLOSE_ATTEMPTS,
        });
      return;
    case 'entry':
    case 'ladder_buy':
    case 'vnc_sell':
    case 'grid_buy':
    case 'grid_sell':
    case 'grid_init':
    case 'arb_prepare':
    case 'arb_buy':
    case 'arb_sell':
    case 'arb_unwind':
    case 'arb_close':
    case 'signal_buy':
    case 'signal_sell':
    case 'manual_entry':
    case 'manual_tp':
    case 'manual_sl':
      return;
  }
}

function onRejected(cx: Cx, id: string, reason: RejectReason, message?: string): boolean {
  const s = cx.s;
  const i = orderIndex(s, id);
  if (i < 0) return false;
  ownOrders(cx);
  const ref = removeOrder(s, i);
  const params = rejectParams({ role: ref.role, reason }, message);
  const permanent = reason === 'min_cost' || reason === 'precision';
  const code = (): string =>
    reason === 'min_cost'
      ? 'below_min_cost'
      : reason === 'insufficient_funds'
        ? 'insufficient_funds'
        : 'order_rejected';
  switch (ref.role) {
    case 'base':
      if (s.entry === null) s.cycleOpen = false;
      if (permanent) {
        log(cx, 'warn', code(), params);
        if (s.status === 'running' && !s.cycleOpen) {
          keepResidual(cx);
          markStopped(cx, 'entry_failed');
        }
      } else {
        pauseBuys(s, cx.ts, BACKOFF, params);
        log(cx, 'warn', code(), params);
      }
      return true;
    case 'safety':
      params.level = ref.level!;
      params.price = ref.price;
      if (permanent) {
        if (!s.skippedLevels.includes(ref.level!)) s.skippedLevels = [...s.skippedLevels, ref.level!];
      } else {
        pauseBuys(s, cx.ts, BACKOFF, params);
      }
      log(cx, 'warn', code(), params);
      return true;
    case 'add_funds':
    case 'smart_buy':
      if (!permanent) bumpBackoff(s, cx.ts);
      if (ref.autoStep !== undefined)
        log(
          cx,
          'warn',
          'auto_fund_skipped',
          rejectParams({ lot_id: classicPositionId(s), step: ref.autoStep, reason }, message),
        );
      else log(cx, 'warn', code(), params);
      return true;
    case 'take_profit':
      params.price = ref.price;
      if (permanent) s.tpBlocked = true;
      else {
        s.tpRetryAt = cx.ts + CLASSIC_TP_RETRY_MS;
        params.retry_in_s = CLASSIC_TP_RETRY_MS / 1000;
      }
      log(cx, 'warn', code(), params);
      return true;
    case 'close':
      if (s.status === 'running' && s.lotBusy === 'selling') {
        // The user's sale failed: the position stays, its take profit and safety buys come back.
        s.lotBusy = null;
        params.lot_id = classicPositionId(s);
        log(cx, 'warn', 'close_failed', params);
      } else closeRefused(cx, s, reason, params, CLASSIC_MAX_CLOSE_ATTEMPTS);
      return true;
    case 'entry':
    case 'ladder_buy':
    case 'vnc_sell':
    case 'grid_buy':
    case 'grid_sell':
    case 'grid_init':
    case 'arb_prepare':
    case 'arb_buy':
    case 'arb_sell':
    case 'arb_unwind':
    case 'arb_close':
    case 'signal_buy':
    case 'signal_sell':
    case 'manual_entry':
    case 'manual_tp':
    case 'manual_sl':
      return true;
  }
}

// --- cycles --------------------------------------------------------------------------------------------

/** Records the cycle's sales as one trade (nothing when nothing was sold). */
function recordCycleTrade(cx: Cx): void {
  const s = cx.s;
  const a = s.sales;
  const q = toDec(a.qty);
  if (q <= 0n) return;
  const sellQuote = toDec(a.quote);
  const sellFee = toDec(a.fee);
  const buyQuote = toDec(a.buyQuote);
  const buyFee = toDec(a.buyFee);
  // qty × (sell − buy) with sell and buy the exact averages is exactly sellQuote − buyQuote.
  const exact = sellQuote - buyQuote - buyFee - sellFee;
  const pnlNet = roundPnl(exact);
  const trade: ClosedTrade = {
    lotId: `${s.botId}-c${s.cycle}`,
    qty: decToNumber(q),
    buyPrice: decToNumber(decDiv(buyQuote, q)),
    sellPrice: decToNumber(decDiv(sellQuote, q)),
    buyTime: s.cycleStart ?? cx.ts,
    sellTime: cx.ts,
    buyFee: decToNumber(buyFee),
    sellFee: decToNumber(sellFee),
    pnlNet,
  };
  recordTrade(cx, trade);
  s.sales = ZERO_SALES;
  log(cx, 'info', 'cycle_closed', {
    cycle: s.cycle,
    qty: trade.qty,
    buy_price: trade.buyPrice,
    sell_price: trade.sellPrice,
    pnl_net: pnlNet,
  });
}

/**
 * The take profit (or the user's sale) sold the position, or the user forgot it: one trade for what was
 * sold, cancel the safety buys, next cycle (or stop later).
 */
function closeCycle(cx: Cx): void {
  const s = cx.s;
  recordCycleTrade(cx);
  s.cycles += 1;
  cancelResting(cx);
  s.cycle += 1;
  // Written only when set, so a state from before these fields keeps its shape.
  if (s.lotBusy) s.lotBusy = null;
  if (s.autoFund) s.autoFund = false;
  if (s.autoFundSteps) s.autoFundSteps = 0;
  s.cycleOpen = false;
  s.cycleStart = null;
  s.entry = null;
  s.trendLogged = 0;
  s.filledLevels = [];
  s.skippedLevels = [];
  s.safetyFills = 0;
  s.tpBlocked = false;
  s.tpRetryAt = null;
}

/** A position is left on the account: remember it for the server (a VNC). */
function keepResidual(cx: Cx): void {
  const s = cx.s;
  if (!(tradableQty(s) > 0)) return;
  s.residual = {
    qty: Number(s.position.qty),
    cost: decToString(positionCost(s.position)),
    buyTime: s.cycleStart ?? s.lastTs ?? cx.ts,
  };
}

// --- stopping ----------------------------------------------------------------------------------------

/** Cancels every resting (limit) order not already being cancelled; market orders are awaited. */
function cancelResting(cx: Cx): void {
  ownOrders(cx);
  for (const o of cx.s.orders) {
    if (o.cancelling || o.market) continue;
    o.cancelling = true;
    cx.cmds.push({ type: 'cancel_order', clientOrderId: o.clientOrderId });
  }
}

function beginStop(cx: Cx, mode: StopMode, reason: StopReason): void {
  const s = cx.s;
  if (s.status !== 'running') return;
  markStopping(cx, mode, reason);
  cancelResting(cx);
}

/** Once every order is answered: close_market sells the position at market, then the bot stops. */
function continueStop(cx: Cx): void {
  const s = cx.s;
  if (s.status !== 'stopping' || s.orders.length > 0) return;
  // A forget the user asked for before the stop wins: the position is not sold nor kept as residual.
  if (s.lotBusy === 'deleting') forgetPosition(cx);
  const amount = tradableQty(s);
  if (s.stopMode === 'close_market' && amount > 0 && s.closeAttempts < CLASSIC_MAX_CLOSE_ATTEMPTS) {
    const price = s.lastPrice ?? s.entry ?? 0;
    const violation = classicMinViolation(s.config.market, amount, price);
    if (violation) {
      s.closeAttempts = CLASSIC_MAX_CLOSE_ATTEMPTS;
      logBelowMin(cx, 'close', violation, amount, price, { cycle: s.cycle });
    } else {
      s.closeAttempts += 1;
      ownOrders(cx);
      const ref = newRef(nextId(s), 'close', 'sell', true, price, amount);
      s.orders.push(ref);
      cx.places.push(closeOrder(ref.clientOrderId, amount, `${s.botId}-c${s.cycle}`));
      return;
    }
  }
  recordCycleTrade(cx);
  keepResidual(cx);
  markStopped(cx, s.stopReason ?? 'user_cancel_only');
}

// ---------------------------------------------------------------------------------------------------
// Strategy object, persistence, quiet ticks

/**
 * Whether `a` and `b` differ only in what a tick may change without being written (last price and time,
 * the forming candle's high / low / close). Nested values are copied on change, so they are compared by
 * reference: nothing is allocated.
 */
export function samePersistedClassicDca(a: ClassicDcaState, b: ClassicDcaState): boolean {
  return (
    a.status === b.status &&
    a.seq === b.seq &&
    a.config === b.config &&
    a.cycle === b.cycle &&
    a.cycles === b.cycles &&
    a.cycleOpen === b.cycleOpen &&
    a.cycleStart === b.cycleStart &&
    a.entry === b.entry &&
    a.trendLogged === b.trendLogged &&
    a.position === b.position &&
    a.sales === b.sales &&
    a.orders === b.orders &&
    a.filledLevels === b.filledLevels &&
    a.safetyFills === b.safetyFills &&
    a.skippedLevels === b.skippedLevels &&
    a.buyRetryAt === b.buyRetryAt &&
    a.buyBackoffMs === b.buyBackoffMs &&
    a.tpRetryAt === b.tpRetryAt &&
    a.tpBlocked === b.tpBlocked &&
    a.closeAttempts === b.closeAttempts &&
    a.realizedPnl === b.realizedPnl &&
    a.stopMode === b.stopMode &&
    a.stopReason === b.stopReason &&
    a.residual === b.residual &&
    a.autoFund === b.autoFund &&
    a.autoFundSteps === b.autoFundSteps &&
    a.lotBusy === b.lotBusy &&
    a.candles === b.candles &&
    (a.forming === null ? null : a.forming.t) === (b.forming === null ? null : b.forming.t) &&
    (a.forming === null ? null : a.forming.o) === (b.forming === null ? null : b.forming.o)
  );
}

/**
 * Prices strictly inside (low, high) and times before `until` at which a tick only records itself
 * (lastPrice, lastTs, the forming candle's high / low / close). Conservative: null when unsure.
 */
export function classicQuietBand(state: ClassicDcaState): QuietBand | null {
  const s = state;
  if (s.status === 'stopped')
    return { low: 0, high: Number.POSITIVE_INFINITY, until: Number.POSITIVE_INFINITY };
  const f = s.forming;
  if (f === null || s.lastPrice === null) return null;
  let until = f.t + s.config.candleMs;
  if (s.status === 'stopping') return { low: 0, high: Number.POSITIVE_INFINITY, until };
  const c = s.config;
  let low = c.sl ?? 0;
  let high = c.tpPlus ?? Number.POSITIVE_INFINITY;
  const backoff = s.buyRetryAt !== null;
  if (s.buyRetryAt !== null) until = Math.min(until, s.buyRetryAt);
  if (!s.cycleOpen) {
    if (s.orders.length === 0) {
      if (s.cycles > 0 && !c.r) return null;
      if (tradableQty(s) > 0) return null;
      if (!backoff && !c.trendFilter) return null;
      if (!backoff) {
        const t = trendCheck(s).state;
        if (t === 'ok') return null;
        if (t === 'warming' && (s.trendLogged & 1) === 0) return null;
        if (t === 'wait' && (s.trendLogged & 2) === 0) return null;
      }
    }
  } else if (s.entry !== null) {
    // A user's sale or forget: ticks only wait for its orders (no buys, no TP, no auto-fund).
    if (s.lotBusy) return low < high && s.lastPrice > 0 ? { low, high, until } : null;
    const steps = s.autoFundSteps ?? 0;
    if (s.autoFund && steps < AUTO_FUND_MAX_STEPS) {
      // The next auto-fund step's trigger, nudged up so the band never holds an exact trigger price.
      const trigger = s.entry * (1 - (AUTO_FUND_STEP_PCT * (steps + 1)) / 100);
      low = Math.max(low, trigger * (1 + 1e-9));
    }
    for (let k = 1; k <= c.os; k++) {
      if (safetyAt(s, k) || s.skippedLevels.includes(k)) continue;
      if (s.filledLevels.includes(k)) {
        if (c.rOs && !backoff) high = Math.min(high, classicLevelPrice(c, s.entry, k));
        continue;
      }
      if (!backoff) return null;
    }
    if (!hasMarketBuy(s)) {
      const tp = findOrder(s, 'take_profit');
      const desired = classicTakeProfit(s);
      if (tp) {
        if (!tp.cancelling) {
          const remaining = unfilled(tp);
          if (!desired || tp.price !== desired.price || remaining !== desired.amount) return null;
        }
      } else if (desired && !s.tpBlocked && !findOrder(s, 'close')) {
        if (s.tpRetryAt === null) return null;
        until = Math.min(until, s.tpRetryAt);
      }
    }
  }
  return low < high && s.lastPrice > 0 ? { low, high, until } : null;
}

/** Writes a quiet tick in place: what stepClassicDca changes for a tick inside the quiet band. */
export function noteQuietTickClassicDca(s: ClassicDcaState, price: number, ts: number): void {
  if (s.status === 'stopped') return;
  s.lastPrice = price;
  s.lastTs = ts;
  const f = s.forming;
  if (f) {
    if (price > f.h) f.h = price;
    if (price < f.l) f.l = price;
    f.c = price;
  }
}

/** The classic DCA bot as a `Strategy` (bots.kind 'classic-dca'). */
export const classicDca: Strategy<ClassicDcaState, ClassicDcaConfig> = {
  kind: 'classic-dca',
  create: (botId, config) => createClassicDca(botId, config),
  step: stepClassicDca,
  samePersisted: samePersistedClassicDca,
  realizedPnl: (s) => s.realizedPnl,
  quietBand: classicQuietBand,
  noteQuietTick: noteQuietTickClassicDca,
  lots: classicLots,
};
