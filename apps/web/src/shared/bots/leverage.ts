/** The spec's leverage limits: at least 1, integer; the grid's dialog allows up to 200 (part 2 §5, §9). */
export const LEVERAGE_MIN = 1;
export const LEVERAGE_MAX = 200;

/** A typed or stepped value as the dialog keeps it: an integer within [1, max]. */
export const clampLeverage = (v: unknown, max = LEVERAGE_MAX): number => {
  const n = Math.floor(Number(v));
  if (!Number.isFinite(n) || n < LEVERAGE_MIN) return LEVERAGE_MIN;
  return Math.min(max, n);
};
