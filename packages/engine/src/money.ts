/**
 * Money helpers (DESIGN.md §4 principle 8: money is exact where users read it).
 *
 * - Rounding to a market step is exact decimal arithmetic on the shortest decimal form of value and step
 *   (integers scaled by 10^decimals, BigInt beyond 2^51): 0.3 / 0.1 = 2.9999999999999996 in floats, yet
 *   roundDownToStep(0.3, 0.1) is 0.3, and a floor never exceeds its value (no epsilon that could round up).
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

function checkStep(step: number): boolean {
  return Number.isFinite(step) && step > 0;
}

type Mode = 'down' | 'up' | 'nearest';

/**
 * Step rounding is exact decimal arithmetic on the numbers' shortest decimal forms (`String(x)`), so the
 * double nearest 1.23456789 floors to 1.23456789 at step 1e-8, never to 1.23456788 (the old `x / step`
 * float quotient was 123456788.99999999: one step of dust on every full sell), and a result never lies
 * above the value (floor), below it (ceil) or more than half a step away (nearest).
 */
function stepRound(value: number, step: number, mode: Mode): number {
  const quick = quickRound(value, step, mode);
  if (quick !== undefined) return quick;
  const d = Math.max(decimalsOf(value), decimalsOf(step));
  // Fast exact path: both scaled to integers below 2^51, where x × 10^d is within 1/2 of its integer
  // (two roundings of ≤ 2^-53 relative each), so Math.round recovers the decimal's digits exactly and
  // every product below stays an exact double integer (< 2^53).
  if (d <= 22) {
    const p = 10 ** d;
    const vf = value * p;
    const sf = step * p;
    if (Math.abs(vf) < 2 ** 51 && sf < 2 ** 51) {
      const v = Math.round(vf);
      const st = Math.round(sf);
      if (st > 0) {
        let n = Math.floor(v / st);
        // The float quotient can be off by one next to an integer: correct it with exact products.
        if (n * st > v) n -= 1;
        else if ((n + 1) * st <= v) n += 1;
        const r = v - n * st; // 0 ≤ r < st
        if (r > 0 && (mode === 'up' || (mode === 'nearest' && (2 * r > st || (2 * r === st && v > 0))))) {
          n += 1;
        }
        // n × st is an exact integer; one correctly rounded division gives the double of the decimal.
        const out = (n * st) / p;
        return Object.is(out, -0) ? 0 : out;
      }
    }
  }
  return exactRound(value, step, mode);
}

/** The last step's decimals and its digits as an integer (steps repeat: one market's tick). */
let cachedStep = Number.NaN;
let cachedDecimals = 0;
let cachedUnits = 0;

/**
 * The common case without strings (a float such as quote / price has ~17 digits, so the decimal path
 * would need BigInt): the float quotient q = value / step is within |q| × 4.5e-16 of the exact decimal
 * quotient (three roundings of ≤ 2^-53 each), so when q is farther than |q| × 1e-15 from every integer
 * (and, for nearest, from every half) its floor is the exact one. The result n × step is then built as
 * the integer n × (step × 10^k) divided once by 10^k: the double nearest the decimal, as the exact path
 * gives. Returns undefined when q is too close to call or the integers would pass 2^53.
 */
function quickRound(value: number, step: number, mode: Mode): number | undefined {
  const q = value / step;
  const aq = Math.abs(q);
  if (!(aq < 2 ** 50)) return undefined;
  const f = Math.floor(q);
  const frac = q - f; // exact: f and q are within one unit
  const tol = aq * 1e-15 + 1e-300;
  if (frac < tol || 1 - frac < tol) return undefined;
  if (mode === 'nearest' && Math.abs(frac - 0.5) < tol) return undefined;
  const n = mode === 'down' ? f : mode === 'up' ? f + 1 : frac > 0.5 ? f + 1 : f;
  if (step !== cachedStep) {
    const k = decimalsOf(step);
    if (k > 22) return undefined;
    const units = Math.round(step * 10 ** k);
    if (!(units < 2 ** 51)) return undefined;
    cachedStep = step;
    cachedDecimals = k;
    cachedUnits = units;
  }
  const m = n * cachedUnits;
  if (!(Math.abs(m) < 2 ** 53)) return undefined;
  const out = m / 10 ** cachedDecimals;
  return Object.is(out, -0) ? 0 : out;
}

/** The arbitrary-size path (huge values or more than 22 decimals): BigInt at the finer of both scales. */
function exactRound(value: number, step: number, mode: Mode): number {
  const a = decimalParts(String(value));
  const b = decimalParts(String(step));
  const scale = Math.max(a.scale, b.scale);
  const v = a.digits * 10n ** BigInt(scale - a.scale);
  const st = b.digits * 10n ** BigInt(scale - b.scale);
  if (st <= 0n) return value;
  let n = v / st; // truncated toward zero
  let r = v - n * st;
  if (r < 0n) {
    n -= 1n; // floor
    r += st;
  }
  if (r > 0n && (mode === 'up' || (mode === 'nearest' && (2n * r > st || (2n * r === st && v > 0n))))) {
    n += 1n;
  }
  const out = Number(scaledToString(n * st, scale));
  return Object.is(out, -0) ? 0 : out;
}

/** A decimal string in plain or exponent notation as digits × 10^-scale, exactly (scale ≥ 0). */
export function decimalParts(s: string): { digits: bigint; scale: number } {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new Error(`not a decimal: ${s}`);
  const frac = m[3] ?? '';
  let scale = frac.length - (m[4] ? Number(m[4]) : 0);
  let digits = BigInt((m[2] || '0') + frac);
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { digits: m[1] === '-' ? -digits : digits, scale };
}

function scaledToString(x: bigint, scale: number): string {
  const neg = x < 0n;
  const abs = (neg ? -x : x).toString().padStart(scale + 1, '0');
  const int = abs.slice(0, abs.length - scale);
  const frac = abs.slice(abs.length - scale);
  return `${neg ? '-' : ''}${int}${frac ? `.${frac}` : ''}`;
}

/** Largest multiple of `step` that is ≤ value (amounts, buy prices). A step ≤ 0 returns value unchanged. */
export function roundDownToStep(value: number, step: number): number {
  if (!checkStep(step) || !Number.isFinite(value)) return value;
  return stepRound(value, step, 'down');
}

/** Smallest multiple of `step` that is ≥ value (sell prices). */
export function roundUpToStep(value: number, step: number): number {
  if (!checkStep(step) || !Number.isFinite(value)) return value;
  return stepRound(value, step, 'up');
}

/** Nearest multiple of `step` (halves away from zero). */
export function roundToStep(value: number, step: number): number {
  if (!checkStep(step) || !Number.isFinite(value)) return value;
  return stepRound(value, step, 'nearest');
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
