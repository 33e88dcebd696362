/**
 * Level prices are P0 × (1 − S)^k rounded down to the price step, whatever order they are asked in.
 * Anchor 100 on a market with sepPct 0.7 and step 0.01 (a ladder no other test uses, so the shared
 * level cache starts empty here):
 *
 *   L3  = 100 × 0.993^3  = 97.9146…  → 97.91
 *   L10 = 100 × 0.993^10 = 93.2164…  → 93.21
 *   L64 = 100 × 0.993^64 = 63.7898…  → 63.78
 *
 * Regression: the cache used to be filled out of order when a far level was asked first (the quiet
 * band and firstLevelBelow jump straight to it), which shifted every cached level after it, so a
 * later bot with the same ladder would have placed its buys at wrong prices.
 */
import { describe, expect, it } from 'vitest';
import { createDcaBot, levelPrice, stepDca } from '../../src/index';
import { dcaConfig } from './helpers';

function anchored(sepPct: number, anchor: number) {
  const s = createDcaBot('lv', dcaConfig({ sepPct }));
  return { ...s, anchor, status: 'running' as const };
}

describe('ladder level prices', () => {
  it('are the same when a far level is asked before the near ones', () => {
    const state = anchored(0.7, 100);
    expect(levelPrice(state, 64)).toBe(63.78);
    expect(levelPrice(state, 3)).toBe(97.91);
    expect(levelPrice(state, 10)).toBe(93.21);
    for (let k = 0; k < 70; k++) expect(levelPrice(state, k), `level ${k}`).toBeCloseTo(level(0.993, k), 10);
  });

  it('a bot whose price falls far below its anchor arms its buys at the exact level prices', () => {
    // sepPct 0.9 (a ladder of its own): entry at 100, buys at L1 = 99.1 and L2 = 98.21; then the
    // price drops to 80, far below: those two are crossed (the venue fills them) and no slot is
    // left, so nothing new is placed. When they fill, the next buys go to the first free levels
    // below 80: L25 = 100 × 0.991^25 = 79.773… → 79.77 and L26 → 79.05.
    let s = stepDca(createDcaBot('far', dcaConfig({ sepPct: 0.9, os: 2 })), {
      type: 'tick',
      price: 100,
      ts: 1,
    }).state;
    s = stepDca(s, {
      type: 'order_filled',
      clientOrderId: s.entry!.clientOrderId,
      price: 100,
      amount: 0.2,
      fee: 0.02,
      ts: 2,
    }).state;
    s = stepDca(s, { type: 'tick', price: 80, ts: 3 }).state;
    for (const w of [...s.waitingBuys]) {
      s = stepDca(s, {
        type: 'order_filled',
        clientOrderId: w.clientOrderId,
        price: w.price,
        amount: w.amount,
        fee: 0.02,
        ts: 4,
      }).state;
    }
    const armed = s.waitingBuys.filter((b) => !b.cancelling);
    expect(armed.map((w) => [w.level, w.price])).toEqual([
      [25, 79.77],
      [26, level(0.991, 26)],
    ]);
  });
});

/** P0 = 100 × factor^k rounded down to 0.01, computed here independently of the engine's cache. */
function level(factor: number, k: number): number {
  return Math.floor(Number((100 * factor ** k).toPrecision(12)) * 100 + 1e-9) / 100;
}
