/**
 * Grid Bot DCA: pure arithmetic on a state: the range, the ladder's level prices (a shared, bounded
 * cache), take-profit and auto-fund trigger prices, order amounts and minimums, a trade's PnL; and when a
 * tick provably changes nothing: settledAt (whether the ladder is already what rebalance would build) is
 * onTick's fast path, quietBand turns the run of settled levels around the price into the prices and
 * times a runner or a backtest may skip stepping (Strategy.quietBand). One module: the quiet band's
 * walks call the level prices in loops, and a call across modules costs (see strategy.ts).
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
import type { DcaConfig, DcaState } from './types';
import { AUTO_FUND_MAX_STEPS, AUTO_FUND_STEP_PCT, type QuietBand } from '../strategy';
import { DCA_MAX_OPEN_ORDERS, PNL_DECIMALS } from './config';

/** Buys the ladder may have below the price, with `crossed` buys at or above it still waiting to fill. */
export function ladderSlots(s: DcaState, crossed: number): number {
  return Math.max(0, Math.min(s.config.os - crossed, DCA_MAX_OPEN_ORDERS - s.lots.length - crossed));
}

/** Safety bound on the ladder walk (levels visited in one step). */
export const MAX_LEVEL_WALK = 10_000;
/** How many ladder levels the quiet band may span on each side of the current one. */
const BAND_LEVELS = 64;

/** Whether the bot sells first (SHORT: the ladder sells above the price, the take profits buy). */
export function isShort(config: DcaConfig): boolean {
  return config.direction === 'SHORT';
}

/** The side of the orders that close a lot (take profits, closes): sell, SHORT buy. */
export function exitSide(config: DcaConfig): 'buy' | 'sell' {
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

export function ladderOf(state: DcaState): Ladder | null {
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

export function priceAt(ladder: Ladder, k: number): number {
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
export function crossedBuys(s: DcaState, price: number): number {
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

export function lotWaitsForTp(s: DcaState): boolean {
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
export function settledAt(
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

/** Smallest k ≥ 0 whose level price is strictly below `price` (SHORT: strictly above). */
export function firstLevelBelow(ladder: Ladder, price: number): number {
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

/** Auto-fund step k triggers at or below firstPrice × (1 − AUTO_FUND_STEP_PCT × k / 100) (exact); with
 *  `short`, at or above firstPrice × (1 + AUTO_FUND_STEP_PCT × k / 100). */
export function autoFundTrigger(firstPrice: number, k: number, short = false): number {
  const pct = toDec(short ? 100 + AUTO_FUND_STEP_PCT * k : 100 - AUTO_FUND_STEP_PCT * k);
  return decToNumber(decDiv(decMul(toDec(firstPrice), pct), toDec(100)));
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
