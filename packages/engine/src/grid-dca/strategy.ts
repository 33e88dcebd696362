/**
 * Grid Bot DCA (DESIGN.md §6) as a pure, deterministic state machine.
 *
 * Levels L_k = P0 × (1 − S)^k, k = 0, 1, 2, … (P0 = anchor). The first tick anchors the ladder and sends a
 * market buy of A (the level-0 lot). Every lot gets its own take-profit limit sell at fill price × (1 + T).
 * After every event the waiting limit buys of A sit on the N highest levels strictly below the price that
 * hold no open lot. SHORT (derivatives) mirrors every rule: levels P0 × (1 + S)^k, an entry market sell,
 * waiting sells above the price, take-profit buys at fill × (1 − T). See docs/engine.md for every
 * decision the design leaves open.
 */
import {
  decDiv,
  decimalsOf,
  decMul,
  decToNumber,
  decToString,
  DEC_SCALE,
  formatAmount,
  roundDownToStep,
  roundUpToStep,
  toDec,
  type Dec,
} from '../money';
import type { DcaConfig, DcaLot, DcaLotBuy, DcaOrderRef, DcaState, DcaSummary, DcaWaitingBuy } from './types';
import { AUTO_FUND_MAX_STEPS, AUTO_FUND_STEP_PCT, LOT_ACTIONS } from '../strategy';
import type {
  ActionEvent,
  ClosedTrade,
  LogCode,
  LotInfo,
  OrderRole,
  PlaceOrderCommand,
  RejectReason,
  StepResult,
  StopMode,
  QuietBand,
  Strategy,
  StopReason,
  StrategyCommand,
  StrategyEvent,
} from '../strategy';
import { dispatchEvent, eventHandlers } from '../shared/dispatch';

/**
 * Open orders one bot may hold: its waiting buys plus its open lots (each with one take-profit sell).
 * Past it the ladder places fewer buys than # OS, and the event log says why (`order_cap`).
 */
export const DCA_MAX_OPEN_ORDERS = 200;

/** Buys the ladder may have below the price, with `crossed` buys at or above it still waiting to fill. */
function ladderSlots(s: DcaState, crossed: number): number {
  return Math.max(0, Math.min(s.config.os - crossed, DCA_MAX_OPEN_ORDERS - s.lots.length - crossed));
}

/** First wait after a buy was refused for funds or an exchange error; doubles up to the cap. */
export const DCA_FIRST_BACKOFF_MS = 10_000;
export const DCA_MAX_BACKOFF_MS = 300_000;
/** Wait before a refused take profit is placed again. */
export const DCA_TP_RETRY_MS = 60_000;
/** Market sells of a lot at a close_market stop: attempts when the venue cancels or errs. */
export const DCA_MAX_CLOSE_ATTEMPTS = 3;
/** At most one out_of_range log per this interval. */
export const DCA_RANGE_LOG_INTERVAL_MS = 600_000;
/** Decimals kept in a trade's pnlNet (exact decimal rounding, half away from zero). */
export const PNL_DECIMALS = 10;
/** Safety bound on the ladder walk (levels visited in one step). */
const MAX_LEVEL_WALK = 10_000;
/** How many ladder levels the quiet band may span on each side of the current one. */
const BAND_LEVELS = 64;

/** Thrown by createDcaBot for a configuration the strategy cannot run. */
export class DcaConfigError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'DcaConfigError';
  }
}

function positive(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x) && x > 0;
}
function nonNegative(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x) && x >= 0;
}
function optionalPrice(x: unknown): boolean {
  return x === undefined || x === null || positive(x);
}

/** Checks a configuration; throws DcaConfigError with a code and an English message. */
export function validateDcaConfig(config: DcaConfig): void {
  const fail = (code: string, message: string): never => {
    throw new DcaConfigError(code, message);
  };
  if (config.direction !== 'LONG' && config.direction !== 'SHORT')
    fail('invalid_direction', 'direction must be LONG or SHORT');
  if (
    config.derivatives !== undefined &&
    config.derivatives !== null &&
    typeof config.derivatives !== 'boolean'
  )
    fail('invalid_derivatives', 'derivatives must be a boolean');
  if (config.direction === 'SHORT' && config.derivatives !== true)
    fail('short_needs_derivatives', 'SHORT needs a derivatives market (not Spot)');
  if (typeof config.symbol !== 'string' || !config.symbol) fail('invalid_symbol', 'symbol is required');
  if (!positive(config.amount)) fail('invalid_amount', 'amount must be a positive number');
  if (!positive(config.tpPct)) fail('invalid_tp', 'tpPct must be a positive number');
  if (!positive(config.sepPct) || config.sepPct >= 100) fail('invalid_sep', 'sepPct must be in (0, 100)');
  if (!Number.isInteger(config.os) || config.os < 0 || config.os > 1000)
    fail('invalid_os', 'os must be an integer from 0 to 1000');
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
  if (!optionalPrice(config.sl)) fail('invalid_sl', 'sl must be a positive number or null');
  if (!optionalPrice(config.tpPlus)) fail('invalid_tp_plus', 'tpPlus must be a positive number or null');
}

/** A new bot in status 'starting'; the first tick anchors it and sends the entry market buy. */
export function createDcaBot(botId: string, config: DcaConfig): DcaState {
  if (typeof botId !== 'string' || !botId) throw new DcaConfigError('invalid_bot_id', 'botId is required');
  validateDcaConfig(config);
  return {
    version: 1,
    botId,
    config: {
      ...config,
      market: { ...config.market },
      sl: config.sl ?? null,
      tpPlus: config.tpPlus ?? null,
      raEnabled: Boolean(config.raEnabled),
    },
    status: 'starting',
    anchor: null,
    epoch: 0,
    seq: 1,
    lastPrice: null,
    lastTs: null,
    entry: null,
    lots: [],
    waitingBuys: [],
    buyRetryAt: null,
    buyBackoffMs: 0,
    skippedLevels: [],
    inRange: null,
    realizedPnl: '0',
    closedTrades: 0,
    stopMode: null,
    stopReason: null,
    closePhase: false,
    lastRangeLogTs: null,
    ladderK: null,
  };
}

// ---------------------------------------------------------------------------------------------------
// Pure helpers on a state

/** Whether the bot sells first (SHORT: the ladder sells above the price, the take profits buy). */
function isShort(config: DcaConfig): boolean {
  return config.direction === 'SHORT';
}

/** The side of the orders that close a lot (take profits, closes): sell, SHORT buy. */
function exitSide(config: DcaConfig): 'buy' | 'sell' {
  return isShort(config) ? 'buy' : 'sell';
}

/** Lower edge of the range: P0 × (1 − S)^N (SHORT: P0 × (1 − T)). */
export function rangeLow(state: DcaState): number | null {
  if (state.anchor === null) return null;
  if (isShort(state.config)) return state.anchor * (1 - state.config.tpPct / 100);
  return state.anchor * Math.pow(1 - state.config.sepPct / 100, state.config.os);
}

/** Upper edge of the range: P0 × (1 + T) (SHORT: P0 × (1 + S)^N). */
export function rangeHigh(state: DcaState): number | null {
  if (state.anchor === null) return null;
  if (isShort(state.config)) return state.anchor * Math.pow(1 + state.config.sepPct / 100, state.config.os);
  return state.anchor * (1 + state.config.tpPct / 100);
}

/** rangeLow ≤ price ≤ rangeHigh; false before the bot is anchored. */
export function inRange(state: DcaState, price: number): boolean {
  const low = rangeLow(state);
  const high = rangeHigh(state);
  if (low === null || high === null || !Number.isFinite(price)) return false;
  return price >= low && price <= high;
}

/**
 * Level prices of one ladder (anchor, separation, price step), computed once and shared: a pure cache,
 * bounded, so it changes no result. Bots on the same symbol started at the same price share a ladder.
 */
interface Ladder {
  anchor: number;
  factor: number;
  step: number;
  prices: number[];
  /** SHORT: levels go up from the anchor (factor 1 + S) and are rounded up to the step. */
  up: boolean;
}
const ladders = new Map<string, Ladder>();
const MAX_LADDERS = 50_000;
const MAX_CACHED_LEVEL = 2048;

/** The last ladder of each config object (configs are shared between steps): no key string per tick. */
const laddersByConfig = new WeakMap<DcaConfig, Ladder>();

function ladderOf(state: DcaState): Ladder | null {
  if (state.anchor === null) return null;
  const last = laddersByConfig.get(state.config);
  if (last && last.anchor === state.anchor) return last;
  const ladder = sharedLadder(state.anchor, state.config);
  laddersByConfig.set(state.config, ladder);
  return ladder;
}

function sharedLadder(anchor: number, config: DcaConfig): Ladder {
  const { sepPct, market } = config;
  const up = isShort(config);
  const key = up ? `S|${anchor}|${sepPct}|${market.priceStep}` : `${anchor}|${sepPct}|${market.priceStep}`;
  let ladder = ladders.get(key);
  if (!ladder) {
    if (ladders.size >= MAX_LADDERS) ladders.clear();
    const factor = up ? 1 + sepPct / 100 : 1 - sepPct / 100;
    ladder = { anchor, factor, step: market.priceStep, prices: [], up };
    ladders.set(key, ladder);
  }
  return ladder;
}

function priceAt(ladder: Ladder, k: number): number {
  if (k >= MAX_CACHED_LEVEL) return computeLevelPrice(ladder, k);
  const prices = ladder.prices;
  const cached = prices[k];
  if (cached !== undefined) return cached;
  // Filled in order, so index i always holds level i (a jump to a far level fills the ones before it).
  for (let i = prices.length; i <= k; i++) prices.push(computeLevelPrice(ladder, i));
  return prices[k]!;
}

function computeLevelPrice(ladder: Ladder, k: number): number {
  const raw = ladder.anchor * Math.pow(ladder.factor, k);
  // Snap float noise (95.99999999999999 → 96) before flooring to the step (SHORT: ceiling, sells).
  if (ladder.up) return roundUpToStep(Number(raw.toPrecision(12)), ladder.step);
  return roundDownToStep(Number(raw.toPrecision(12)), ladder.step);
}

export function levelPrice(state: DcaState, k: number): number {
  const ladder = ladderOf(state);
  return ladder ? priceAt(ladder, k) : 0;
}

/**
 * Take-profit price of a lot bought at `buyPrice`: buyPrice × (1 + T), exact, rounded UP to the price step
 * (in exact decimals too: the average entry of a lot that funds were added to is off the price grid, and
 * a float rounding would snap a product a hair above a step down to it). SHORT (`buyPrice` is the lot's
 * entry sell): entry × (1 − T), rounded DOWN (a buy).
 */
export function takeProfitPrice(config: DcaConfig, buyPrice: number): number {
  const short = isShort(config);
  const pct = short ? toDec(100) - toDec(config.tpPct) : toDec(100) + toDec(config.tpPct);
  const exact = decDiv(decMul(toDec(buyPrice), pct), toDec(100));
  const step = toDec(config.market.priceStep);
  if (step <= 0n) {
    const x = Number(decToString(exact));
    return short ? roundDownToStep(x, config.market.priceStep) : roundUpToStep(x, config.market.priceStep);
  }
  let n = exact / step;
  if (!short && n * step < exact) n += 1n;
  if (short && n * step > exact) n -= 1n;
  return decToNumber(n * step);
}

/** Base amount of a buy of A quote at `price`, rounded DOWN to the amount step. */
export function buyAmountAt(config: DcaConfig, price: number): number {
  if (!(price > 0)) return 0;
  return roundDownToStep(config.amount / price, config.market.amountStep);
}

/** Why an order of `amount` at `price` cannot be placed (null when it can). */
export function minimumViolation(config: DcaConfig, amount: number, price: number): string | null {
  const m = config.market;
  if (!(amount > 0)) return 'zero_amount';
  if (amount < m.minAmount) return 'min_amount';
  if (decMul(toDec(amount), toDec(price)) < toDec(m.minCost)) return 'min_cost';
  return null;
}

/** pnl_net = qty × (sell − buy) − buyFee − sellFee, exact, rounded to PNL_DECIMALS. */
export function tradePnl(
  qty: number,
  buyPrice: number,
  sellPrice: number,
  buyFee: number,
  sellFee: number,
): number {
  const exact = decMul(toDec(qty), toDec(sellPrice) - toDec(buyPrice)) - toDec(buyFee) - toDec(sellFee);
  return Number(formatAmount(decToString(exact), PNL_DECIMALS));
}

/** Figures for the dashboard row. */
export function summarizeDca(state: DcaState, price: number): DcaSummary {
  let qty: Dec = 0n;
  let cost: Dec = 0n;
  let fees: Dec = 0n;
  for (const lot of state.lots) {
    const q = toDec(lot.qty);
    qty += q;
    cost += decMul(q, toDec(lot.buyPrice));
    fees += toDec(lot.buyFee);
  }
  const validPrice = Number.isFinite(price) && price > 0;
  // SHORT: the lots were sold at their entry and are bought back at the price.
  const value = validPrice ? decMul(qty, toDec(price)) : 0n;
  const unrealized = !validPrice ? 0n : isShort(state.config) ? cost - value - fees : value - cost - fees;
  return {
    openLots: state.lots.length,
    avgEntry: qty > 0n ? decToNumber(decDiv(cost, qty)) : null,
    openQty: decToNumber(qty),
    unrealizedPnl: state.lots.length ? decToNumber(unrealized) : 0,
    realizedPnl: Number(state.realizedPnl),
    inRange: inRange(state, price),
  };
}

// ---------------------------------------------------------------------------------------------------
// The step function

interface Cx {
  s: DcaState;
  cmds: StrategyCommand[];
  /** Places are collected and emitted after cancels so funds are freed first. */
  places: StrategyCommand[];
  ts: number;
  /** Whether the nested lots and orders of `s` are already this step's own copies. */
  owned: boolean;
  /** Whether the waiting buys and skipped levels are (ownBuys; `owned` implies it). */
  ownedBuys: boolean;
}

function cloneRef<T extends DcaOrderRef>(r: T | null): T | null {
  return r ? { ...r } : null;
}

/**
 * Copy-on-write: a step starts from a shallow copy of the state (top-level fields may be assigned);
 * `own(cx)` deep-copies the nested orders and lots before the first change to them, so a tick that
 * changes no order allocates almost nothing and the input state is never mutated.
 */
function own(cx: Cx): void {
  if (cx.owned) return;
  cx.owned = true;
  const s = cx.s;
  s.entry = cloneRef(s.entry);
  s.lots = s.lots.map((l) => ({ ...l, tp: cloneRef(l.tp), close: cloneRef(l.close) }));
  ownBuys(cx);
  if (s.lotBuys) s.lotBuys = s.lotBuys.map((b) => ({ ...b }));
}

/**
 * Copies only the waiting buys and skipped levels (what placing, cancelling or losing a ladder buy
 * changes): a bot holding many lots must not copy them all for each ladder order (own copies the rest
 * later if the step changes more).
 */
function ownBuys(cx: Cx): void {
  if (cx.ownedBuys) return;
  cx.ownedBuys = true;
  const s = cx.s;
  s.waitingBuys = s.waitingBuys.map((w) => ({ ...w }));
  s.skippedLevels = [...s.skippedLevels];
}

function nextId(s: DcaState): string {
  const id = `${s.botId}-${s.seq}`;
  s.seq += 1;
  return id;
}

function log(
  cx: Cx,
  level: 'info' | 'warn',
  code: LogCode,
  params: Record<string, string | number> = {},
): void {
  cx.cmds.push({ type: 'log', level, code, params });
}

function newRef(clientOrderId: string, price: number, amount: number): DcaOrderRef {
  return { clientOrderId, price, amount, filled: 0, avgPrice: 0, fee: 0, cancelling: false };
}

/** Applies one event. Never mutates `state`; the same state and event always give the same result. */
export function stepDca(state: DcaState, event: StrategyEvent): StepResult<DcaState> {
  const s: DcaState = { ...state };
  const ts = 'ts' in event && typeof event.ts === 'number' ? event.ts : (s.lastTs ?? 0);
  const cx: Cx = { s, cmds: [], places: [], ts, owned: false, ownedBuys: false };
  if (s.status !== 'stopped') dispatchEvent(cx, event, HANDLERS);
  else if (event.type === 'action') refuseWhenStopped(cx, event);
  const commands = cx.places.length === 0 ? cx.cmds : cx.cmds.concat(cx.places);
  return { state: s, commands };
}

/** The Grid Bot DCA takes every event. */
const HANDLERS = eventHandlers<Cx, void>({
  tick: (cx, e) => onTick(cx, e.price),
  filled: onFilled,
  partial: onPartial,
  cancelled: onCancelled,
  rejected: onRejected,
  relocate: (cx) => relocate(cx, 'relocated'),
  setSl: (cx, e) => {
    if (e.sl !== null && !positive(e.sl)) return log(cx, 'warn', 'invalid_value', { field: 'sl' });
    cx.s.config = { ...cx.s.config, sl: e.sl };
    log(cx, 'info', 'sl_set', { sl: e.sl ?? '' });
  },
  setTpPlus: (cx, e) => {
    if (e.tpPlus !== null && !positive(e.tpPlus))
      return log(cx, 'warn', 'invalid_value', { field: 'tp_plus' });
    cx.s.config = { ...cx.s.config, tpPlus: e.tpPlus };
    log(cx, 'info', 'tp_plus_set', { tp_plus: e.tpPlus ?? '' });
  },
  setRa: (cx, e) => {
    cx.s.config = { ...cx.s.config, raEnabled: Boolean(e.enabled) };
    log(cx, 'info', 'ra_set', { enabled: cx.s.config.raEnabled ? 1 : 0 });
  },
  stop: (cx, mode) => beginStop(cx, mode, mode === 'close_market' ? 'user_close_market' : 'user_cancel_only'),
  action: onAction,
  liquidated: (cx, e) => onLiquidated(cx, e.price, e.contracts),
  // Every event has its handler above.
  other: () => undefined,
});

/**
 * The venue liquidated the position at `price` (derivatives): the orders are gone (the runner delivered
 * their cancels), every open lot is closed at `price` without fee (one trade each), and the bot stops.
 */
function onLiquidated(cx: Cx, price: number, contracts: number): void {
  if (!positive(price)) return log(cx, 'warn', 'invalid_value', { field: 'price' });
  own(cx);
  const s = cx.s;
  log(cx, 'warn', 'liquidated', { price, contracts: Number.isFinite(contracts) ? contracts : 0 });
  s.entry = null;
  s.waitingBuys = [];
  if (s.lotBuys) s.lotBuys = [];
  for (const lot of [...s.lots]) {
    lot.tp = null;
    lot.close = null;
    const ref = newRef(`${s.botId}-liq`, price, lot.qty);
    sellLot(cx, lot, ref, lot.qty, price, 0);
  }
  s.lots = [];
  s.status = 'stopping';
  s.stopMode = null;
  finishStop(cx, 'liquidated');
}

// --- ticks -----------------------------------------------------------------------------------------

function onTick(cx: Cx, price: number): void {
  const s = cx.s;
  if (!Number.isFinite(price) || price <= 0) return;
  s.lastPrice = price;
  s.lastTs = cx.ts;
  if (s.status === 'stopping') return;

  if (s.status === 'starting') {
    if (checkStopPrices(cx, price)) return;
    if (s.entry === null && backoffOver(s, cx.ts)) placeEntry(cx, price);
    return;
  }

  // running
  if (checkStopPrices(cx, price)) return;
  autoFundTick(cx, price);
  const high = rangeHigh(s);
  if (s.config.raEnabled && (isShort(s.config) ? price < rangeLow(s)! : high !== null && price > high)) {
    // RA: the price left the range on the take-profit side (above it; SHORT: below it).
    relocate(cx, 'ra_relocated');
    return;
  }
  const nowInRange = inRange(s, price);
  if (!nowInRange && s.inRange !== false) {
    const due = s.lastRangeLogTs === null || cx.ts - s.lastRangeLogTs >= DCA_RANGE_LOG_INTERVAL_MS;
    if (due) {
      s.lastRangeLogTs = cx.ts;
      log(cx, 'warn', 'out_of_range', {
        price,
        low: rangeEdgeText(rangeLow(s) ?? 0),
        high: rangeEdgeText(high ?? 0),
        side: high !== null && price > high ? 'above' : 'below',
      });
    }
  } else if (nowInRange && s.inRange === false) {
    log(cx, 'info', 'back_in_range', { price });
  }
  s.inRange = nowInRange;
  // Fast path: no take profit waits, no buy is crossed, and the ladder is already what rebalance would
  // build from the first level below this price: nothing can change (checked without allocating, since
  // this runs on every tick of every bot).
  const ladder = ladderOf(s);
  if (
    ladder &&
    !lotWaitsForTp(s) &&
    settledAt(s, ladder, firstLevelBelow(ladder, price), backoffOver(s, cx.ts), crossedBuys(s, price))
  ) {
    return;
  }
  rebalance(cx);
}

/** Waiting buys (not being cancelled) at a level above `k`: crossed for every price whose first level below is k. */
function buysAbove(s: DcaState, k: number): number {
  let n = 0;
  const buys = s.waitingBuys;
  for (let i = 0; i < buys.length; i++) {
    const w = buys[i]!;
    if (!w.cancelling && w.level < k) n++;
  }
  return n;
}

/** Waiting buys (not being cancelled) at or above `price`: the venue is filling them (SHORT: waiting
 *  sells at or below it). */
function crossedBuys(s: DcaState, price: number): number {
  let n = 0;
  const buys = s.waitingBuys;
  const up = isShort(s.config);
  for (let i = 0; i < buys.length; i++) {
    const w = buys[i]!;
    if (!w.cancelling && (up ? w.price <= price : w.price >= price)) n++;
  }
  return n;
}

// The helpers below run on every tick of every bot: indexed loops, no iterators or closures.

function lotWaitsForTp(s: DcaState): boolean {
  const lots = s.lots;
  for (let i = 0; i < lots.length; i++) {
    const l = lots[i]!;
    if (!l.tp && !l.close && !l.tpBlocked && !l.action) return true;
  }
  return false;
}

/** Level `j` of this epoch is held by a lot or by a buy being cancelled (rebalance's `held`). */
function heldLevel(s: DcaState, j: number): boolean {
  const lots = s.lots;
  for (let i = 0; i < lots.length; i++) {
    const l = lots[i]!;
    if (l.epoch === s.epoch && l.level === j) return true;
  }
  const buys = s.waitingBuys;
  for (let i = 0; i < buys.length; i++) {
    const w = buys[i]!;
    if (w.cancelling && w.epoch === s.epoch && w.level === j) return true;
  }
  return false;
}

/** Levels settledAt's last completed walk visited (settledRun's shortcut stays exact far from the bound). */
let lastWalk = 0;

/**
 * Whether settledAt from level j gives what it gave from j + 1: level j is held (its walk skips it), holds
 * no armed buy (so `crossed` is the same) and has its own price (not one the dedupe would merge with
 * j + 1's), so both walks go on identically from j + 1.
 */
function walksThrough(s: DcaState, ladder: Ladder, j: number, held: Set<number> | null): boolean {
  const p = priceAt(ladder, j);
  const below = priceAt(ladder, j + 1);
  if (!(below > 0) || (ladder.up ? !(p < below) : !(p > below))) return false;
  return (held !== null ? held.has(j) : heldLevel(s, j)) && !armedLevel(s, j);
}

/** Lots beyond which settledRun looks levels up in a set (heldLevels) rather than walking the lots. */
const HELD_SET_MIN_LOTS = 8;

/** Every level of this epoch heldLevel answers true for. */
function heldLevels(s: DcaState): Set<number> {
  const out = new Set<number>();
  for (const l of s.lots) if (l.epoch === s.epoch) out.add(l.level);
  for (const w of s.waitingBuys) if (w.cancelling && w.epoch === s.epoch) out.add(w.level);
  return out;
}

function armedLevel(s: DcaState, j: number): boolean {
  const buys = s.waitingBuys;
  for (let i = 0; i < buys.length; i++) {
    const w = buys[i]!;
    if (!w.cancelling && w.epoch === s.epoch && w.level === j) return true;
  }
  return false;
}

/**
 * Whether rebalance, with `k` the first level below the price and `crossed` buys at or above it,
 * would do nothing: every other waiting buy is of this epoch and among the `os − crossed` free levels
 * from `k` (the same walk as rebalance's `desired`), and each other of those levels is skipped or
 * buying is paused (`canBuy`). Crossed buys are kept by rebalance, so they are not looked at.
 */
function settledAt(
  s: DcaState,
  ladder: Ladder,
  k: number,
  canBuy: boolean,
  crossed = 0,
  held: Set<number> | null = null,
): boolean {
  let armed = 0;
  let collected = 0;
  const up = ladder.up;
  let prev = up ? 0 : Number.POSITIVE_INFINITY;
  const slots = ladderSlots(s, crossed);
  let walked = 0;
  for (let j = k; collected < slots && walked < MAX_LEVEL_WALK; walked++, j++) {
    const p = priceAt(ladder, j);
    if (!(p > 0)) break;
    if (up ? p <= prev : p >= prev) continue;
    prev = p;
    if (held !== null ? held.has(j) : heldLevel(s, j)) continue;
    collected++;
    if (armedLevel(s, j)) armed++;
    else if (canBuy && !s.skippedLevels.includes(j)) return false;
  }
  lastWalk = walked;
  let active = 0;
  const buys = s.waitingBuys;
  for (let i = 0; i < buys.length; i++) if (!buys[i]!.cancelling) active++;
  return armed === active - crossed;
}

/**
 * formatAmount of a range edge, remembered: bots started at the same price share their edges, and a
 * price move takes many of them out of range in the same tick (exact decimal formatting is ~µs each).
 */
const edgeTexts = new Map<number, string>();
function rangeEdgeText(x: number): string {
  let t = edgeTexts.get(x);
  if (t === undefined) {
    if (edgeTexts.size >= 10_000) edgeTexts.clear();
    t = formatAmount(x);
    edgeTexts.set(x, t);
  }
  return t;
}

/** SL (price at or below) and TP+ (price at or above): sell every lot at market and stop. SHORT: SL at
 *  or above, TP+ at or below, and the lots are bought back. */
function checkStopPrices(cx: Cx, price: number): boolean {
  const { sl, tpPlus } = cx.s.config;
  const up = isShort(cx.s.config);
  if (sl !== null && sl !== undefined && (up ? price >= sl : price <= sl)) {
    log(cx, 'warn', 'sl_hit', { price, sl });
    beginStop(cx, 'close_market', 'sl_hit');
    return true;
  }
  if (tpPlus !== null && tpPlus !== undefined && (up ? price <= tpPlus : price >= tpPlus)) {
    log(cx, 'info', 'tp_plus_hit', { price, tp_plus: tpPlus });
    beginStop(cx, 'close_market', 'tp_plus_hit');
    return true;
  }
  return false;
}

function backoffOver(s: DcaState, ts: number): boolean {
  return s.buyRetryAt === null || ts >= s.buyRetryAt;
}

function placeEntry(cx: Cx, price: number): void {
  const s = cx.s;
  const first = s.anchor === null;
  s.anchor = price;
  s.inRange = true;
  if (first) log(cx, 'info', 'started', { anchor: price, amount: s.config.amount });
  const amount = buyAmountAt(s.config, price);
  const violation = minimumViolation(s.config, amount, price);
  if (violation) {
    logBelowMin(cx, 'entry', violation, amount, price, { level: 0 });
    finishStop(cx, 'entry_failed');
    return;
  }
  const ref = newRef(nextId(s), price, amount);
  s.entry = { ...ref, level: 0 };
  if (isShort(s.config)) {
    cx.places.push({
      type: 'place_order',
      clientOrderId: ref.clientOrderId,
      side: 'sell',
      orderType: 'market',
      amount,
      role: 'entry',
      level: 0,
    });
    return;
  }
  cx.places.push({
    type: 'place_order',
    clientOrderId: ref.clientOrderId,
    side: 'buy',
    orderType: 'market',
    amount,
    quoteAmount: s.config.amount,
    role: 'entry',
    level: 0,
  });
}

function logBelowMin(
  cx: Cx,
  role: OrderRole,
  violation: string,
  amount: number,
  price: number,
  extra: Record<string, string | number> = {},
): void {
  const m = cx.s.config.market;
  log(cx, 'warn', 'below_min_cost', {
    role,
    reason: violation,
    amount,
    price,
    cost: formatAmount(decToString(decMul(toDec(amount), toDec(price)))),
    min_cost: m.minCost,
    min_amount: m.minAmount,
    symbol: cx.s.config.symbol,
    ...extra,
  });
}

// --- the ladder invariant ----------------------------------------------------------------------------

/** Smallest k ≥ 0 whose level price is strictly below `price` (SHORT: strictly above). */
function firstLevelBelow(ladder: Ladder, price: number): number {
  let k = Math.max(0, Math.floor(Math.log(price / ladder.anchor) / Math.log(ladder.factor)) + 1);
  if (!Number.isFinite(k)) k = 0;
  k = Math.min(k, MAX_LEVEL_WALK * 100);
  let guard = 0;
  if (ladder.up) {
    while (k > 0 && priceAt(ladder, k - 1) > price) k -= 1;
    while (priceAt(ladder, k) <= price && guard++ < MAX_LEVEL_WALK) k += 1;
    return k;
  }
  while (k > 0 && priceAt(ladder, k - 1) < price) k -= 1;
  while (priceAt(ladder, k) >= price && guard++ < MAX_LEVEL_WALK) k += 1;
  return k;
}

/**
 * Restores the invariant: take profits for every lot; waiting buys on the N highest free levels strictly
 * below the price. Buys at or above the price ("crossed": the venue is filling them) are kept and count
 * toward N. Levels held by a lot or by a buy being cancelled are not free.
 */
function rebalance(cx: Cx): void {
  const s = cx.s;
  if (s.status !== 'running' || s.anchor === null || s.lastPrice === null) return;
  const price = s.lastPrice;

  // 1. Take profits missing (read-only decisions first; copies are made only when something changes).
  const needTp: string[] = [];
  for (const lot of s.lots) {
    // A lot the user is selling or forgetting gets no take profit.
    if (lot.tp || lot.close || lot.tpBlocked || lot.action) continue;
    if (lot.tpRetryAt !== null && cx.ts < lot.tpRetryAt) continue;
    needTp.push(lot.id);
  }

  // 2. Ladder.
  const active = s.waitingBuys.filter((w) => !w.cancelling);
  const up = isShort(s.config);
  // A waiting order the price reached (a buy at or above it; SHORT: a sell at or below it).
  const reached = (p: number) => (up ? p <= price : p >= price);
  let crossed = 0;
  for (const w of active) if (reached(w.price)) crossed += 1;
  const slots = ladderSlots(s, crossed);
  const capped = DCA_MAX_OPEN_ORDERS - s.lots.length < s.config.os;
  const held = new Set<number>();
  for (const lot of s.lots) if (lot.epoch === s.epoch) held.add(lot.level);
  for (const w of s.waitingBuys) if (w.cancelling && w.epoch === s.epoch) held.add(w.level);

  const ladder = ladderOf(s)!;
  const desired: { level: number; price: number }[] = [];
  const k0 = firstLevelBelow(ladder, price);
  s.ladderK = k0;
  let k = k0;
  let prev = up ? 0 : Number.POSITIVE_INFINITY;
  for (let walked = 0; desired.length < slots && walked < MAX_LEVEL_WALK; walked++, k++) {
    const p = priceAt(ladder, k);
    if (!(p > 0)) break;
    // Not below the price, or same rounded price as the level above (SHORT: mirrored).
    if (up ? p <= price || p <= prev : p >= price || p >= prev) continue;
    prev = p;
    if (held.has(k)) continue;
    desired.push({ level: k, price: p });
  }

  const toCancel: string[] = [];
  const armed = new Set<number>();
  for (const w of active) {
    if (reached(w.price)) continue;
    if (w.epoch === s.epoch && desired.some((d) => d.level === w.level)) {
      armed.add(w.level);
      continue;
    }
    toCancel.push(w.clientOrderId);
  }
  const canBuy = backoffOver(s, cx.ts);
  const toPlace = canBuy
    ? desired.filter((d) => !armed.has(d.level) && !s.skippedLevels.includes(d.level))
    : [];
  if (capped !== (s.orderCapped ?? false)) {
    s.orderCapped = capped;
    if (capped) log(cx, 'warn', 'order_cap', { max: DCA_MAX_OPEN_ORDERS, lots: s.lots.length });
  }
  if (needTp.length === 0 && toCancel.length === 0 && toPlace.length === 0) return;

  // Take profits change lots; ladder orders only the waiting buys (ownBuys).
  if (needTp.length > 0) own(cx);
  else ownBuys(cx);
  for (const id of needTp) {
    const lot = s.lots.find((l) => l.id === id);
    if (lot) placeTakeProfit(cx, lot);
  }
  for (const id of toCancel) {
    const w = s.waitingBuys.find((x) => x.clientOrderId === id);
    if (!w) continue;
    w.cancelling = true;
    cx.cmds.push({ type: 'cancel_order', clientOrderId: id });
  }
  for (const d of toPlace) placeLadderBuy(cx, d.level, d.price);
}

function placeLadderBuy(cx: Cx, level: number, price: number): void {
  const s = cx.s;
  const amount = buyAmountAt(s.config, price);
  const violation = minimumViolation(s.config, amount, price);
  if (violation) {
    s.skippedLevels.push(level);
    logBelowMin(cx, 'ladder_buy', violation, amount, price, { level });
    return;
  }
  const ref = newRef(nextId(s), price, amount);
  s.waitingBuys.push({ ...ref, epoch: s.epoch, level });
  cx.places.push({
    type: 'place_order',
    clientOrderId: ref.clientOrderId,
    side: isShort(s.config) ? 'sell' : 'buy',
    orderType: 'limit',
    price,
    amount,
    role: 'ladder_buy',
    level,
  });
}

function placeTakeProfit(cx: Cx, lot: DcaLot): void {
  const s = cx.s;
  const price = takeProfitPrice(s.config, lot.buyPrice);
  const amount = roundDownToStep(lot.qty, s.config.market.amountStep);
  const violation = minimumViolation(s.config, amount, price);
  if (violation) {
    lot.tpBlocked = true;
    logBelowMin(cx, 'take_profit', violation, amount, price, { lot_id: lot.id });
    return;
  }
  lot.tp = newRef(nextId(s), price, amount);
  lot.tpRetryAt = null;
  const cmd: PlaceOrderCommand = {
    type: 'place_order',
    clientOrderId: lot.tp.clientOrderId,
    side: exitSide(s.config),
    orderType: 'limit',
    price,
    amount,
    role: 'take_profit',
    lotId: lot.id,
  };
  if (s.config.derivatives) cmd.reduceOnly = true;
  cx.places.push(cmd);
}

// --- relocation ----------------------------------------------------------------------------------------

function relocate(cx: Cx, code: 'relocated' | 'ra_relocated'): void {
  own(cx);
  const s = cx.s;
  if (s.status !== 'running' || s.lastPrice === null) {
    log(cx, 'warn', 'relocate_skipped', { reason: s.lastPrice === null ? 'no_price' : 'not_running' });
    return;
  }
  for (const w of s.waitingBuys) {
    if (w.cancelling) continue;
    w.cancelling = true;
    cx.cmds.push({ type: 'cancel_order', clientOrderId: w.clientOrderId });
  }
  const previous = s.anchor ?? 0;
  s.anchor = s.lastPrice;
  s.epoch += 1;
  s.ladderK = null;
  s.skippedLevels = [];
  s.inRange = true;
  log(cx, 'info', code, { previous, anchor: s.anchor, price: s.lastPrice });
  rebalance(cx);
}

// --- order events ------------------------------------------------------------------------------------

type Found =
  | { kind: 'entry'; ref: DcaOrderRef }
  | { kind: 'buy'; ref: DcaWaitingBuy; index: number }
  | { kind: 'tp'; ref: DcaOrderRef; lot: DcaLot }
  | { kind: 'close'; ref: DcaOrderRef; lot: DcaLot }
  | { kind: 'lotBuy'; ref: DcaLotBuy; index: number };

function find(s: DcaState, id: string): Found | null {
  if (s.entry && s.entry.clientOrderId === id) return { kind: 'entry', ref: s.entry };
  const index = s.waitingBuys.findIndex((w) => w.clientOrderId === id);
  if (index >= 0) return { kind: 'buy', ref: s.waitingBuys[index]!, index };
  const lotBuys = s.lotBuys;
  if (lotBuys) {
    for (let i = 0; i < lotBuys.length; i++)
      if (lotBuys[i]!.clientOrderId === id) return { kind: 'lotBuy', ref: lotBuys[i]!, index: i };
  }
  for (const lot of s.lots) {
    if (lot.tp && lot.tp.clientOrderId === id) return { kind: 'tp', ref: lot.tp, lot };
    if (lot.close && lot.close.clientOrderId === id) return { kind: 'close', ref: lot.close, lot };
  }
  return null;
}

function validFill(amount: unknown, price: unknown, fee: unknown): boolean {
  return nonNegative(amount) && nonNegative(price) && nonNegative(fee);
}

function onPartial(cx: Cx, id: string, filled: number, price: number, fee: number): void {
  own(cx);
  const f = find(cx.s, id);
  if (!f || !validFill(filled, price, fee)) return;
  if (filled < f.ref.filled) return; // stale update
  f.ref.filled = filled;
  f.ref.avgPrice = price;
  f.ref.fee = fee;
}

function onFilled(cx: Cx, id: string, amount: number, price: number, fee: number): void {
  own(cx);
  const s = cx.s;
  const f = find(s, id);
  if (!f || !validFill(amount, price, fee)) return;
  switch (f.kind) {
    case 'entry':
      s.entry = null;
      if (amount > 0) openLot(cx, id, s.epoch, 0, amount, price, fee);
      if (s.status === 'starting') s.status = 'running';
      break;
    case 'buy':
      s.waitingBuys.splice(f.index, 1);
      if (amount > 0) openLot(cx, id, f.ref.epoch, f.ref.level, amount, price, fee);
      break;
    case 'lotBuy':
      s.lotBuys!.splice(f.index, 1);
      if (amount > 0) fundsFilled(cx, f.ref, amount, price, fee);
      break;
    case 'tp':
      sellLot(cx, f.lot, f.ref, amount, price, fee);
      resetBackoff(s);
      // Sold in part only (the lot grew by added funds meanwhile): the rest goes on.
      settleLotAction(cx, f.lot);
      break;
    case 'close':
      sellLot(cx, f.lot, f.ref, amount, price, fee);
      resetBackoff(s);
      if (f.lot.action === 'sell') f.lot.action = null;
      break;
  }
  afterOrderEvent(cx);
}

function onCancelled(cx: Cx, id: string, filled?: number, price?: number, fee?: number): void {
  own(cx);
  const s = cx.s;
  const f = find(s, id);
  if (!f) return;
  if (filled !== undefined && validFill(filled, price ?? 0, fee ?? 0) && filled >= f.ref.filled) {
    f.ref.filled = filled;
    f.ref.avgPrice = price ?? f.ref.avgPrice;
    f.ref.fee = fee ?? f.ref.fee;
  }
  const { filled: got, avgPrice, fee: paid } = f.ref;
  switch (f.kind) {
    case 'entry':
      s.entry = null;
      if (got > 0) {
        openLot(cx, id, s.epoch, 0, got, avgPrice, paid);
        if (s.status === 'starting') s.status = 'running';
      } else if (s.status === 'starting') {
        // The market buy expired unfilled: try again after a pause.
        log(cx, 'warn', 'order_rejected', { role: 'entry', reason: 'cancelled' });
        bumpBackoff(s, cx.ts);
      }
      break;
    case 'buy':
      s.waitingBuys.splice(f.index, 1);
      if (got > 0) openLot(cx, id, f.ref.epoch, f.ref.level, got, avgPrice, paid);
      break;
    case 'lotBuy':
      s.lotBuys!.splice(f.index, 1);
      if (got > 0) fundsFilled(cx, f.ref, got, avgPrice, paid);
      else fundsBuyFailed(cx, f.ref, 'cancelled');
      break;
    case 'tp':
    case 'close':
      if (got > 0) sellLot(cx, f.lot, f.ref, got, avgPrice, paid);
      if (f.kind === 'tp') {
        f.lot.tp = null;
        settleLotAction(cx, f.lot);
      } else if (f.lot.action === 'sell') {
        // A user's sale that did not complete: the lot is kept and gets its take profit back.
        f.lot.close = null;
        f.lot.action = null;
        if (cx.s.lots.includes(f.lot))
          log(cx, 'warn', 'close_failed', { lot_id: f.lot.id, reason: 'cancelled' });
      } else {
        f.lot.close = null;
        if (cx.s.lots.includes(f.lot))
          log(cx, 'warn', 'close_failed', {
            lot_id: f.lot.id,
            reason: 'cancelled',
            attempt: f.lot.closeAttempts ?? 1,
            max_attempts: DCA_MAX_CLOSE_ATTEMPTS,
          });
      }
      break;
  }
  afterOrderEvent(cx);
}

function onRejected(cx: Cx, id: string, reason: RejectReason, message?: string): void {
  // A refused ladder buy changes only the waiting buys and skipped levels (and top-level fields).
  const kind = find(cx.s, id)?.kind;
  if (kind === undefined) return;
  if (kind === 'buy') ownBuys(cx);
  else own(cx);
  const s = cx.s;
  const f = find(s, id);
  if (!f) return;
  const params: Record<string, string | number> = { reason };
  if (message) params.message = message.slice(0, 200);
  const permanent = reason === 'min_cost' || reason === 'precision';
  switch (f.kind) {
    case 'entry': {
      s.entry = null;
      params.role = 'entry';
      if (permanent) {
        log(cx, 'warn', reason === 'min_cost' ? 'below_min_cost' : 'order_rejected', params);
        if (s.status === 'starting') finishStop(cx, 'entry_failed');
      } else {
        bumpBackoff(s, cx.ts);
        params.retry_in_s = Math.round(s.buyBackoffMs / 1000);
        log(cx, 'warn', reason === 'insufficient_funds' ? 'insufficient_funds' : 'order_rejected', params);
      }
      break;
    }
    case 'buy': {
      s.waitingBuys.splice(f.index, 1);
      params.role = 'ladder_buy';
      params.level = f.ref.level;
      params.price = f.ref.price;
      if (permanent) {
        if (f.ref.epoch === s.epoch && !s.skippedLevels.includes(f.ref.level))
          s.skippedLevels.push(f.ref.level);
        log(cx, 'warn', reason === 'min_cost' ? 'below_min_cost' : 'order_rejected', params);
      } else {
        bumpBackoff(s, cx.ts);
        params.retry_in_s = Math.round((s.buyRetryAt! - cx.ts) / 1000);
        log(cx, 'warn', reason === 'insufficient_funds' ? 'insufficient_funds' : 'order_rejected', params);
      }
      break;
    }
    case 'tp': {
      f.lot.tp = null;
      params.role = 'take_profit';
      params.lot_id = f.lot.id;
      if (permanent) f.lot.tpBlocked = true;
      else {
        f.lot.tpRetryAt = cx.ts + DCA_TP_RETRY_MS;
        params.retry_in_s = DCA_TP_RETRY_MS / 1000;
      }
      log(cx, 'warn', reason === 'insufficient_funds' ? 'insufficient_funds' : 'order_rejected', params);
      break;
    }
    case 'lotBuy':
      s.lotBuys!.splice(f.index, 1);
      fundsBuyFailed(cx, f.ref, reason, message);
      break;
    case 'close':
      f.lot.close = null;
      if (f.lot.action === 'sell') {
        // A user's sale: the lot is kept (its take profit comes back); a stop's attempts are not used.
        f.lot.action = null;
        log(cx, 'warn', 'close_failed', { lot_id: f.lot.id, ...params });
        break;
      }
      // Funds, minimum and precision refusals will not change by retrying: the lot is kept.
      if (reason !== 'exchange_error' && reason !== 'unknown') f.lot.closeAttempts = DCA_MAX_CLOSE_ATTEMPTS;
      log(cx, 'warn', 'close_failed', {
        lot_id: f.lot.id,
        ...params,
        attempt: f.lot.closeAttempts ?? 1,
        max_attempts: DCA_MAX_CLOSE_ATTEMPTS,
      });
      break;
  }
  afterOrderEvent(cx);
}

function afterOrderEvent(cx: Cx): void {
  if (cx.s.status === 'running') rebalance(cx);
  else if (cx.s.status === 'stopping') continueStop(cx);
}

function bumpBackoff(s: DcaState, ts: number): void {
  // Rejections of orders sent before the pause started do not lengthen it again.
  if (s.buyRetryAt !== null && ts < s.buyRetryAt) return;
  s.buyBackoffMs =
    s.buyBackoffMs > 0 ? Math.min(DCA_MAX_BACKOFF_MS, s.buyBackoffMs * 2) : DCA_FIRST_BACKOFF_MS;
  s.buyRetryAt = ts + s.buyBackoffMs;
}

/** Funds were freed (a sell filled): buys may be tried again at once. */
function resetBackoff(s: DcaState): void {
  s.buyBackoffMs = 0;
  s.buyRetryAt = null;
}

function openLot(
  cx: Cx,
  id: string,
  epoch: number,
  level: number,
  qty: number,
  price: number,
  fee: number,
): void {
  const lot: DcaLot = {
    id,
    epoch,
    level,
    qty,
    buyPrice: price,
    buyFee: fee,
    buyTime: cx.ts,
    tp: null,
    tpRetryAt: null,
    tpBlocked: false,
    close: null,
    closeAttempts: 0,
  };
  cx.s.lots.push(lot);
  log(cx, 'info', 'lot_opened', { lot_id: id, level, qty, price, fee });
}

/**
 * `qty` of the lot was sold at `price` paying `fee`: records the trade (the buy fee is shared pro rata
 * when only part of the lot is sold) and removes the lot, or shrinks it on a partial sale. A sale of the
 * whole take-profit amount closes the lot even when rounding left dust below one amount step.
 */
function sellLot(cx: Cx, lot: DcaLot, sell: DcaOrderRef, qty: number, price: number, fee: number): void {
  const s = cx.s;
  // The whole order sold and at most dust (less than one amount step) left: the lot is closed. A lot
  // that grew by added funds after its take profit was placed keeps the rest.
  const whole =
    qty >= lot.qty || (qty >= sell.amount && toDec(lot.qty) - toDec(qty) < toDec(s.config.market.amountStep));
  let buyFee = lot.buyFee;
  if (!whole) {
    const share = decDiv(decMul(toDec(lot.buyFee), toDec(qty)), toDec(lot.qty));
    buyFee = Number(formatAmount(decToString(share), 12));
  }
  // SHORT: the lot's entry was the sale (its `buyPrice` / `buyFee` / `buyTime` hold the entry), this
  // fill is the buy back.
  const short = isShort(s.config);
  const pnlNet = short
    ? tradePnl(qty, price, lot.buyPrice, fee, buyFee)
    : tradePnl(qty, lot.buyPrice, price, buyFee, fee);
  const trade: ClosedTrade = short
    ? {
        lotId: lot.id,
        qty,
        buyPrice: price,
        sellPrice: lot.buyPrice,
        buyTime: cx.ts,
        sellTime: lot.buyTime,
        buyFee: fee,
        sellFee: buyFee,
        pnlNet,
      }
    : {
        lotId: lot.id,
        qty,
        buyPrice: lot.buyPrice,
        sellPrice: price,
        buyTime: lot.buyTime,
        sellTime: cx.ts,
        buyFee,
        sellFee: fee,
        pnlNet,
      };
  // Each partial sale is a history row of its own (the whole sale's key is the lot id).
  if (!whole) trade.key = `${lot.id}#${sell.clientOrderId}`;
  cx.cmds.push({ type: 'record_trade', trade });
  s.realizedPnl = decToString(toDec(s.realizedPnl) + toDec(pnlNet));
  s.closedTrades += 1;
  log(cx, 'info', 'lot_closed', {
    lot_id: lot.id,
    qty,
    buy_price: trade.buyPrice,
    sell_price: trade.sellPrice,
    pnl_net: pnlNet,
  });
  if (whole) {
    s.lots = s.lots.filter((l) => l !== lot);
  } else {
    lot.qty = Number(decToString(toDec(lot.qty) - toDec(qty)));
    lot.buyFee = Number(decToString(toDec(lot.buyFee) - toDec(buyFee)));
    if (lot.tp) lot.tp = null;
    if (lot.close) lot.close = null;
  }
}

// --- pending orders: lot actions and auto-fund ------------------------------------------------------

/** The short name of each lot action in `lot_action_refused` logs (a Map: action names are outside input). */
const LOT_ACTION_LABELS = new Map<string, string>([
  [LOT_ACTIONS.addFunds, 'add_funds'],
  [LOT_ACTIONS.sell, 'sell'],
  [LOT_ACTIONS.forget, 'forget'],
  [LOT_ACTIONS.autoFund, 'auto_fund'],
]);

/** Decimals kept in the average entry price of a lot that funds were added to. */
function averageDecimals(config: DcaConfig): number {
  return Math.min(DEC_SCALE, Math.max(10, decimalsOf(config.market.priceStep) + 6));
}

/** Auto-fund step k triggers at or below firstPrice × (1 − AUTO_FUND_STEP_PCT × k / 100) (exact); with
 *  `short`, at or above firstPrice × (1 + AUTO_FUND_STEP_PCT × k / 100). */
export function autoFundTrigger(firstPrice: number, k: number, short = false): number {
  const pct = toDec(short ? 100 + AUTO_FUND_STEP_PCT * k : 100 - AUTO_FUND_STEP_PCT * k);
  return decToNumber(decDiv(decMul(toDec(firstPrice), pct), toDec(100)));
}

function hasLotBuy(s: DcaState, lotId: string): boolean {
  const buys = s.lotBuys;
  if (!buys) return false;
  for (let i = 0; i < buys.length; i++) if (buys[i]!.lotId === lotId) return true;
  return false;
}

/** The action in flight on a lot (LotInfo.busy); a stop's market sell counts as 'selling'. */
function lotBusy(s: DcaState, lot: DcaLot): LotInfo['busy'] {
  if (lot.action === 'sell') return 'selling';
  if (lot.action === 'forget') return 'deleting';
  if (hasLotBuy(s, lot.id)) return 'adding';
  if (lot.close) return 'selling';
  return null;
}

/** The open lots as the pending-orders views show them (`Strategy.lots`). */
export function dcaLots(state: DcaState): LotInfo[] {
  return state.lots.map((lot) => ({
    id: lot.id,
    openedAt: lot.buyTime,
    qty: lot.qty,
    entryPrice: lot.buyPrice,
    cost: Number(formatAmount(decToString(decMul(toDec(lot.qty), toDec(lot.buyPrice))), 10)),
    firstPrice: lot.firstPrice ?? lot.buyPrice,
    tpPrice: lot.tp && !lot.tp.cancelling ? lot.tp.price : takeProfitPrice(state.config, lot.buyPrice),
    autoFund: lot.autoFund ?? false,
    autoFundSteps: lot.autoFundSteps ?? 0,
    busy: lotBusy(state, lot),
  }));
}

function refuse(cx: Cx, name: string, lotId: string, reason: string): void {
  log(cx, 'warn', 'lot_action_refused', {
    lot_id: lotId,
    action: LOT_ACTION_LABELS.get(name) ?? name,
    reason,
  });
}

function lotIdParam(params: Record<string, unknown>): string | null {
  const v = params.lotId;
  return typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : null;
}

/** A stopped bot ignores every event, but a lot action sent to it is answered (refused). */
function refuseWhenStopped(cx: Cx, e: ActionEvent): void {
  const params = e.params !== null && typeof e.params === 'object' ? e.params : {};
  const lotId = lotIdParam(params);
  if (LOT_ACTION_LABELS.has(e.name) && lotId !== null) refuse(cx, e.name, lotId, 'not_running');
}

/**
 * `{type:'action'}`: the LOT_ACTIONS (add funds, sell, forget, auto-fund on one open lot). Params are
 * outside input: a wrong one logs `invalid_value`; a lot that cannot take the action is left as it was
 * (`lot_action_refused`). Unknown names log `invalid_value` {field: 'action'}.
 */
function onAction(cx: Cx, e: ActionEvent): void {
  const s = cx.s;
  const params = e.params !== null && typeof e.params === 'object' ? e.params : {};
  if (!LOT_ACTION_LABELS.has(e.name)) return log(cx, 'warn', 'invalid_value', { field: 'action' });
  const lotId = lotIdParam(params);
  if (lotId === null) return log(cx, 'warn', 'invalid_value', { field: 'lot_id' });
  const amount = params.amount;
  if (e.name === LOT_ACTIONS.addFunds && !positive(amount))
    return log(cx, 'warn', 'invalid_value', { field: 'amount' });
  const enabled = params.enabled;
  if (e.name === LOT_ACTIONS.autoFund && typeof enabled !== 'boolean')
    return log(cx, 'warn', 'invalid_value', { field: 'enabled' });

  if (s.status !== 'running') return refuse(cx, e.name, lotId, 'not_running');
  const current = s.lots.find((l) => l.id === lotId);
  if (!current) return refuse(cx, e.name, lotId, 'unknown_lot');
  if (e.name === LOT_ACTIONS.autoFund) {
    own(cx);
    const lot = s.lots.find((l) => l.id === lotId)!;
    lot.autoFund = enabled === true;
    log(cx, 'info', 'auto_fund_set', { lot_id: lotId, enabled: lot.autoFund ? 1 : 0 });
    return;
  }
  const busy = lotBusy(s, current);
  if (busy !== null) return refuse(cx, e.name, lotId, busy);
  if (s.lastPrice === null) return refuse(cx, e.name, lotId, 'no_price');

  own(cx);
  const lot = s.lots.find((l) => l.id === lotId)!;
  switch (e.name) {
    case LOT_ACTIONS.addFunds:
      placeFundsBuy(cx, lot, amount as number, null);
      break;
    case LOT_ACTIONS.sell:
      lot.action = 'sell';
      if (lot.tp) cancelTakeProfit(cx, lot);
      else placeUserSale(cx, lot);
      break;
    case LOT_ACTIONS.forget:
      lot.action = 'forget';
      if (lot.tp) cancelTakeProfit(cx, lot);
      else forgetLot(cx, lot);
      break;
  }
  afterOrderEvent(cx);
}

function cancelTakeProfit(cx: Cx, lot: DcaLot): void {
  if (!lot.tp || lot.tp.cancelling) return;
  lot.tp.cancelling = true;
  cx.cmds.push({ type: 'cancel_order', clientOrderId: lot.tp.clientOrderId });
}

/**
 * A market buy of `quote` (at the last price) to merge into `lot`; `step` is the auto-fund step, null for
 * the user's add funds. Below the market minimum nothing is sent (logged). Needs `own(cx)`.
 */
function placeFundsBuy(cx: Cx, lot: DcaLot, quote: number, step: number | null): void {
  const s = cx.s;
  const price = s.lastPrice!;
  const amount = roundDownToStep(quote / price, s.config.market.amountStep);
  const violation = minimumViolation(s.config, amount, price);
  if (violation) {
    if (step === null) logBelowMin(cx, 'add_funds', violation, amount, price, { lot_id: lot.id });
    else log(cx, 'warn', 'auto_fund_skipped', { lot_id: lot.id, step, reason: violation });
    return;
  }
  const short = isShort(s.config);
  if (step !== null) {
    const first = lot.firstPrice ?? lot.buyPrice;
    // Negative below the first entry (−10 at the first step), as the classic DCA logs it (SHORT: above).
    const move = short ? toDec(first) - toDec(price) : toDec(price) - toDec(first);
    const drawdown = decDiv(decMul(move, toDec(100)), toDec(first));
    log(cx, 'info', 'auto_fund', {
      lot_id: lot.id,
      step,
      drawdown_pct: Number(formatAmount(decToString(drawdown), 2)),
      amount: quote,
    });
  }
  const buy: DcaLotBuy = {
    ...newRef(nextId(s), price, amount),
    lotId: lot.id,
    epoch: lot.epoch,
    level: lot.level,
    auto: step !== null,
  };
  if (step !== null) buy.step = step;
  (s.lotBuys ??= []).push(buy);
  if (short) {
    // SHORT: the funds are a market sell merged into the lot.
    cx.places.push({
      type: 'place_order',
      clientOrderId: buy.clientOrderId,
      side: 'sell',
      orderType: 'market',
      amount,
      role: 'add_funds',
      lotId: lot.id,
    });
    return;
  }
  cx.places.push({
    type: 'place_order',
    clientOrderId: buy.clientOrderId,
    side: 'buy',
    orderType: 'market',
    amount,
    quoteAmount: quote,
    role: 'add_funds',
    lotId: lot.id,
  });
}

/**
 * A funds buy filled `qty` at `price` paying `fee`: merged into its lot (exact weighted average entry,
 * fees added) whose take profit is then moved (cancelled; the normal "lot without TP" path places the
 * new one at the new average × (1 + T) once the cancel is answered). When the lot is gone (it closed at
 * its take profit meanwhile) the fill opens a lot of its own, so nothing is lost.
 */
function fundsFilled(cx: Cx, buy: DcaLotBuy, qty: number, price: number, fee: number): void {
  const s = cx.s;
  const lot = s.lots.find((l) => l.id === buy.lotId);
  if (!lot) {
    openLot(cx, buy.clientOrderId, buy.epoch, buy.level, qty, price, fee);
    return;
  }
  const q0 = toDec(lot.qty);
  const q1 = toDec(qty);
  const total = q0 + q1;
  const cost = decMul(q0, toDec(lot.buyPrice)) + decMul(q1, toDec(price));
  if (lot.firstPrice === undefined) lot.firstPrice = lot.buyPrice;
  lot.qty = decToNumber(total);
  lot.buyPrice = Number(formatAmount(decToString(decDiv(cost, total)), averageDecimals(s.config)));
  lot.buyFee = decToNumber(toDec(lot.buyFee) + toDec(fee));
  lot.tpBlocked = false;
  lot.tpRetryAt = null;
  log(cx, 'info', 'lot_funds_added', {
    lot_id: lot.id,
    amount: Number(formatAmount(decToString(decMul(q1, toDec(price))))),
    qty,
    price,
    fee,
    entry: lot.buyPrice,
  });
  cancelTakeProfit(cx, lot);
}

/** A funds buy ended without a fill (refused, or cancelled by the venue): logged, nothing else changes. */
function fundsBuyFailed(cx: Cx, buy: DcaLotBuy, reason: string, message?: string): void {
  if (buy.auto && (reason === 'insufficient_funds' || reason === 'cancelled')) {
    log(cx, 'warn', 'auto_fund_skipped', { lot_id: buy.lotId, step: buy.step ?? 0, reason });
    return;
  }
  const params: Record<string, string | number> = { role: 'add_funds', reason, lot_id: buy.lotId };
  if (message) params.message = message.slice(0, 200);
  if (buy.step !== undefined) params.step = buy.step;
  log(cx, 'warn', reason === 'insufficient_funds' ? 'insufficient_funds' : 'order_rejected', params);
}

/** Once a lot being sold or forgotten has no take profit left on the venue: do it. */
function settleLotAction(cx: Cx, lot: DcaLot): void {
  if (lot.tp || !lot.action || !cx.s.lots.includes(lot)) return;
  if (lot.action === 'forget') forgetLot(cx, lot);
  else if (!lot.close) placeUserSale(cx, lot);
}

/** Stops tracking the lot: no trade, the assets stay on the account and its ladder level is free. */
function forgetLot(cx: Cx, lot: DcaLot): void {
  cx.s.lots = cx.s.lots.filter((l) => l !== lot);
  log(cx, 'info', 'lot_forgotten', { lot_id: lot.id, qty: lot.qty, price: lot.buyPrice });
}

/** The user's market sale of a lot (role close); below the minimum it is logged and the lot kept. */
function placeUserSale(cx: Cx, lot: DcaLot): void {
  const s = cx.s;
  const price = s.lastPrice ?? lot.buyPrice;
  const amount = roundDownToStep(lot.qty, s.config.market.amountStep);
  const violation = minimumViolation(s.config, amount, price);
  if (violation) {
    lot.action = null;
    logBelowMin(cx, 'close', violation, amount, price, { lot_id: lot.id });
    return;
  }
  lot.close = newRef(nextId(s), price, amount);
  cx.places.push(closeCommand(s.config, lot.close.clientOrderId, amount, lot.id));
}

/** The market order closing a lot: a sell (SHORT: a buy), reduceOnly on derivatives. */
function closeCommand(
  config: DcaConfig,
  clientOrderId: string,
  amount: number,
  lotId: string,
): PlaceOrderCommand {
  const cmd: PlaceOrderCommand = {
    type: 'place_order',
    clientOrderId,
    side: exitSide(config),
    orderType: 'market',
    amount,
    role: 'close',
    lotId,
  };
  if (config.derivatives) cmd.reduceOnly = true;
  return cmd;
}

/**
 * Auto-fund on a tick of a running bot: each lot with it on, steps left and no action in flight takes
 * its next step k when the price is at or below firstPrice × (1 − AUTO_FUND_STEP_PCT × k / 100), one
 * step per lot per tick. Runs on every tick: without a lot with auto-fund on it only reads a flag per lot.
 */
function autoFundTick(cx: Cx, price: number): void {
  const s = cx.s;
  for (let i = 0; i < s.lots.length; i++) {
    const l = s.lots[i]!;
    if (!l.autoFund) continue;
    const k = (l.autoFundSteps ?? 0) + 1;
    if (k > AUTO_FUND_MAX_STEPS || l.action || l.close || hasLotBuy(s, l.id)) continue;
    const short = isShort(s.config);
    const trigger = autoFundTrigger(l.firstPrice ?? l.buyPrice, k, short);
    if (short ? price < trigger : price > trigger) continue;
    own(cx);
    const lot = s.lots[i]!;
    lot.autoFundSteps = k;
    placeFundsBuy(cx, lot, s.config.amount, k);
  }
}

// --- stopping ----------------------------------------------------------------------------------------

function beginStop(cx: Cx, mode: StopMode, reason: StopReason): void {
  own(cx);
  const s = cx.s;
  if (s.status === 'stopped' || s.status === 'stopping') return;
  s.status = 'stopping';
  s.stopMode = mode;
  s.stopReason = reason;
  log(cx, 'info', 'stopping', { mode, reason });
  for (const w of s.waitingBuys) {
    if (w.cancelling) continue;
    w.cancelling = true;
    cx.cmds.push({ type: 'cancel_order', clientOrderId: w.clientOrderId });
  }
  for (const lot of s.lots) {
    if (lot.tp && !lot.tp.cancelling) {
      lot.tp.cancelling = true;
      cx.cmds.push({ type: 'cancel_order', clientOrderId: lot.tp.clientOrderId });
    }
  }
  continueStop(cx);
}

/** Once every order is settled: close_market sells the lots at market (once), then the bot stops. */
function continueStop(cx: Cx): void {
  own(cx);
  const s = cx.s;
  if (s.status !== 'stopping') return;
  // A lot bought while stopping has no TP; a TP placed before the stop may still be open.
  for (const lot of s.lots) {
    if (lot.tp && !lot.tp.cancelling) {
      lot.tp.cancelling = true;
      cx.cmds.push({ type: 'cancel_order', clientOrderId: lot.tp.clientOrderId });
    }
  }
  const outstanding =
    s.entry !== null ||
    s.waitingBuys.length > 0 ||
    (s.lotBuys?.length ?? 0) > 0 ||
    s.lots.some((l) => l.tp !== null || l.close !== null);
  if (outstanding) return;
  if (s.stopMode === 'close_market') {
    s.closePhase = true;
    const price = s.lastPrice ?? 0;
    let placed = 0;
    for (const lot of s.lots) {
      if ((lot.closeAttempts ?? 0) >= DCA_MAX_CLOSE_ATTEMPTS) continue;
      const amount = roundDownToStep(lot.qty, s.config.market.amountStep);
      const violation = minimumViolation(s.config, amount, price);
      if (violation) {
        lot.closeAttempts = DCA_MAX_CLOSE_ATTEMPTS;
        logBelowMin(cx, 'close', violation, amount, price, { lot_id: lot.id });
        continue;
      }
      lot.closeAttempts = (lot.closeAttempts ?? 0) + 1;
      lot.close = newRef(nextId(s), price, amount);
      cx.places.push(closeCommand(s.config, lot.close.clientOrderId, amount, lot.id));
      placed += 1;
    }
    if (placed > 0) return;
  }
  finishStop(cx, s.stopReason ?? 'user_cancel_only');
}

function finishStop(cx: Cx, reason: StopReason): void {
  const s = cx.s;
  s.status = 'stopped';
  s.stopReason = reason;
  s.entry = null;
  cx.cmds.push({ type: 'stopped', reason });
}

/** The Grid Bot DCA as a `Strategy` (bots.kind 'dca'). */
export const gridBotDca: Strategy<DcaState, DcaConfig> = {
  kind: 'dca',
  create: createDcaBot,
  step: stepDca,
  samePersisted: samePersistedDca,
  realizedPnl: (s) => s.realizedPnl,
  lots: dcaLots,
  quietBand: (s) => quietBand(s),
  noteQuietTick(s, price, ts) {
    if (s.status === 'stopped') return;
    s.lastPrice = price;
    s.lastTs = ts;
  },
};

/**
 * Whether `a` and `b` differ only in what a tick may change without being written (the last price,
 * the ladder position). Compared field by field: it runs on ticks, so it allocates nothing.
 */
export function samePersistedDca(a: DcaState, b: DcaState): boolean {
  return (
    a.status === b.status &&
    a.anchor === b.anchor &&
    a.epoch === b.epoch &&
    a.seq === b.seq &&
    a.inRange === b.inRange &&
    a.buyRetryAt === b.buyRetryAt &&
    a.buyBackoffMs === b.buyBackoffMs &&
    a.lots.length === b.lots.length &&
    a.waitingBuys.length === b.waitingBuys.length &&
    a.skippedLevels.length === b.skippedLevels.length &&
    a.realizedPnl === b.realizedPnl &&
    a.closePhase === b.closePhase &&
    a.lastRangeLogTs === b.lastRangeLogTs &&
    (a.entry?.clientOrderId ?? '') === (b.entry?.clientOrderId ?? '') &&
    (a.lotBuys?.length ?? 0) === (b.lotBuys?.length ?? 0) &&
    sameAutoFund(a.lots, b.lots)
  );
}

/** Lots of equal count whose auto-fund flags and steps (what a tick may change in a lot) are the same. */
function sameAutoFund(a: DcaLot[], b: DcaLot[]): boolean {
  if (a === b) return true;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if ((x.autoFundSteps ?? 0) !== (y.autoFundSteps ?? 0) || (x.autoFund ?? false) !== (y.autoFund ?? false))
      return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------
// Quiet ticks (for runners with many bots)

/**
 * Prices (strictly between `low` and `high`) and times (strictly before `until`) at which a tick
 * provably does nothing but record itself: `stepDca(state, tick)` returns no command and a state equal
 * to `quietTick(state, price, ts)` (only `lastPrice` and `lastTs` change). Bounds are exclusive and may
 * be conservative: a tick outside the band is simply stepped. The band does not change with a quiet
 * tick (it depends on `lastPrice` only through which side of the range an out-of-range bot is on).
 */
export type DcaQuietBand = QuietBand;

/**
 * The run of settled ladder levels holding the running bot's last price (null: no quiet band), shared
 * by both directions.
 *
 * onTick's fast path holds for a price p when the ladder is settled at k = firstLevelBelow(p), i.e.
 * level(k) < p ≤ level(k − 1), with the buys at or above p crossed (kept while the venue fills them).
 * Every waiting buy is of this epoch (else no band), so a buy at level j is crossed exactly for the k
 * above j: the count depends on k alone. The band is the run of settled levels holding the current
 * one, cut to the block of BAND_LEVELS levels holding it (blocks start at multiples of BAND_LEVELS):
 * it depends only on the run and the block, not on where in them the price is, so a quiet tick leaves
 * it unchanged, and the walk stays bounded however long the run (a price far below a held ladder, as
 * in a long fall, still gets a band).
 */
function settledRun(
  s: DcaState,
): { ladder: NonNullable<ReturnType<typeof ladderOf>>; kLo: number; kHi: number; lastPrice: number } | null {
  if (s.anchor === null || s.inRange === null || s.lastPrice === null) return null;
  if (lotWaitsForTp(s)) return null;
  const ladder = ladderOf(s);
  if (!ladder) return null;
  const buys = s.waitingBuys;
  for (let i = 0; i < buys.length; i++) {
    const w = buys[i]!;
    if (!w.cancelling && (w.epoch !== s.epoch || w.price !== priceAt(ladder, w.level))) return null;
  }
  const canBuy = s.buyRetryAt === null;
  // The band walks up to 2 × BAND_LEVELS positions, each over the levels it holds: with many lots a set
  // of the held levels (heldLevel's answer) keeps that linear in the lots instead of quadratic.
  const held = s.lots.length > HELD_SET_MIN_LOTS ? heldLevels(s) : null;
  const settled = (k: number) => settledAt(s, ladder, k, canBuy, buysAbove(s, k), held);
  const k0 = firstLevelBelow(ladder, s.lastPrice);
  if (!settled(k0)) return null;
  const blockTop = k0 - (k0 % BAND_LEVELS);
  const blockBottom = blockTop + BAND_LEVELS - 1;
  // Upward through held levels the walk is the same (walksThrough): no need to walk it again, as long as
  // the longer walk stays clear of MAX_LEVEL_WALK.
  const walk0 = lastWalk;
  let walk = walk0;
  let kLo = k0;
  while (kLo > blockTop) {
    if (walk + 2 < MAX_LEVEL_WALK && walksThrough(s, ladder, kLo - 1, held)) walk++;
    else if (settled(kLo - 1)) walk = lastWalk;
    else break;
    kLo--;
  }
  let kHi = k0;
  walk = walk0;
  let active = 0;
  for (let i = 0; i < buys.length; i++) if (!buys[i]!.cancelling) active++;
  const full = ladderSlots(s, active) === 0;
  while (kHi < blockBottom) {
    // Below every active buy with no slot left, settledAt walks nothing and holds for every level.
    if (full && buysAbove(s, kHi + 1) === active) {
      kHi = blockBottom;
      break;
    }
    // Downward the same: from a held level the walk goes on as from the one below it.
    if (walk + 2 < MAX_LEVEL_WALK && walksThrough(s, ladder, kHi, held)) walk++;
    else if (settled(kHi + 1)) walk = lastWalk;
    else break;
    kHi++;
  }
  return { ladder, kLo, kHi, lastPrice: s.lastPrice };
}

/** The quiet band of a state, or null when every tick must be stepped. */
export function quietBand(state: DcaState): DcaQuietBand | null {
  const s = state;
  if (s.status === 'stopped' || s.status === 'stopping') {
    return { low: 0, high: Number.POSITIVE_INFINITY, until: Number.POSITIVE_INFINITY };
  }
  if (isShort(s.config)) return quietBandShort(s);
  let low = 0;
  let high = Number.POSITIVE_INFINITY;
  let until = Number.POSITIVE_INFINITY;
  const { sl, tpPlus } = s.config;
  if (sl !== null && sl !== undefined) low = Math.max(low, sl);
  if (tpPlus !== null && tpPlus !== undefined) high = Math.min(high, tpPlus);
  if (s.status === 'starting') {
    if (s.entry === null) {
      if (s.buyRetryAt === null) return null;
      until = s.buyRetryAt;
    }
    return low < high ? { low, high, until } : null;
  }
  // running
  const run = settledRun(s);
  if (!run) return null;
  const { ladder, kLo, kHi, lastPrice } = run;
  if (s.buyRetryAt !== null) until = s.buyRetryAt;
  low = Math.max(low, priceAt(ladder, kHi));
  if (kLo > 0) high = Math.min(high, priceAt(ladder, kLo - 1));
  const rLow = rangeLow(s)!;
  const rHigh = rangeHigh(s)!;
  if (s.inRange) {
    low = Math.max(low, rLow);
    high = Math.min(high, rHigh);
  } else if (lastPrice > rHigh) {
    // Above the range: RA would relocate.
    if (s.config.raEnabled) return null;
    low = Math.max(low, rHigh);
  } else if (lastPrice < rLow) {
    high = Math.min(high, rLow);
  } else {
    return null;
  }
  // Auto-fund: a tick at or below a lot's next trigger takes a step (counted even while the lot is busy,
  // which only makes the band narrower).
  const lots = s.lots;
  for (let i = 0; i < lots.length; i++) {
    const l = lots[i]!;
    if (!l.autoFund) continue;
    const k = (l.autoFundSteps ?? 0) + 1;
    if (k <= AUTO_FUND_MAX_STEPS) low = Math.max(low, autoFundTrigger(l.firstPrice ?? l.buyPrice, k));
  }
  return low < high ? { low, high, until } : null;
}

/**
 * quietBand of a SHORT bot (running or starting), the mirror of the LONG one: the ladder goes up, a
 * price p is settled at k = firstLevelBelow(p) when level(k − 1) ≤ p < level(k); SL and the auto-fund
 * triggers bound the band from above, TP+ from below; RA relocates below the range.
 */
function quietBandShort(s: DcaState): DcaQuietBand | null {
  let low = 0;
  let high = Number.POSITIVE_INFINITY;
  let until = Number.POSITIVE_INFINITY;
  const { sl, tpPlus } = s.config;
  if (sl !== null && sl !== undefined) high = Math.min(high, sl);
  if (tpPlus !== null && tpPlus !== undefined) low = Math.max(low, tpPlus);
  if (s.status === 'starting') {
    if (s.entry === null) {
      if (s.buyRetryAt === null) return null;
      until = s.buyRetryAt;
    }
    return low < high ? { low, high, until } : null;
  }
  const run = settledRun(s);
  if (!run) return null;
  const { ladder, kLo, kHi, lastPrice } = run;
  if (s.buyRetryAt !== null) until = s.buyRetryAt;
  high = Math.min(high, priceAt(ladder, kHi));
  if (kLo > 0) low = Math.max(low, priceAt(ladder, kLo - 1));
  const rLow = rangeLow(s)!;
  const rHigh = rangeHigh(s)!;
  if (s.inRange) {
    low = Math.max(low, rLow);
    high = Math.min(high, rHigh);
  } else if (lastPrice < rLow) {
    // Below the range: RA would relocate.
    if (s.config.raEnabled) return null;
    high = Math.min(high, rLow);
  } else if (lastPrice > rHigh) {
    low = Math.max(low, rHigh);
  } else {
    return null;
  }
  const lots = s.lots;
  for (let i = 0; i < lots.length; i++) {
    const l = lots[i]!;
    if (!l.autoFund) continue;
    const k = (l.autoFundSteps ?? 0) + 1;
    if (k <= AUTO_FUND_MAX_STEPS) high = Math.min(high, autoFundTrigger(l.firstPrice ?? l.buyPrice, k, true));
  }
  return low < high ? { low, high, until } : null;
}

/** Whether a tick at `price`, `ts` is inside the band (so `quietTick` is what `stepDca` would do). */
export function isQuietTick(band: DcaQuietBand | null, price: number, ts: number): boolean {
  return band !== null && price > band.low && price < band.high && ts < band.until;
}

/** The state after a quiet tick: what `stepDca` returns for a tick inside the quiet band. */
export function quietTick(state: DcaState, price: number, ts: number): DcaState {
  if (state.status === 'stopped') return { ...state };
  return { ...state, lastPrice: price, lastTs: ts };
}
