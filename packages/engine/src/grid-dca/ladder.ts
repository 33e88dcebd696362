/**
 * Grid Bot DCA: pure price arithmetic on a state: the range, the ladder's level prices (a shared, bounded
 * cache), take-profit and auto-fund trigger prices, order amounts and minimums, a trade's PnL.
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
import { AUTO_FUND_STEP_PCT } from '../strategy';
import { DCA_MAX_OPEN_ORDERS, PNL_DECIMALS } from './config';

/** Buys the ladder may have below the price, with `crossed` buys at or above it still waiting to fill. */
export function ladderSlots(s: DcaState, crossed: number): number {
  return Math.max(0, Math.min(s.config.os - crossed, DCA_MAX_OPEN_ORDERS - s.lots.length - crossed));
}

/** Safety bound on the ladder walk (levels visited in one step). */
export const MAX_LEVEL_WALK = 10_000;
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
export interface Ladder {
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
