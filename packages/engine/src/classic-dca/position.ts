/**
 * Classic DCA: pure reading of a state: safety-order level prices, minimums, the position's average and
 * take profit (cached per position object), the trend check, and the orders and lot it holds.
 */
import {
  type Dec,
  DEC_SCALE,
  decDiv,
  decimalsOf,
  decMul,
  decToNumber,
  roundDownToStep,
  roundUpToStep,
  toDec,
} from '../money';
import { AUTO_FUND_STEP_PCT, type LotInfo, type MarketRules, type OrderRole } from '../strategy';
import type { ClassicDcaConfig, ClassicDcaState, ClassicOrderRef, ClassicPosition } from './types';

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
export function positionCost(p: ClassicPosition): Dec {
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
export function tradableQty(s: ClassicDcaState): number {
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
export function unfilled(o: { amount: number; filled: number }): number {
  if (o.filled === 0 && decimalsOf(o.amount) <= DEC_SCALE) return o.amount;
  return decToNumber(toDec(o.amount) - toDec(o.filled));
}

/** Trend filter: 'ok' when the last closed candle closes above the SMA of the last maPeriod closes. */
export function trendCheck(s: ClassicDcaState): {
  state: 'ok' | 'warming' | 'wait';
  close: number;
  ma: number;
} {
  const need = s.config.maPeriod;
  const n = s.candles.length;
  if (n < need) return { state: 'warming', close: 0, ma: 0 };
  let sum = 0;
  for (let i = n - need; i < n; i++) sum += s.candles[i]!.c;
  const ma = sum / need;
  const close = s.candles[n - 1]!.c;
  return { state: close > ma ? 'ok' : 'wait', close, ma };
}

export function hasMarketBuy(s: ClassicDcaState): boolean {
  const o = s.orders;
  for (let i = 0; i < o.length; i++) if (o[i]!.market && o[i]!.side === 'buy') return true;
  return false;
}

export function findOrder(s: ClassicDcaState, role: OrderRole): ClassicOrderRef | null {
  const o = s.orders;
  for (let i = 0; i < o.length; i++) if (o[i]!.role === role) return o[i]!;
  return null;
}

export function safetyAt(s: ClassicDcaState, k: number): boolean {
  const o = s.orders;
  for (let i = 0; i < o.length; i++) if (o[i]!.role === 'safety' && o[i]!.level === k) return true;
  return false;
}

/** The id of the current cycle's position: its pending-order id and the lotId of its trade. */
export function classicPositionId(state: ClassicDcaState): string {
  return `${state.botId}-c${state.cycle}`;
}

/** Whether the bot holds a position the user can act on (the base filled, a tradable qty). */
export function holdsPosition(s: ClassicDcaState): boolean {
  return s.cycleOpen && s.entry !== null && tradableQty(s) > 0;
}

/** The action in flight on the position: a user's sale or forget, else an add-funds / auto-fund buy. */
export function positionBusy(s: ClassicDcaState): LotInfo['busy'] {
  if (s.lotBusy) return s.lotBusy;
  return findOrder(s, 'add_funds') ? 'adding' : null;
}

/**
 * Auto-fund step k triggers at price ≤ entry × (1 − AUTO_FUND_STEP_PCT × k / 100), compared exactly:
 * price × 100 ≤ entry × (100 − AUTO_FUND_STEP_PCT × k).
 */
export function autoFundTriggered(entry: number, k: number, price: number): boolean {
  return toDec(price) * 100n <= decMul(toDec(entry), toDec(100 - AUTO_FUND_STEP_PCT * k));
}
