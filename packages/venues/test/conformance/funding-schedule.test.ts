import { describe, expect, it } from 'vitest';
import { FUNDING_SCHEDULES, scheduledNextFunding } from '../../src/exchanges/funding';

/**
 * The funding grid of exchanges whose funding reply states no time (exchanges/funding.ts): Phemex
 * charges at 00:00, 08:00 and 16:00 UTC unless the product states its own interval (fundingInterval,
 * seconds in the v2 product list, hours in v1). The replayed Phemex ticker is in derivatives.test.ts.
 */
const at = (h: number, m = 0, s = 0, ms = 0): number => Date.UTC(2026, 11, 7, h, m, s, ms);

describe('funding schedule (next funding time where the exchange states none)', () => {
  it('Phemex, 8 h grid: the next of 00:00 / 08:00 / 16:00 UTC, strictly after the time', () => {
    expect(scheduledNextFunding('phemex', undefined, at(0, 0, 0, 1))).toBe(at(8));
    expect(scheduledNextFunding('phemex', undefined, at(7, 59, 59, 999))).toBe(at(8));
    // At a funding instant the charge has happened: the next one is 8 h later.
    expect(scheduledNextFunding('phemex', undefined, at(8))).toBe(at(16));
    expect(scheduledNextFunding('phemex', {}, at(23, 30))).toBe(at(24));
  });

  it("Phemex, a product's own interval: seconds (v2) or hours (v1)", () => {
    expect(scheduledNextFunding('phemex', { fundingInterval: 28800 }, at(9))).toBe(at(16));
    expect(scheduledNextFunding('phemex', { fundingInterval: 14400 }, at(9))).toBe(at(12));
    expect(scheduledNextFunding('phemex', { fundingInterval: '3600' }, at(9, 15))).toBe(at(10));
    expect(scheduledNextFunding('phemex', { fundingInterval: 8 }, at(9))).toBe(at(16));
    expect(scheduledNextFunding('phemex', { fundingInterval: 4 }, at(9))).toBe(at(12));
    // Not an interval: the 8 h default.
    expect(scheduledNextFunding('phemex', { fundingInterval: 'x' }, at(9))).toBe(at(16));
    expect(scheduledNextFunding('phemex', { fundingInterval: 0 }, at(9))).toBe(at(16));
  });

  it('no rule (the exchange states its funding time) or no usable time: null', () => {
    expect(scheduledNextFunding('binance', undefined, at(9))).toBeNull();
    expect(scheduledNextFunding('phemex', undefined, 0)).toBeNull();
    expect(scheduledNextFunding('phemex', undefined, Number.NaN)).toBeNull();
    for (const rule of Object.values(FUNDING_SCHEDULES)) expect(rule.source).toMatch(/^https:\/\//);
  });
});
