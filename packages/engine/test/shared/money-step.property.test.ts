import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { roundDownToStep, roundToStep, roundUpToStep } from '../../src/index';

/**
 * Step rounding against an exact rational reference written here on BigInt (independent of money.ts):
 * a number means its shortest decimal form (`String(x)`, what a user and an exchange read), so the
 * double nearest 1.23456789 is the decimal 1.23456789. Issue 38 point 4: the old float quotient
 * floored 1.23456789 at step 1e-8 to 1.23456788, leaving one step of dust on every full sell.
 */

/** x as an exact fraction num / 10^exp (exp ≥ 0). */
function rational(x: number): { num: bigint; exp: number } {
  const s = String(x);
  const [mant, e] = s.toLowerCase().split('e') as [string, string | undefined];
  const neg = mant.startsWith('-');
  const body = neg ? mant.slice(1) : mant;
  const [int, frac = ''] = body.split('.') as [string, string | undefined];
  let exp = frac.length - Number(e ?? 0);
  let num = BigInt(int + frac);
  if (exp < 0) {
    num *= 10n ** BigInt(-exp);
    exp = 0;
  }
  return { num: neg ? -num : num, exp };
}

/** a and b brought to one denominator 10^exp. */
function common(a: number, b: number): { a: bigint; b: bigint; exp: number } {
  const ra = rational(a);
  const rb = rational(b);
  const exp = Math.max(ra.exp, rb.exp);
  return { a: ra.num * 10n ** BigInt(exp - ra.exp), b: rb.num * 10n ** BigInt(exp - rb.exp), exp };
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
}

/** The reference floor as the double nearest the exact decimal floor(value / step) × step. */
function referenceFloor(value: number, step: number): number {
  const { a, b, exp } = common(value, step);
  const m = floorDiv(a, b) * b;
  return Number(`${m}e-${exp}`);
}

const steps = fc.oneof(
  fc.integer({ min: 0, max: 12 }).map((k) => Number(`1e-${k}`)),
  fc.constantFrom(0.5, 0.25, 5e-7, 2.5, 0.05, 10, 0.0002, 1e-5, 0.1, 0.01),
);

/** Values written with up to 12 decimals (prices, amounts, balances) and arbitrary doubles. */
const values = fc.oneof(
  fc
    .tuple(fc.integer({ min: -(10 ** 15), max: 10 ** 15 }), fc.integer({ min: 0, max: 12 }))
    .map(([units, k]) => Number(`${units}e-${k}`)),
  fc.double({ min: -1e9, max: 1e9, noNaN: true, noDefaultInfinity: true }),
  fc.double({ min: 1e-9, max: 10, noNaN: true }),
);

describe('step rounding in decimal arithmetic (issue 38 point 4)', () => {
  it('floors 1.23456789 at step 1e-8 to itself (the dust case)', () => {
    expect(roundDownToStep(1.23456789, 1e-8)).toBe(1.23456789);
    expect(roundDownToStep(0.29, 0.01)).toBe(0.29);
    expect(roundDownToStep(4.35, 0.05)).toBe(4.35);
    expect(roundDownToStep(1.15, 0.05)).toBe(1.15);
    expect(roundUpToStep(1.23456789, 1e-8)).toBe(1.23456789);
    expect(roundToStep(1.23456789, 1e-8)).toBe(1.23456789);
    // A float one ulp below a step is below it: a floor never rounds up to sell more than is held.
    expect(roundDownToStep(0.7 - 0.4, 0.1)).toBe(0.2);
    expect(roundDownToStep(1e21 + 7, 10)).toBe(1e21);
    expect(roundDownToStep(1.5e-20, 1e-21)).toBe(1.5e-20);
  });

  it('a floor never exceeds the value, is a multiple of the step and lies within one step', () => {
    fc.assert(
      fc.property(values, steps, (value, step) => {
        const down = roundDownToStep(value, step);
        expect(down).toBe(referenceFloor(value, step));
        expect(down <= value).toBe(true);
        // Past ~10^15 steps a double cannot hold every multiple of the step (836468928.8350715 at step
        // 5e-7 prints as …716): the result is still the double nearest the exact floor, checked above.
        if (!(Math.abs(value / step) < 1e15)) return;
        const v = common(value, step);
        const d = common(down, step);
        const exp = Math.max(v.exp, d.exp);
        const scaleV = 10n ** BigInt(exp - v.exp);
        const scaleD = 10n ** BigInt(exp - d.exp);
        const val = v.a * scaleV;
        const res = d.a * scaleD;
        const st = v.b * scaleV;
        expect(res <= val).toBe(true);
        expect(val - res < st).toBe(true);
        expect(res % st).toBe(0n);
      }),
      { numRuns: 3000 },
    );
  });

  it('ceil and nearest agree with the reference', () => {
    fc.assert(
      fc.property(values, steps, (value, step) => {
        const { a, b, exp } = common(value, step);
        const f = floorDiv(a, b);
        const r = a - f * b;
        const up = r === 0n ? f : f + 1n;
        const twice = 2n * r;
        const near = twice > b || (twice === b && a > 0n) ? f + 1n : f;
        expect(roundUpToStep(value, step)).toBe(Number(`${up * b}e-${exp}`));
        expect(roundToStep(value, step)).toBe(Number(`${near * b}e-${exp}`));
      }),
      { numRuns: 3000 },
    );
  });
});
