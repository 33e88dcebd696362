/**
 * Scenario: a bot with the most safety orders (# OS 100, separation 0.5 %) rides a long fall. Every
 * level it passes becomes a lot with its take-profit, so without a bound the open orders grow without
 * end (100 waiting buys + one sell per lot).
 *
 *   cap        = DCA_MAX_OPEN_ORDERS = 200 open orders (waiting buys + open lots)
 *   lots ≤ 100 : the ladder keeps its 100 buys (100 + lots ≤ 200)
 *   lots = 150 : the ladder may hold 200 − 150 = 50 buys
 *   at the cap : lots + buys = 200, and one 'order_cap' warning says why fewer than # OS are placed
 */
import { describe, expect, it } from 'vitest';
import { DCA_MAX_OPEN_ORDERS } from '../../src/index';
import { DcaSim } from './dca-sim';
import { dcaConfig, logs } from './helpers';

describe('one bot holds at most DCA_MAX_OPEN_ORDERS open orders', () => {
  it('shrinks the ladder as lots pile up in a long fall, and says so once', () => {
    const sim = new DcaSim('b', dcaConfig({ os: 100, sepPct: 0.5, amount: 6 }), {
      budget: 1_000_000,
      feeRate: 0.001,
      fillsFirst: false,
      partialFills: false,
    });
    let most = 0;
    sim.onStep = (s) => {
      const open = s.state.lots.length + s.state.waitingBuys.filter((w) => !w.cancelling).length;
      most = Math.max(most, open);
    };
    // From 100 down 0.25 % a second to about 30: ~480 ladder levels crossed.
    let price = 100;
    for (let ts = 1000; price > 30; ts += 1000) {
      sim.tick(Number(price.toFixed(2)), ts);
      price *= 0.9975;
    }
    const s = sim.state;
    expect(s.lots.length).toBeGreaterThan(150);
    expect(most).toBeLessThanOrEqual(DCA_MAX_OPEN_ORDERS);
    expect(s.lots.length + s.waitingBuys.filter((w) => !w.cancelling).length).toBeLessThanOrEqual(
      DCA_MAX_OPEN_ORDERS,
    );
    const capLogs = logs(sim.commands).filter((l) => l.code === 'order_cap');
    expect(capLogs).toHaveLength(1);
    expect(capLogs[0]!.params).toEqual({ max: DCA_MAX_OPEN_ORDERS, lots: 101 });
    expect(s.orderCapped).toBe(true);
  });
});
