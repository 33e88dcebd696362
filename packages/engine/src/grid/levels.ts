/**
 * Grid bot: the geometric levels of a range, the nearest level to a price, a slot's quantity and the
 * market minimums: pure functions of the config.
 */
import { decMul, roundDownToStep, roundToStep, toDec } from '../money';
import type { MarketRules } from '../strategy';
import { positive } from '../shared/checks';
import type { GridConfig, GridLevels, GridSlot, GridState } from './types';

/** Most levels a grid may have (its open orders are one fewer). */
export const GRID_MAX_LEVELS = 200;
/** Safety bound on the level walk. */
const MAX_LEVEL_WALK = 100_000;

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

/** Prices of a slot's buy (its lower level) and sell (its upper level). */
export function buyPriceOf(s: GridState, slot: GridSlot): number {
  return s.levels[slot.index]!;
}
export function sellPriceOf(s: GridState, slot: GridSlot): number {
  return s.levels[slot.index + 1]!;
}
