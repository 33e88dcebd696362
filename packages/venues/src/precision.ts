/**
 * Step rounding for amounts and prices. Floats are snapped to the step's decimal count so that
 * 0.1 + 0.2 style drift never reaches a user (DESIGN.md principle 8).
 */

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

/** Rounds down to a multiple of step (amounts: never more than asked). */
export function floorToStep(x: number, step: number): number {
  if (!(step > 0)) return x;
  const n = Math.floor(x / step + 1e-9);
  return roundDecimals(n * step, stepDecimals(step));
}

/** Rounds to the nearest multiple of step (prices). */
export function roundToStep(x: number, step: number): number {
  if (!(step > 0)) return x;
  const n = Math.round(x / step);
  return roundDecimals(n * step, stepDecimals(step));
}

/** Money values (balances, costs, fees) are kept to 1e-8 (a satoshi). */
export function money(x: number): number {
  return roundDecimals(x, 8);
}
