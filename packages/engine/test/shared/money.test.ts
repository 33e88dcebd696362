import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDecimal,
  decimalsOf,
  decToString,
  formatAmount,
  roundDownToStep,
  roundToStep,
  roundUpToStep,
  sumDecimal,
  toDec,
} from '../../src/index';

describe('money helpers', () => {
  it('round to a step without losing a step to float noise', () => {
    // 0.3 / 0.1 = 2.9999999999999996 in floats; a naive floor gives 0.2.
    expect(roundDownToStep(0.3, 0.1)).toBe(0.3);
    expect(roundDownToStep(0.20202, 0.0001)).toBe(0.202);
    expect(roundDownToStep(20 / 97.02, 0.0001)).toBe(0.2061);
    expect(roundDownToStep(97.0299, 0.01)).toBe(97.02);
    expect(roundUpToStep(97.9902, 0.01)).toBe(98);
    expect(roundUpToStep(101, 0.01)).toBe(101);
    expect(roundToStep(1.005, 0.01)).toBe(1.01);
    expect(roundToStep(1.004, 0.01)).toBe(1);
    expect(roundDownToStep(123.456, 0.5)).toBe(123);
    expect(roundDownToStep(0.000123456, 1e-8)).toBe(0.00012345);
    expect(roundDownToStep(12345, 10)).toBe(12340);
    expect(roundDownToStep(5, 0)).toBe(5);
    // Far beyond 2^53 steps the exact decimal path is used.
    expect(roundDownToStep(123456789.12345679, 1e-8)).toBe(123456789.12345679);
    expect(roundDownToStep(-0.15, 0.1)).toBe(-0.2);
    expect(roundUpToStep(-0.15, 0.1)).toBe(-0.1);
  });

  it('counts decimals of steps in plain and exponent notation', () => {
    expect(decimalsOf(0.001)).toBe(3);
    expect(decimalsOf(1e-8)).toBe(8);
    expect(decimalsOf(1.5e-7)).toBe(8);
    expect(decimalsOf(10)).toBe(0);
  });

  it('sums without float drift', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(sumDecimal([0.1, 0.2])).toBe('0.3');
    expect(sumDecimal(Array.from({ length: 1000 }, () => 0.1))).toBe('100');
    expect(sumDecimal([0.1598, -0.35968, '0.0000001'])).toBe('-0.1998799');
    expect(addDecimal('1e-8', 2)).toBe('2.00000001');
    expect(sumDecimal([])).toBe('0');
    expect(decToString(toDec('-0.5'))).toBe('-0.5');
    expect(() => toDec('abc')).toThrow();
    expect(() => toDec(Number.NaN)).toThrow();
  });

  it('formats amounts without exponents and with exact rounding', () => {
    expect(formatAmount(1e-8)).toBe('0.00000001');
    expect(formatAmount(0.1 + 0.2)).toBe('0.3');
    expect(formatAmount(1234.5, 2)).toBe('1234.5');
    expect(formatAmount(3, 8, 2)).toBe('3.00');
    expect(formatAmount(99.49751243781, 4)).toBe('99.4975');
    expect(formatAmount(-0.000000004, 8)).toBe('0');
    expect(formatAmount(-1.23456789, 4)).toBe('-1.2346');
    expect(formatAmount('0.15978402', 2, 2)).toBe('0.16');
    expect(formatAmount(1e21, 2)).toBe('1000000000000000000000');
  });

  it('rounding down stays within one step below the value (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -(10 ** 12), max: 10 ** 12 }),
        fc.constantFrom(1, 0.1, 0.01, 0.001, 0.0001, 1e-5, 1e-6, 1e-8, 0.5, 0.25),
        (units, step) => {
          const value = units / 1000;
          const down = roundDownToStep(value, step);
          const up = roundUpToStep(value, step);
          const v = toDec(value);
          const st = toDec(step);
          // down ≤ value < down + step and up − step < value ≤ up, exactly.
          expect(toDec(down) <= v && v < toDec(down) + st).toBe(true);
          expect(toDec(up) >= v && v > toDec(up) - st).toBe(true);
          // The result is an exact multiple of the step.
          expect(toDec(down) % toDec(step)).toBe(0n);
          expect(toDec(up) % toDec(step)).toBe(0n);
        },
      ),
    );
  });

  it('sums equal the integer-scaled sum (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -(10 ** 12), max: 10 ** 12 }), { maxLength: 200 }), (cents) => {
        const values = cents.map((c) => c / 10 ** 8);
        const exact = cents.reduce((a, b) => a + BigInt(b), 0n);
        expect(toDec(sumDecimal(values))).toBe(exact * 10n ** 10n);
      }),
    );
  });
});
