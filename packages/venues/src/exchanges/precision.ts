/**
 * Market precision per ccxt precision mode, and the per-exchange exceptions to it.
 *
 * ccxt writes `market.precision.{amount,price}` in the exchange's `precisionMode`
 * (https://docs.ccxt.com/#/README?id=precision-mode):
 * - TICK_SIZE (4): the step itself (0.01). 15 of the 16 catalogue exchanges ccxt supports.
 * - DECIMAL_PLACES (2): a count of decimals (2 → step 0.01).
 * - SIGNIFICANT_DIGITS (3): a count of significant digits, so the step depends on the value
 *   (5 digits: 12345.6 → step 1, 1.23456 → step 0.0001). Bitfinex in the catalogue.
 * The old reader took significant digits for decimals: Bitfinex's 5-digit prices became a 0.00001 step,
 * so a BTC price of 97123.4 was sent with 6 digits and cut by the exchange.
 */

import { decimalsOf, roundDownToStep, roundToStep } from '@bytx/engine';
import type { Market } from '../types';
import { toNumber } from './numbers';

/** ccxt's precision mode constants (ccxt/js/src/base/functions/number.js). */
export const DECIMAL_PLACES = 2;
export const SIGNIFICANT_DIGITS = 3;
export const TICK_SIZE = 4;

/** How one market field (amount or price) is rounded. */
export type PrecisionRule =
  /** Multiples of a fixed step. */
  | { kind: 'step'; step: number }
  /** `digits` significant digits, and never more than `maxDecimals` decimals. */
  | { kind: 'significant'; digits: number; maxDecimals: number };

/** Finest step when an exchange gives no precision at all (1e-8: a satoshi). */
const FALLBACK_STEP = 1e-8;

/**
 * Exchanges whose fields do not follow their own `precisionMode`, with the exchange's documentation.
 * Kept with the exchange (one entry each), read by `precisionRule`.
 */
export const PRECISION_EXCEPTIONS: Record<
  string,
  { amountMode?: number; priceMaxDecimals?: number; source: string }
> = {
  // Bitfinex: "The amount field allows up to 8 decimals" (ccxt's bitfinex.amountToPrecision also counts
  // decimals); "All pairs on Bitfinex use up to 5 significant digits and up to 8 decimals" for prices.
  bitfinex: {
    amountMode: DECIMAL_PLACES,
    priceMaxDecimals: 8,
    source:
      'https://docs.bitfinex.com/docs/introduction#amount-precision, https://docs.bitfinex.com/docs/introduction#price-precision',
  },
};

/** Decimals allowed by default beside significant digits (8, as ccxt's examples and Bitfinex). */
const DEFAULT_MAX_DECIMALS = 8;

/** The rounding rule of one ccxt precision value, given the exchange's mode and ccxt id. */
export function precisionRule(
  value: unknown,
  precisionMode: number,
  field: 'amount' | 'price',
  ccxtId = '',
): PrecisionRule {
  const v = toNumber(value);
  if (v === null || v < 0) return { kind: 'step', step: FALLBACK_STEP };
  const exception = PRECISION_EXCEPTIONS[ccxtId];
  const mode =
    field === 'amount' && exception?.amountMode !== undefined ? exception.amountMode : precisionMode;
  // A tick of 0 means none given; a count of 0 decimals is a whole-unit step.
  if (mode === TICK_SIZE) return { kind: 'step', step: v > 0 ? v : FALLBACK_STEP };
  const count = Math.max(0, Math.min(20, Math.round(v)));
  if (mode === SIGNIFICANT_DIGITS) {
    const maxDecimals = (field === 'price' ? exception?.priceMaxDecimals : undefined) ?? DEFAULT_MAX_DECIMALS;
    return { kind: 'significant', digits: Math.max(1, count), maxDecimals };
  }
  // DECIMAL_PLACES, and any mode ccxt may add later, read as a count of decimals.
  return { kind: 'step', step: Number(`1e-${count}`) };
}

/** The finest step a rule ever allows (what `Market.amountStep` / `priceStep` carry). */
export function finestStep(rule: PrecisionRule): number {
  return rule.kind === 'step' ? rule.step : Number(`1e-${rule.maxDecimals}`);
}

/**
 * Power of ten of the leading digit of |x| from its shortest decimal form (97123.4 → 4, 0.00012 → -4),
 * exact where Math.log10 is not (log10(1000) may be 2.9999999999999996).
 */
export function leadingExponent(x: number): number {
  const s = Math.abs(x).toExponential();
  return Number(s.slice(s.indexOf('e') + 1));
}

/** The step a rule gives at a value (significant digits: 10^(exponent − digits + 1), not below maxDecimals). */
export function stepAt(rule: PrecisionRule, x: number): number {
  if (rule.kind === 'step') return rule.step;
  if (!Number.isFinite(x) || x === 0) return finestStep(rule);
  const p = Math.max(leadingExponent(x) - rule.digits + 1, -rule.maxDecimals);
  return Number(`1e${p}`);
}

/** Rounds down to the rule (amounts: never more than asked), in exact decimal arithmetic. */
export function floorToRule(x: number, rule: PrecisionRule): number {
  return roundDownToStep(x, stepAt(rule, x));
}

/**
 * Rounds to the nearest allowed value (prices). With significant digits the step is the value's own
 * (99999.7 at 5 digits rounds to 100000, which is still 5 digits: 1.0000e5).
 */
export function roundToRule(x: number, rule: PrecisionRule): number {
  return roundToStep(x, stepAt(rule, x));
}

/** A market's rule for one field, rebuilt from its steps and significant digits (see toMarket). */
export function marketRule(
  m: Pick<Market, 'amountStep' | 'priceStep' | 'amountSignificantDigits' | 'priceSignificantDigits'>,
  field: 'amount' | 'price',
): PrecisionRule {
  const step = field === 'amount' ? m.amountStep : m.priceStep;
  const digits = field === 'amount' ? m.amountSignificantDigits : m.priceSignificantDigits;
  if (digits !== undefined && digits > 0 && step > 0) {
    return { kind: 'significant', digits, maxDecimals: decimalsOf(step) };
  }
  return { kind: 'step', step };
}
