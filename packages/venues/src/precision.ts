/**
 * Step rounding for amounts and prices. Floats are snapped to the step's decimal count so that
 * 0.1 + 0.2 style drift never reaches a user (DESIGN.md principle 8).
 */

import { roundDownToStep, roundToStep as engineRoundToStep } from '@bytx/engine';

/** Decimal places of a step such as 0.001 (3) or 1 (0); at most 12. */
export function stepDecimals(step: number): number {
  if (!(step > 0)) return 8;
  for (let d = 0; d <= 12; d++) {
    const scaled = step * 10 ** d;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-9 * Math.max(1, scaled)) return d;
  }
  return 12;
}

/** Rounds to a fixed number of decimals without float noise. */
export function roundDecimals(x: number, decimals: number): number {
  if (!Number.isFinite(x)) return x;
  return Number(x.toFixed(Math.min(Math.max(decimals, 0), 20)));
}

/**
 * Rounds down to a multiple of step (amounts: never more than asked), in exact decimal arithmetic on
 * the numbers' shortest decimal forms: floorToStep(1.23456789, 1e-8) is 1.23456789 (the float quotient
 * gave 1.23456788, one step of dust left on every full sell). A step ≤ 0 returns x unchanged.
 */
export function floorToStep(x: number, step: number): number {
  return roundDownToStep(x, step);
}

/** Rounds to the nearest multiple of step (prices; halves away from zero), exactly as floorToStep. */
export function roundToStep(x: number, step: number): number {
  return engineRoundToStep(x, step);
}

/** Money values (balances, costs, fees) are kept to 1e-8 (a satoshi). */
export function money(x: number): number {
  return roundDecimals(x, 8);
}
