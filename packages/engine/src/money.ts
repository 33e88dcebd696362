/**
 * Money helpers (DESIGN.md §4 principle 8: money is exact where users read it).
 *
 * - Rounding to a market step works in whole step units with a tiny epsilon, so float noise such as
 *   0.3 / 0.1 = 2.9999999999999996 does not lose a step, and the result is cleaned to the step's decimals.
 * - Exact sums and products use fixed-point BigInt decimals with 18 fractional digits (`Dec`); numbers
 *   enter through their shortest decimal representation (`String(x)`), so 0.1 + 0.2 is exactly 0.3.
 */

/** Number of decimals of a step or value written in plain or exponent notation (0.001 → 3, 1e-8 → 8). */
export function decimalsOf(x: number): number {
  if (!Number.isFinite(x)) return 0;
  const s = String(Math.abs(x));
  const e = s.indexOf('e');
  if (e >= 0) {
    const mant = s.slice(0, e);
    const exp = Number(s.slice(e + 1));
    const dot = mant.indexOf('.');
    const mantDecimals = dot >= 0 ? mant.length - dot - 1 : 0;
    return Math.max(0, mantDecimals - exp);
  }
  const dot = s.indexOf('.');
  return dot >= 0 ? s.length - dot - 1 : 0;
}

/** Snap tolerance in step units: absorbs the float error of value / step (a few ulps of the quotient). */
function eps(q: number): number {
  return 1e-9 + Math.abs(q) * 5e-16;
}

function clean(n: number, step: number): number {
  const d = Math.min(20, decimalsOf(step));
  const v = Number((n * step).toFixed(d));
  return Object.is(v, -0) ? 0 : v;
}

function checkStep(step: number): boolean {
  return Number.isFinite(step) && step > 0;
}

/** Beyond this many steps the float quotient is not exact enough: use exact decimals. */
const FAST_LIMIT = 1e12;

function exactRound(value: number, step: number, mode: 'down' | 'up' | 'nearest'): number {
  const v = toDec(value);
  const st = toDec(step);
  if (st === 0n) return value;
  let n = v / st; // truncated toward zero
  const r = v - n * st;
  if (mode === 'down' && r < 0n) n -= 1n;
  else if (mode === 'up' && r > 0n) n += 1n;
  else if (mode === 'nearest') {
    const twice = 2n * (r < 0n ? -r : r);
    if (twice >= st) n += r < 0n ? -1n : 1n;
  }
  const out = Number(decToString(n * st));
  return Object.is(out, -0) ? 0 : out;
}

/** Largest multiple of `step` that is ≤ value (amounts, buy prices). A step ≤ 0 returns value unchanged. */
export function roundDownToStep(value: number, step: number): number {
  if (!checkStep(step) || !Number.isFinite(value)) return value;
  const q = value / step;
  if (Math.abs(q) >= FAST_LIMIT) return exactRound(value, step, 'down');
  return clean(Math.floor(q + eps(q)), step);
}

/** Smallest multiple of `step` that is ≥ value (sell prices). */
export function roundUpToStep(value: number, step: number): number {
  if (!checkStep(step) || !Number.isFinite(value)) return value;
  const q = value / step;
  if (Math.abs(q) >= FAST_LIMIT) return exactRound(value, step, 'up');
  return clean(Math.ceil(q - eps(q)), step);
}

/** Nearest multiple of `step` (halves away from zero). */
export function roundToStep(value: number, step: number): number {
  if (!checkStep(step) || !Number.isFinite(value)) return value;
  const q = value / step;
  if (Math.abs(q) >= FAST_LIMIT) return exactRound(value, step, 'nearest');
  return clean(Math.sign(q) * Math.floor(Math.abs(q) + 0.5 + eps(q)), step);
}

// ---------------------------------------------------------------------------------------------------
// Exact decimals

/** Fractional digits of the fixed-point representation. */
export const DEC_SCALE = 18;
const SCALE = 10n ** BigInt(DEC_SCALE);

/** An exact decimal: value × 10^18 as a BigInt. */
export type Dec = bigint;

/** Parses a number (via its shortest representation) or a decimal string ('12.5', '-1e-8') exactly;
 *  digits beyond 18 decimals are truncated toward zero. Throws on non-finite input. */
export function toDec(x: number | string | bigint): Dec {
  if (typeof x === 'bigint') return x * SCALE;
  const s = typeof x === 'number' ? numberToString(x) : x.trim();
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new Error(`not a decimal: ${s}`);
  const neg = m[1] === '-';
  let intPart = m[2] ?? '';
  let frac = m[3] ?? '';
  const exp = m[4] ? Number(m[4]) : 0;
  if (exp > 0) {
    const take = frac.slice(0, exp).padEnd(exp, '0');
    intPart += take;
    frac = frac.slice(exp);
  } else if (exp < 0) {
    const pad = intPart.padStart(-exp, '0');
    frac = pad.slice(pad.length + exp) + frac;
    intPart = pad.slice(0, pad.length + exp);
  }
  const digits = (intPart || '0') + frac.slice(0, DEC_SCALE).padEnd(DEC_SCALE, '0');
  const v = BigInt(digits);
  return neg ? -v : v;
}

function numberToString(x: number): string {
  if (!Number.isFinite(x)) throw new Error(`not a finite number: ${x}`);
  return String(x);
}

/** Plain decimal string without trailing zeros ('0.1598', '-3', '0.00000001'). */
export function decToString(d: Dec): string {
  const neg = d < 0n;
  const abs = neg ? -d : d;
  const int = abs / SCALE;
  const frac = (abs % SCALE).toString().padStart(DEC_SCALE, '0').replace(/0+$/, '');
  const body = frac ? `${int}.${frac}` : `${int}`;
  return neg && body !== '0' ? `-${body}` : body;
}

export function decToNumber(d: Dec): number {
  return Number(decToString(d));
}

/** Exact product, truncated toward zero at 18 decimals. */
export function decMul(a: Dec, b: Dec): Dec {
  return (a * b) / SCALE;
}

/** Quotient truncated toward zero at 18 decimals. */
export function decDiv(a: Dec, b: Dec): Dec {
  if (b === 0n) throw new Error('division by zero');
  return (a * SCALE) / b;
}

/** Exact sum of numbers / decimal strings, as a plain decimal string (no float drift). */
export function sumDecimal(values: Iterable<number | string>): string {
  let total = 0n;
  for (const v of values) total += toDec(v);
  return decToString(total);
}

/** Exact a + b of two numbers / decimal strings, as a decimal string. */
export function addDecimal(a: number | string, b: number | string): string {
  return decToString(toDec(a) + toDec(b));
}

/**
 * Formats an amount for display: at most `maxDecimals` decimals (rounded half away from zero, exactly),
 * trailing zeros removed, never exponent notation: formatAmount(1e-8) = '0.00000001',
 * formatAmount(0.1 + 0.2) = '0.3', formatAmount(1234.5, 2) = '1234.5'. `minDecimals` pads with zeros
 * (formatAmount(3, 8, 2) = '3.00').
 */
export function formatAmount(value: number | string, maxDecimals = 8, minDecimals = 0): string {
  const d = toDec(value);
  const keep = Math.max(0, Math.min(DEC_SCALE, maxDecimals));
  const unit = 10n ** BigInt(DEC_SCALE - keep);
  const neg = d < 0n;
  const abs = neg ? -d : d;
  const rounded = ((abs + unit / 2n) / unit) * unit;
  let s = decToString(rounded);
  if (minDecimals > 0) {
    const dot = s.indexOf('.');
    const have = dot >= 0 ? s.length - dot - 1 : 0;
    if (have < minDecimals) s = (dot >= 0 ? s : `${s}.`) + '0'.repeat(minDecimals - have);
  }
  return neg && rounded !== 0n ? `-${s}` : s;
}
