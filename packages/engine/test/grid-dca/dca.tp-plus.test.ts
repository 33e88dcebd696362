/**
 * Scenario: TP+ crossing up sells every lot at market and stops.
 *
 *   lot 0: 0.2 at 100, buy fee 0.02; TP+ 100.5; the price ticks 100.6 (its TP at 101 is not reached).
 *   sell fee = 0.2 × 100.6 × 0.001 = 0.02012
 *   pnl_net  = 0.2 × (100.6 − 100) − 0.02 − 0.02012 = 0.12 − 0.04012 = 0.07988
 */
import { describe, expect, it } from 'vitest';
import { logs, paperBot, trades } from './helpers';

describe('TP+', () => {
  it('sells every lot at market when the price reaches TP+, then stops', () => {
    const sim = paperBot();
    sim.tick(100, 1000);
    sim.act({ type: 'set_tp_plus', tpPlus: 100.5, ts: 1500 });
    sim.tick(100.6, 2000);
    expect(trades(sim.commands)).toEqual([
      {
        lotId: 'b-1',
        qty: 0.2,
        buyPrice: 100,
        sellPrice: 100.6,
        buyTime: 1000,
        sellTime: 2000,
        buyFee: 0.02,
        sellFee: 0.02012,
        pnlNet: 0.07988,
      },
    ]);
    expect(logs(sim.commands).find((l) => l.code === 'tp_plus_hit')?.params).toEqual({
      price: 100.6,
      tp_plus: 100.5,
    });
    expect(sim.state.status).toBe('stopped');
    expect(sim.state.stopReason).toBe('tp_plus_hit');
    expect(sim.book.size).toBe(0);
  });

  it('ignores a TP+ that is not a positive number, with a log', () => {
    const sim = paperBot();
    sim.tick(100, 1000);
    sim.act({ type: 'set_tp_plus', tpPlus: Number.NaN, ts: 1500 });
    expect(sim.state.config.tpPlus).toBeNull();
    expect(logs(sim.commands).at(-1)).toMatchObject({ code: 'invalid_value', params: { field: 'tp_plus' } });
  });
});
