/**
 * The Grid bot (issue 14 §3) as a pure, deterministic state machine.
 *
 * Levels L_0 < L_1 < … < L_{n−1}: low × (1 + step)^i while ≤ high, rounded to the price step. Slot i is
 * the interval [L_i, L_{i+1}]; it holds one order at a time and trades qty_i = amountPerLevel / L_i base:
 * a buy at L_i and a sell at L_{i+1}, one after the other. The first tick leaves the level nearest to
 * the price empty: slots below it start with a buy at their lower level, slots above with a sell at
 * their upper level. Every fill places the opposite order of its slot one level away; the fill that
 * closes a slot's round records it as a trade (profit ≈ amountPerLevel × (step − 2 × fee)).
 *
 * - `long`: the base of the sell slots is bought at market at start (grid_init); every slot opens with
 *   a buy. `short` (derivatives): the mirror, a market sell opens the short of the buy slots; every slot
 *   opens with a sell. `neutral` (derivatives): nothing at start; slots below open with buys, above
 *   with sells.
 * - Out of range the orders stay and the bot waits; `grid_out_of_range` / `grid_back_in_range` are
 *   logged once per crossing.
 * See docs/engine.md ("Grid bot") for every decision.
 */
import {
  decDiv,
  decMul,
  decToNumber,
  decToString,
  formatAmount,
  roundDownToStep,
  roundToStep,
  toDec,
} from '../money';
import type {
  MarketRules,
  OrderRole,
  PlaceOrderCommand,
  QuietBand,
  RejectReason,
  StepResult,
  StopMode,
  StopReason,
  Strategy,
  StrategyEvent,
} from '../strategy';
import { nonNegative, positive, validFill } from '../shared/checks';
import { StrategyConfigError, failWith } from '../shared/config-error';
import { beginStep, endStep, nextId, noteQuietTick, type StepContext } from '../shared/context';
import { dispatchEvent, eventHandlers, refuseEvent } from '../shared/dispatch';
import { log, logBelowMin, rejectParams } from '../shared/logging';
import { newOrderRef } from '../shared/orders';
import { markStopped, markStopping, userStop } from '../shared/stopping';
import { recordTrade, roundPnl } from '../shared/trades';
import type { GridConfig, GridLevels, GridOrderRef, GridSlot, GridState, GridSummary } from './types';

/** Most levels a grid may have (its open orders are one fewer). */
export const GRID_MAX_LEVELS = 200;
/** Wait before an order refused for funds or an exchange error (or cancelled by the venue) is placed again. */
export const GRID_RETRY_MS = 60_000;
/** First wait after the start market order was refused for funds / an exchange error; doubles up to the cap. */
export const GRID_FIRST_BACKOFF_MS = 10_000;
export const GRID_MAX_BACKOFF_MS = 300_000;
/** Market orders sent at a close_market stop (retried after a cancel or an exchange error). */
export const GRID_MAX_CLOSE_ATTEMPTS = 3;
/** Safety bound on the level walk. */
const MAX_LEVEL_WALK = 100_000;

/** Thrown by createGridBot for a configuration the strategy cannot run. */
export class GridConfigError extends StrategyConfigError {
  constructor(code: string, message: string) {
    super('GridConfigError', code, message);
  }
}

type Cx = StepContext<GridState>;

// ---------------------------------------------------------------------------------------------------
// Levels

/**
 * Level prices from `low` to `high`: low × (1 + stepPct/100)^i while the raw value is ≤ high, each
 * rounded to the nearest price step; a level whose rounded price is not above the previous one is
 * dropped (a step smaller than the price step). At most `limit` levels are computed (a longer walk
 * stops there; callers compare the length with GRID_MAX_LEVELS).
 */
export function gridLevelPrices(
  low: number,
  high: number,
  stepPct: number,
  priceStep: number,
  limit = GRID_MAX_LEVELS + 1,
): number[] {
  const out: number[] = [];
  if (!positive(low) || !positive(high) || !positive(stepPct) || !(high >= low)) return out;
  const factor = 1 + stepPct / 100;
  const top = high * (1 + 1e-12);
  for (let i = 0; i < MAX_LEVEL_WALK && out.length < limit; i++) {
    const raw = Number((low * Math.pow(factor, i)).toPrecision(12));
    if (raw > top) break;
    const p = positive(priceStep) ? roundToStep(raw, priceStep) : raw;
    if (!(p > 0)) continue;
    if (out.length > 0 && p <= out[out.length - 1]!) continue;
    out.push(p);
  }
  return out;
}

/** Index of the level nearest to `price` (ties: the lower one); -1 without levels or a valid price. */
export function nearestLevel(levels: readonly number[], price: number): number {
  if (levels.length === 0 || !positive(price)) return -1;
  let best = 0;
  let bestDist = Math.abs(levels[0]! - price);
  for (let i = 1; i < levels.length; i++) {
    const d = Math.abs(levels[i]! - price);
    if (d < bestDist) {
      best = i;
      bestDist = d;
    }
  }
  return best;
}

/**
 * The grid at `price` (the server's /api/gridbot/niveles): every level, the buy levels (below the price)
 * and the sell levels (above it), ascending; the level nearest the price is left empty.
 */
export function gridLevels(
  price: number,
  low: number,
  high: number,
  stepPct: number,
  rules: Pick<MarketRules, 'priceStep'>,
): GridLevels {
  const levels = gridLevelPrices(low, high, stepPct, rules.priceStep);
  const e = nearestLevel(levels, price);
  if (e < 0) return { levels, buyLevels: [], sellLevels: [], emptyIndex: -1 };
  return { levels, buyLevels: levels.slice(0, e), sellLevels: levels.slice(e + 1), emptyIndex: e };
}

/** Base of every order of slot i: amountPerLevel / L_i rounded down to the amount step. */
export function gridSlotQty(config: GridConfig, lowerLevel: number): number {
  if (!(lowerLevel > 0)) return 0;
  return roundDownToStep(config.amountPerLevel / lowerLevel, config.market.amountStep);
}

/** Why an order of `amount` at `price` cannot be placed (null when it can). */
export function gridMinViolation(market: MarketRules, amount: number, price: number): string | null {
  if (!(amount > 0)) return 'zero_amount';
  if (amount < market.minAmount) return 'min_amount';
  if (decMul(toDec(amount), toDec(price)) < toDec(market.minCost)) return 'min_cost';
  return null;
}

// ---------------------------------------------------------------------------------------------------
// Config and creation

/** Checks a configuration; throws GridConfigError with a code and an English message (with numbers). */
export function validateGridConfig(config: GridConfig): void {
  const fail = failWith(GridConfigError);
  if (!config || typeof config !== 'object') fail('invalid_config', 'config is required');
  if (typeof config.symbol !== 'string' || !config.symbol) fail('invalid_symbol', 'symbol is required');
  if (!positive(config.low)) fail('invalid_low', 'low must be a positive price');
  if (!positive(config.high)) fail('invalid_high', 'high must be a positive price');
  if (!(config.low < config.high)) fail('low_not_below_high', 'Low Price must be less than High Price.');
  if (!positive(config.stepPct) || config.stepPct >= 100)
    fail('invalid_step', 'stepPct must be greater than 0 and below 100');
  if (!positive(config.amountPerLevel) || config.amountPerLevel > 1e12)
    fail('invalid_amount', 'amountPerLevel must be a positive number of quote');
  if (config.position !== 'long' && config.position !== 'short' && config.position !== 'neutral')
    fail('invalid_position', 'position must be long, short or neutral');
  if (config.profitCurrency !== 'quote' && config.profitCurrency !== 'base')
    fail('invalid_profit_currency', 'profitCurrency must be quote or base');
  if (typeof config.derivatives !== 'boolean') fail('invalid_derivatives', 'derivatives must be a boolean');
  if (config.position !== 'long' && !config.derivatives)
    fail('position_needs_derivatives', `A ${config.position} grid needs a derivatives market (not Spot).`);
  const m = config.market;
  if (!m || !positive(m.amountStep) || !positive(m.priceStep))
    fail('invalid_market', 'market amountStep and priceStep must be positive');
  if (
    !nonNegative(m.minAmount) ||
    !nonNegative(m.minCost) ||
    !nonNegative(m.takerFee) ||
    !nonNegative(m.makerFee)
  )
    fail('invalid_market', 'market minimums and fees must be non-negative numbers');
  const levels = gridLevelPrices(config.low, config.high, config.stepPct, m.priceStep);
  if (levels.length < 2)
    fail(
      'too_few_levels',
      `The range ${config.low}–${config.high} at ${config.stepPct}% holds fewer than 2 levels.`,
    );
  if (levels.length > GRID_MAX_LEVELS)
    fail(
      'too_many_levels',
      `The range ${config.low}–${config.high} at ${config.stepPct}% needs more than ${GRID_MAX_LEVELS} levels.`,
    );
  // The smallest order (the top slot: the lowest base at the highest price is still ≥ the lowest slot's
  // cost, so the slot with the smallest cost is checked at its own lower level).
  for (let i = 0; i + 1 < levels.length; i++) {
    const qty = gridSlotQty(config, levels[i]!);
    const v = gridMinViolation(m, qty, levels[i]!);
    if (v)
      fail(
        'below_min_cost',
        `amountPerLevel ${config.amountPerLevel} buys ${qty} at ${levels[i]}: below the market minimum (cost ${m.minCost}, amount ${m.minAmount}).`,
      );
  }
}

/** A new grid in status 'starting'; the first tick lays the grid out around its price. */
export function createGridBot(botId: string, config: GridConfig): GridState {
  if (typeof botId !== 'string' || !botId) throw new GridConfigError('invalid_bot_id', 'botId is required');
  validateGridConfig(config);
  const c: GridConfig = { ...config, market: { ...config.market } };
  return {
    version: 1,
    botId,
    config: c,
    status: 'starting',
    seq: 1,
    lastPrice: null,
    lastTs: null,
    levels: gridLevelPrices(c.low, c.high, c.stepPct, c.market.priceStep),
    emptyLevel: null,
    slots: [],
    init: null,
    close: null,
    closeAttempts: 0,
    profitBuy: null,
    profitQuote: '0',
    profitBase: '0',
    realizedPnl: '0',
    rounds: 0,
    inRange: null,
    stopMode: null,
    stopReason: null,
    initRetryAt: null,
    initBackoffMs: 0,
  };
}

// ---------------------------------------------------------------------------------------------------
// Reading a state

/** Base held (+) or owed (−) by the grid: open slots plus the base bought with profit (exact). */
function netBase(s: GridState): bigint {
  let n = toDec(s.profitBase);
  for (const slot of s.slots) {
    if (!slot.open) continue;
    const q = toDec(slot.open.qty);
    n += slot.open.side === 'buy' ? q : -q;
  }
  return n;
}

/** What the server lists of a grid. */
export function gridSummary(state: GridState): GridSummary {
  const buyPrices: number[] = [];
  const sellPrices: number[] = [];
  for (const slot of state.slots) {
    const o = slot.order;
    if (!o || o.cancelling) continue;
    (o.side === 'buy' ? buyPrices : sellPrices).push(o.price);
  }
  buyPrices.sort((a, b) => a - b);
  sellPrices.sort((a, b) => a - b);
  return {
    pnlQuote: state.realizedPnl,
    rounds: state.rounds,
    openBuys: buyPrices.length,
    openSells: sellPrices.length,
    baseHeld: decToNumber(netBase(state)),
    levels: [...state.levels],
    buyPrices,
    sellPrices,
    inRange: state.inRange,
    status: state.status,
  };
}

/** Prices of a slot's buy (its lower level) and sell (its upper level). */
function buyPriceOf(s: GridState, slot: GridSlot): number {
  return s.levels[slot.index]!;
}
function sellPriceOf(s: GridState, slot: GridSlot): number {
  return s.levels[slot.index + 1]!;
}

// ---------------------------------------------------------------------------------------------------
// The step function

/** Applies one event. Never mutates `state`; the same state and event always give the same result. */
export function stepGrid(state: GridState, event: StrategyEvent): StepResult<GridState> {
  const cx = beginStep(state, event);
  if (cx.s.status !== 'stopped') dispatchEvent(cx, event, HANDLERS);
  return endStep(cx);
}

/** Copy-on-write of the slots (and the orders in them) before the first change. */
function own(cx: Cx): void {
  if (cx.owned) return;
  cx.owned = true;
  const s = cx.s;
  s.slots = s.slots.map((sl) => ({
    ...sl,
    open: sl.open ? { ...sl.open } : null,
    order: sl.order ? { ...sl.order } : null,
  }));
  if (s.init) s.init = { ...s.init };
  if (s.close) s.close = { ...s.close };
  if (s.profitBuy) s.profitBuy = { ...s.profitBuy };
}

/** The Grid bot takes no action nor DCA setting: those log invalid_value. */
const HANDLERS = eventHandlers<Cx, void>({
  tick: (cx, e) => onTick(cx, e.price),
  filled: onFilled,
  partial: onPartial,
  cancelled: onCancelled,
  rejected: onRejected,
  stop: (cx, mode) => userStop(cx, mode, beginStop),
  liquidated: (cx, e) => onLiquidated(cx, e.price, e.contracts),
  other: refuseEvent,
});

// --- ticks -----------------------------------------------------------------------------------------

function onTick(cx: Cx, price: number): void {
  const s = cx.s;
  if (!positive(price)) return;
  s.lastPrice = price;
  s.lastTs = cx.ts;
  if (s.status === 'stopping') return;
  if (s.status === 'starting') {
    if (s.init === null && (s.initRetryAt === null || cx.ts >= s.initRetryAt)) start(cx, price);
    return;
  }
  checkRange(cx, price);
  // Slots without an order (after a refusal, a venue cancel, or waiting for the price to be on their
  // side): read-only scan first, so a tick that changes nothing allocates nothing.
  if (dueSlot(s, cx.ts) >= 0) {
    own(cx);
    placeDue(cx);
  }
}

function checkRange(cx: Cx, price: number): void {
  const s = cx.s;
  const low = s.levels[0]!;
  const high = s.levels[s.levels.length - 1]!;
  const now = price >= low && price <= high;
  if (s.inRange === now) return;
  if (!now)
    log(cx, 'warn', 'grid_out_of_range', { price, low, high, side: price > high ? 'above' : 'below' });
  else if (s.inRange === false) log(cx, 'info', 'grid_back_in_range', { price, low, high });
  s.inRange = now;
}

/** Whether slot `slot`'s next order may be placed now: not blocked, retry time over, and an opening
 *  order only on its side of the price (a buy below it, a sell above it). */
function slotDue(s: GridState, slot: GridSlot, ts: number): boolean {
  if (slot.order || slot.blocked) return false;
  if (slot.retryAt !== null && ts < slot.retryAt) return false;
  if (slot.open) return true;
  const price = s.lastPrice;
  if (price === null) return false;
  return slot.openSide === 'buy' ? price > buyPriceOf(s, slot) : price < sellPriceOf(s, slot);
}

function dueSlot(s: GridState, ts: number): number {
  const slots = s.slots;
  for (let i = 0; i < slots.length; i++) if (slotDue(s, slots[i]!, ts)) return i;
  return -1;
}

function placeDue(cx: Cx): void {
  const s = cx.s;
  if (s.status !== 'running') return;
  for (const slot of s.slots) if (slotDue(s, slot, cx.ts)) placeSlotOrder(cx, slot);
}

/** Closing orders of a round carry reduceOnly on derivatives, except in a neutral grid (its position
 *  nets longs and shorts, so a closing leg may grow the net position). */
function reduceOnlyLegs(s: GridState): boolean {
  return s.config.derivatives && s.config.position !== 'neutral';
}

/** Places the slot's next order: its closing order when it holds a position, else its opening one. */
function placeSlotOrder(cx: Cx, slot: GridSlot): void {
  const s = cx.s;
  const closing = slot.open !== null;
  const side: 'buy' | 'sell' = closing ? (slot.open!.side === 'buy' ? 'sell' : 'buy') : slot.openSide;
  const price = side === 'buy' ? buyPriceOf(s, slot) : sellPriceOf(s, slot);
  const amount = closing ? roundDownToStep(slot.open!.qty, s.config.market.amountStep) : slot.qty;
  const role: OrderRole = side === 'buy' ? 'grid_buy' : 'grid_sell';
  const level = side === 'buy' ? slot.index : slot.index + 1;
  const violation = gridMinViolation(s.config.market, amount, price);
  if (violation) {
    slot.blocked = true;
    logBelowMin(cx, role, violation, amount, price, { level });
    return;
  }
  const id = nextId(s);
  slot.order = { ...newOrderRef(id, {}, price, amount), side };
  slot.retryAt = null;
  const cmd: PlaceOrderCommand = {
    type: 'place_order',
    clientOrderId: id,
    side,
    orderType: 'limit',
    price,
    amount,
    role,
    level,
  };
  if (closing && reduceOnlyLegs(s)) cmd.reduceOnly = true;
  cx.places.push(cmd);
}

/** The first tick: the level nearest the price is left empty; slots below it buy, above it sell. */
function start(cx: Cx, price: number): void {
  own(cx);
  const s = cx.s;
  const c = s.config;
  const first = s.emptyLevel === null;
  const e = nearestLevel(s.levels, price);
  s.emptyLevel = e;
  if (first) {
    s.slots = [];
    for (let i = 0; i + 1 < s.levels.length; i++) {
      const below = i < e;
      const openSide: 'buy' | 'sell' =
        c.position === 'long' ? 'buy' : c.position === 'short' ? 'sell' : below ? 'buy' : 'sell';
      s.slots.push({
        index: i,
        qty: gridSlotQty(c, s.levels[i]!),
        openSide,
        open: null,
        order: null,
        blocked: false,
        retryAt: null,
      });
    }
    const low = s.levels[0]!;
    const high = s.levels[s.levels.length - 1]!;
    s.inRange = price >= low && price <= high;
    log(cx, 'info', 'started', {
      price,
      low,
      high,
      levels: s.levels.length,
      step_pct: c.stepPct,
      amount: c.amountPerLevel,
      position: c.position,
      empty_level: e,
    });
    if (!s.inRange)
      log(cx, 'warn', 'grid_out_of_range', { price, low, high, side: price > high ? 'above' : 'below' });
  }
  // The start market order: long buys the base of the slots above the empty level, short sells the
  // base of the slots below it.
  const initSlots = initSlotsOf(s);
  let total = 0n;
  for (const slot of initSlots) total += toDec(slot.qty);
  if (total === 0n) {
    s.status = 'running';
    placeDue(cx);
    return;
  }
  const amount = decToNumber(total);
  const side: 'buy' | 'sell' = c.position === 'long' ? 'buy' : 'sell';
  const violation = gridMinViolation(c.market, amount, price);
  if (violation) {
    logBelowMin(cx, 'grid_init', violation, amount, price);
    markStopped(cx, 'entry_failed');
    return;
  }
  const id = nextId(s);
  s.init = { ...newOrderRef(id, {}, price, amount), side };
  const cmd: PlaceOrderCommand = {
    type: 'place_order',
    clientOrderId: id,
    side,
    orderType: 'market',
    amount,
    role: 'grid_init',
  };
  if (side === 'buy') cmd.quoteAmount = Number(formatAmount(decToString(decMul(total, toDec(price))), 8));
  cx.places.push(cmd);
}

/** Slots whose position the start market order opens (nearest the empty level first). */
function initSlotsOf(s: GridState): GridSlot[] {
  const e = s.emptyLevel ?? 0;
  if (s.config.position === 'long') return s.slots.filter((sl) => sl.index >= e);
  if (s.config.position === 'short') return s.slots.filter((sl) => sl.index < e).reverse();
  return [];
}

/**
 * The start order filled `qty` at `price` paying `fee`: the base (or the short) goes to the slots it was
 * for, nearest the empty level first, each its whole qty with a share of the fee; a slot left without
 * (a partial fill) opens normally later. A remainder smaller than a slot is kept as profit base.
 */
function initFilled(cx: Cx, qty: number, price: number, fee: number, id: string): void {
  const s = cx.s;
  const side = s.init!.side;
  s.init = null;
  const got = toDec(qty);
  let left = got;
  const feeD = toDec(fee);
  let feeLeft = feeD;
  const slots = initSlotsOf(s);
  for (let k = 0; k < slots.length; k++) {
    const slot = slots[k]!;
    const q = toDec(slot.qty);
    if (q === 0n || left < q) continue;
    left -= q;
    const share = got > 0n ? decDiv(decMul(feeD, q), got) : 0n;
    feeLeft -= share;
    // Each slot's own lot id (`${init id}:${slot}`): one history row per slot's round.
    slot.open = {
      side,
      qty: slot.qty,
      price,
      fee: decToNumber(share),
      ts: cx.ts,
      orderId: `${id}:${slot.index}`,
    };
  }
  if (left > 0n) s.profitBase = decToString(toDec(s.profitBase) + (side === 'buy' ? left : -left));
  // Rounding of the shares: what is left of the fee goes to the first slot served.
  if (feeLeft !== 0n) {
    const firstOpen = slots.find((sl) => sl.open && sl.open.orderId.startsWith(`${id}:`));
    if (firstOpen) firstOpen.open!.fee = decToNumber(toDec(firstOpen.open!.fee) + feeLeft);
  }
  log(cx, 'info', 'grid_init_filled', { side, qty, price, fee });
  if (s.status === 'starting') s.status = 'running';
}

// --- order events ------------------------------------------------------------------------------------

type Found =
  | { kind: 'slot'; ref: GridOrderRef; slot: GridSlot }
  | { kind: 'init'; ref: GridOrderRef }
  | { kind: 'close'; ref: GridOrderRef }
  | { kind: 'profit'; ref: GridOrderRef };

function find(s: GridState, id: string): Found | null {
  if (s.init && s.init.clientOrderId === id) return { kind: 'init', ref: s.init };
  if (s.close && s.close.clientOrderId === id) return { kind: 'close', ref: s.close };
  if (s.profitBuy && s.profitBuy.clientOrderId === id) return { kind: 'profit', ref: s.profitBuy };
  for (const slot of s.slots)
    if (slot.order && slot.order.clientOrderId === id) return { kind: 'slot', ref: slot.order, slot };
  return null;
}

function onPartial(cx: Cx, id: string, filled: number, price: number, fee: number): void {
  if (!find(cx.s, id) || !validFill(filled, price, fee)) return;
  own(cx);
  const f = find(cx.s, id)!;
  if (filled < f.ref.filled) return;
  f.ref.filled = filled;
  f.ref.avgPrice = price;
  f.ref.fee = fee;
}

function onFilled(cx: Cx, id: string, amount: number, price: number, fee: number): void {
  if (!find(cx.s, id) || !validFill(amount, price, fee)) return;
  own(cx);
  const s = cx.s;
  const f = find(s, id)!;
  switch (f.kind) {
    case 'init':
      if (amount > 0) initFilled(cx, amount, price, fee, id);
      else {
        s.init = null;
        if (s.status === 'starting') s.status = 'running';
      }
      break;
    case 'slot':
      f.slot.order = null;
      if (amount > 0) slotFilled(cx, f.slot, f.ref, amount, price, fee);
      break;
    case 'profit':
      s.profitBuy = null;
      profitBought(cx, amount, price, fee);
      break;
    case 'close':
      s.close = null;
      closeFilled(cx, f.ref, amount, price, fee, true);
      break;
  }
  afterOrderEvent(cx);
}

/**
 * A slot's order filled `qty`: an opening fill opens the slot's position (its closing order goes one
 * level away); a closing fill completes the round (a trade) and re-arms the opening order.
 */
function slotFilled(
  cx: Cx,
  slot: GridSlot,
  ref: GridOrderRef,
  qty: number,
  price: number,
  fee: number,
): void {
  const s = cx.s;
  const level = ref.side === 'buy' ? slot.index : slot.index + 1;
  log(cx, 'info', 'grid_order_filled', { side: ref.side, level, qty, price, fee });
  if (!slot.open) {
    slot.open = { side: ref.side, qty, price, fee, ts: cx.ts, orderId: ref.clientOrderId };
  } else {
    closeSlot(cx, slot, qty, price, fee, ref.clientOrderId);
    if (s.config.profitCurrency === 'base') maybeBuyProfit(cx);
  }
  // The opposite order one level away, at once: the fill shows the market is on its side (the last
  // tick may not say so yet).
  if (
    s.status === 'running' &&
    !slot.order &&
    !slot.blocked &&
    (slot.retryAt === null || cx.ts >= slot.retryAt)
  )
    placeSlotOrder(cx, slot);
}

/**
 * `qty` of the slot's position was closed at `price` paying `fee` (in quote): one trade. The whole
 * position closes the round; a part (a cancel after a partial fill) shrinks it and keys the trade
 * `${open order}#${closing order}`.
 */
function closeSlot(
  cx: Cx,
  slot: GridSlot,
  qty: number,
  price: number,
  fee: number,
  closeId: string,
  round = true,
): void {
  const s = cx.s;
  const open = slot.open!;
  const held = toDec(open.qty);
  const q = toDec(qty);
  const whole = q >= held || held - q < toDec(s.config.market.amountStep);
  let openFee = toDec(open.fee);
  if (!whole) openFee = decDiv(decMul(openFee, q), held);
  const long = open.side === 'buy';
  const buyPrice = long ? open.price : price;
  const sellPrice = long ? price : open.price;
  const buyFee = long ? decToNumber(openFee) : fee;
  const sellFee = long ? fee : decToNumber(openFee);
  const pnl = roundPnl(decMul(q, toDec(sellPrice) - toDec(buyPrice)) - toDec(buyFee) - toDec(sellFee));
  recordTrade(cx, {
    lotId: open.orderId,
    ...(whole ? {} : { key: `${open.orderId}#${closeId}` }),
    qty,
    buyPrice,
    sellPrice,
    buyTime: long ? open.ts : cx.ts,
    sellTime: long ? cx.ts : open.ts,
    buyFee,
    sellFee,
    pnlNet: pnl,
  });
  if (whole && !round) {
    // Closed by the stop's market order or by a liquidation: a trade, not a grid round.
    slot.open = null;
  } else if (whole) {
    s.rounds += 1;
    slot.open = null;
    log(cx, 'info', 'grid_round', {
      level: slot.index,
      qty,
      buy_price: buyPrice,
      sell_price: sellPrice,
      pnl_net: pnl,
      rounds: s.rounds,
    });
    if (s.config.profitCurrency === 'base' && pnl > 0)
      s.profitQuote = decToString(toDec(s.profitQuote) + toDec(pnl));
  } else {
    open.qty = decToNumber(held - q);
    open.fee = decToNumber(toDec(open.fee) - openFee);
  }
}

/** profitCurrency base: the collected profit is spent on base at market once it reaches the minimum. */
function maybeBuyProfit(cx: Cx): void {
  const s = cx.s;
  if (s.profitBuy || s.status !== 'running' || s.lastPrice === null) return;
  const quote = toDec(s.profitQuote);
  if (quote <= 0n) return;
  const price = s.lastPrice;
  const amount = roundDownToStep(decToNumber(quote) / price, s.config.market.amountStep);
  // Below the minimum the profit waits for the next rounds (no log: it is not an order the user expects).
  if (gridMinViolation(s.config.market, amount, price)) return;
  const id = nextId(s);
  s.profitBuy = { ...newOrderRef(id, {}, price, amount), side: 'buy' };
  cx.places.push({
    type: 'place_order',
    clientOrderId: id,
    side: 'buy',
    orderType: 'market',
    amount,
    quoteAmount: decToNumber(quote),
    role: 'grid_buy',
  });
}

function profitBought(cx: Cx, qty: number, price: number, fee: number): void {
  const s = cx.s;
  if (qty <= 0) return;
  const spent = decMul(toDec(qty), toDec(price)) + toDec(fee);
  const left = toDec(s.profitQuote) - spent;
  s.profitQuote = decToString(left > 0n ? left : 0n);
  s.profitBase = decToString(toDec(s.profitBase) + toDec(qty));
  log(cx, 'info', 'grid_profit_bought', { qty, price, fee, profit_base: s.profitBase });
}

function onCancelled(cx: Cx, id: string, filled?: number, price?: number, fee?: number): void {
  if (!find(cx.s, id)) return;
  own(cx);
  const s = cx.s;
  const f = find(s, id)!;
  if (filled !== undefined && validFill(filled, price ?? 0, fee ?? 0) && filled >= f.ref.filled) {
    f.ref.filled = filled;
    f.ref.avgPrice = price ?? f.ref.avgPrice;
    f.ref.fee = fee ?? f.ref.fee;
  }
  const { filled: got, avgPrice, fee: paid } = f.ref;
  switch (f.kind) {
    case 'init':
      if (got > 0) initFilled(cx, got, avgPrice, paid, id);
      else {
        s.init = null;
        if (s.status === 'starting') {
          log(cx, 'warn', 'order_rejected', { role: 'grid_init', reason: 'cancelled' });
          bumpInitBackoff(s, cx.ts);
        }
      }
      break;
    case 'slot': {
      const slot = f.slot;
      slot.order = null;
      if (got > 0) {
        if (slot.open) closeSlot(cx, slot, got, avgPrice, paid, id);
        else slot.open = { side: f.ref.side, qty: got, price: avgPrice, fee: paid, ts: cx.ts, orderId: id };
      }
      if (!f.ref.cancelling && s.status === 'running') {
        // The venue cancelled it: placed again after a pause.
        slot.retryAt = cx.ts + GRID_RETRY_MS;
        log(cx, 'warn', 'order_rejected', {
          role: f.ref.side === 'buy' ? 'grid_buy' : 'grid_sell',
          reason: 'cancelled',
          level: f.ref.side === 'buy' ? slot.index : slot.index + 1,
          price: f.ref.price,
          retry_in_s: GRID_RETRY_MS / 1000,
        });
      }
      break;
    }
    case 'profit':
      s.profitBuy = null;
      if (got > 0) profitBought(cx, got, avgPrice, paid);
      break;
    case 'close':
      s.close = null;
      if (got > 0) closeFilled(cx, f.ref, got, avgPrice, paid, false);
      log(cx, 'warn', 'close_failed', {
        reason: 'cancelled',
        attempt: s.closeAttempts,
        max_attempts: GRID_MAX_CLOSE_ATTEMPTS,
      });
      break;
  }
  afterOrderEvent(cx);
}

function bumpInitBackoff(s: GridState, ts: number): void {
  if (s.initRetryAt !== null && ts < s.initRetryAt) return;
  s.initBackoffMs =
    s.initBackoffMs > 0 ? Math.min(GRID_MAX_BACKOFF_MS, s.initBackoffMs * 2) : GRID_FIRST_BACKOFF_MS;
  s.initRetryAt = ts + s.initBackoffMs;
}

function onRejected(cx: Cx, id: string, reason: RejectReason, message?: string): void {
  if (!find(cx.s, id)) return;
  own(cx);
  const s = cx.s;
  const f = find(s, id)!;
  const permanent = reason === 'min_cost' || reason === 'precision';
  const code =
    reason === 'insufficient_funds'
      ? 'insufficient_funds'
      : permanent && reason === 'min_cost'
        ? 'below_min_cost'
        : 'order_rejected';
  switch (f.kind) {
    case 'init': {
      s.init = null;
      const params = rejectParams({ role: 'grid_init', reason }, message);
      if (permanent) {
        log(cx, 'warn', code, params);
        if (s.status === 'starting') markStopped(cx, 'entry_failed');
      } else {
        bumpInitBackoff(s, cx.ts);
        params.retry_in_s = Math.round(s.initBackoffMs / 1000);
        log(cx, 'warn', code, params);
      }
      break;
    }
    case 'slot': {
      const slot = f.slot;
      slot.order = null;
      const params = rejectParams(
        {
          role: f.ref.side === 'buy' ? 'grid_buy' : 'grid_sell',
          reason,
          level: f.ref.side === 'buy' ? slot.index : slot.index + 1,
          price: f.ref.price,
        },
        message,
      );
      if (permanent) slot.blocked = true;
      else {
        slot.retryAt = cx.ts + GRID_RETRY_MS;
        params.retry_in_s = GRID_RETRY_MS / 1000;
      }
      log(cx, 'warn', code, params);
      break;
    }
    case 'profit':
      s.profitBuy = null;
      log(cx, 'warn', code, rejectParams({ role: 'grid_buy', reason, profit_quote: s.profitQuote }, message));
      break;
    case 'close':
      s.close = null;
      if (reason !== 'exchange_error' && reason !== 'unknown') s.closeAttempts = GRID_MAX_CLOSE_ATTEMPTS;
      log(cx, 'warn', 'close_failed', {
        ...rejectParams({ reason }, message),
        attempt: s.closeAttempts,
        max_attempts: GRID_MAX_CLOSE_ATTEMPTS,
      });
      break;
  }
  afterOrderEvent(cx);
}

function afterOrderEvent(cx: Cx): void {
  const s = cx.s;
  if (s.status === 'running') placeDue(cx);
  else if (s.status === 'stopping') continueStop(cx);
}

// --- stopping ----------------------------------------------------------------------------------------

function beginStop(cx: Cx, mode: StopMode, reason: StopReason): void {
  own(cx);
  const s = cx.s;
  if (s.status === 'stopped' || s.status === 'stopping') return;
  markStopping(cx, mode, reason);
  for (const slot of s.slots) {
    const o = slot.order;
    if (!o || o.cancelling) continue;
    o.cancelling = true;
    cx.cmds.push({ type: 'cancel_order', clientOrderId: o.clientOrderId });
  }
  continueStop(cx);
}

/** Once every order is settled: close_market closes the net position at market, then the bot stops. */
function continueStop(cx: Cx): void {
  const s = cx.s;
  if (s.status !== 'stopping') return;
  const outstanding =
    s.init !== null || s.profitBuy !== null || s.close !== null || s.slots.some((sl) => sl.order !== null);
  if (outstanding) return;
  if (s.stopMode === 'close_market' && s.closeAttempts < GRID_MAX_CLOSE_ATTEMPTS) {
    const net = netBase(s);
    if (net !== 0n) {
      const side: 'buy' | 'sell' = net > 0n ? 'sell' : 'buy';
      const amount = roundDownToStep(decToNumber(net > 0n ? net : -net), s.config.market.amountStep);
      const price = s.lastPrice ?? 0;
      const violation = gridMinViolation(s.config.market, amount, price);
      if (violation) {
        logBelowMin(cx, 'close', violation, amount, price);
      } else {
        s.closeAttempts += 1;
        const id = nextId(s);
        s.close = { ...newOrderRef(id, {}, price, amount), side };
        const cmd: PlaceOrderCommand = {
          type: 'place_order',
          clientOrderId: id,
          side,
          orderType: 'market',
          amount,
          role: 'close',
        };
        if (s.config.derivatives) cmd.reduceOnly = true;
        cx.places.push(cmd);
        return;
      }
    }
  }
  markStopped(cx, s.stopReason ?? 'user_cancel_only');
}

/**
 * The close_market order filled `qty` at `price` paying `fee`: the slots on its side are closed in
 * order (each a trade with its share of the fee); what is beyond them comes out of the profit base.
 * When the order filled completely (`complete`), slots of the other side (a neutral grid's longs and
 * shorts netted against each other) are closed at the same price without fee, and nothing is left.
 */
function closeFilled(
  cx: Cx,
  ref: GridOrderRef,
  qty: number,
  price: number,
  fee: number,
  complete: boolean,
): void {
  const s = cx.s;
  const closes: 'buy' | 'sell' = ref.side === 'sell' ? 'buy' : 'sell';
  const got = toDec(qty);
  const feeD = toDec(fee);
  let left = got;
  for (const slot of s.slots) {
    if (left <= 0n) break;
    if (!slot.open || slot.open.side !== closes) continue;
    const held = toDec(slot.open.qty);
    const q = left < held ? left : held;
    left -= q;
    const share = got > 0n ? decDiv(decMul(feeD, q), got) : 0n;
    closeSlot(cx, slot, decToNumber(q), price, decToNumber(share), ref.clientOrderId, false);
  }
  if (left > 0n) s.profitBase = decToString(toDec(s.profitBase) + (ref.side === 'sell' ? -left : left));
  if (!complete) return;
  for (const slot of s.slots)
    if (slot.open) closeSlot(cx, slot, slot.open.qty, price, 0, ref.clientOrderId, false);
  s.profitBase = '0';
  s.profitQuote = '0';
}

/** The venue liquidated the position at `price`: every open slot is a trade at that price, then stop. */
function onLiquidated(cx: Cx, price: number, contracts: number): void {
  own(cx);
  const s = cx.s;
  if (!positive(price)) return log(cx, 'warn', 'invalid_value', { field: 'price' });
  log(cx, 'warn', 'liquidated', { price, contracts: nonNegative(contracts) ? contracts : 0 });
  // The runner delivered the cancels of the orders already; anything still tracked is gone too.
  s.init = null;
  s.profitBuy = null;
  s.close = null;
  for (const slot of s.slots) {
    slot.order = null;
    if (slot.open) closeSlot(cx, slot, slot.open.qty, price, 0, `liq-${cx.ts}`, false);
  }
  s.profitBase = '0';
  s.profitQuote = '0';
  s.stopMode = null;
  markStopped(cx, 'liquidated');
}

// ---------------------------------------------------------------------------------------------------
// The Strategy

/** Whether `a` and `b` differ only in the last price and time (copy-on-write keeps unchanged parts shared). */
export function samePersistedGrid(a: GridState, b: GridState): boolean {
  return (
    a.status === b.status &&
    a.seq === b.seq &&
    a.slots === b.slots &&
    a.inRange === b.inRange &&
    a.init === b.init &&
    a.close === b.close &&
    a.profitBuy === b.profitBuy &&
    a.realizedPnl === b.realizedPnl &&
    a.profitQuote === b.profitQuote &&
    a.profitBase === b.profitBase &&
    a.closeAttempts === b.closeAttempts &&
    a.initRetryAt === b.initRetryAt &&
    a.emptyLevel === b.emptyLevel
  );
}

/**
 * Prices strictly inside which a tick does nothing but record itself: a running grid with every slot
 * on the venue (or blocked) reacts to ticks only by crossing the range edges. Null while a slot waits
 * for a retry or for the price.
 */
export function gridQuietBand(s: GridState): QuietBand | null {
  if (s.status === 'stopped' || s.status === 'stopping')
    return { low: 0, high: Number.POSITIVE_INFINITY, until: Number.POSITIVE_INFINITY };
  if (s.status === 'starting') {
    if (s.init !== null) return { low: 0, high: Number.POSITIVE_INFINITY, until: Number.POSITIVE_INFINITY };
    return null;
  }
  if (s.inRange === null || s.lastPrice === null || s.levels.length === 0) return null;
  const slots = s.slots;
  for (let i = 0; i < slots.length; i++) {
    const sl = slots[i]!;
    if (!sl.order && !sl.blocked) return null;
  }
  const low = s.levels[0]!;
  const high = s.levels[s.levels.length - 1]!;
  if (s.inRange) return low < high ? { low, high, until: Number.POSITIVE_INFINITY } : null;
  if (s.lastPrice > high)
    return { low: high, high: Number.POSITIVE_INFINITY, until: Number.POSITIVE_INFINITY };
  return { low: 0, high: low, until: Number.POSITIVE_INFINITY };
}

/** The Grid bot as a `Strategy` (bots.kind 'grid'). */
export const gridBot: Strategy<GridState, GridConfig> = {
  kind: 'grid',
  create: createGridBot,
  step: stepGrid,
  samePersisted: samePersistedGrid,
  realizedPnl: (s) => s.realizedPnl,
  quietBand: gridQuietBand,
  noteQuietTick: noteQuietTick,
};
