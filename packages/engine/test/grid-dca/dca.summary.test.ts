/**
 * Dashboard figures for a bot holding 0.2 at 100 (fee 0.02) and 0.202 at 99 (fee 0.019998), price 99.5:
 *   open qty   = 0.2 + 0.202 = 0.402
 *   cost       = 0.2 × 100 + 0.202 × 99 = 20 + 19.998 = 39.998
 *   avg entry  = 39.998 / 0.402 = 99.49751243781…
 *   unrealized = 0.402 × 99.5 − 39.998 − (0.02 + 0.019998) = 39.999 − 39.998 − 0.039998 = −0.038998
 *   range      = [100 × 0.99^3, 100 × 1.01] = [97.0299, 101]
 */
import { describe, expect, it } from 'vitest';
import { inRange, rangeHigh, rangeLow, summarizeDca } from '../../src/index';
import { paperBot } from './helpers';

describe('summarizeDca', () => {
  it('gives open lots, average entry, unrealized and realized PnL and the range flag', () => {
    const sim = paperBot();
    sim.tick(100, 1000);
    sim.tick(98.5, 2000);
    const s = summarizeDca(sim.state, 99.5);
    expect(s.openLots).toBe(2);
    expect(s.openQty).toBe(0.402);
    expect(s.avgEntry).toBeCloseTo(99.49751243781, 10);
    expect(s.unrealizedPnl).toBe(-0.038998);
    expect(s.realizedPnl).toBe(0);
    expect(s.inRange).toBe(true);
    expect(rangeLow(sim.state)).toBeCloseTo(97.0299, 10);
    expect(rangeHigh(sim.state)).toBe(101);
    expect(inRange(sim.state, 97.0299)).toBe(true);
    expect(inRange(sim.state, 97.02)).toBe(false);
    expect(inRange(sim.state, 101)).toBe(true);
    expect(inRange(sim.state, 101.01)).toBe(false);
  });

  it('an empty or unanchored bot has no entry and is not in range', () => {
    const sim = paperBot();
    expect(summarizeDca(sim.state, 100)).toEqual({
      openLots: 0,
      avgEntry: null,
      openQty: 0,
      unrealizedPnl: 0,
      realizedPnl: 0,
      inRange: false,
    });
  });
});
