/**
 * Scenario: SL crossing down sells every lot at market and stops (fees 0.1%).
 *
 *   lot 0: 0.2 at 100, buy fee 0.02            (entry at 100)
 *   lot 1: 0.202 at 99, buy fee 0.019998       (L1 filled when the price fell to 98.5)
 *   SL 98.45; the price ticks 98.4 → cancel the 3 waiting buys and both take profits, then sell at market:
 *   lot 0: sell fee 0.2 × 98.4 × 0.001   = 0.01968
 *          pnl = 0.2 × (98.4 − 100) − 0.02 − 0.01968      = −0.32 − 0.03968      = −0.35968
 *   lot 1: sell fee 0.202 × 98.4 × 0.001 = 0.0198768
 *          pnl = 0.202 × (98.4 − 99) − 0.019998 − 0.0198768 = −0.1212 − 0.0398748 = −0.1610748
 *   total realized = −0.35968 − 0.1610748 = −0.5207548
 */
import { describe, expect, it } from 'vitest';
import { DcaSim } from './dca-sim';
import { cancels, dcaConfig, logs, paperBot, places, trades } from './helpers';

describe('stop loss', () => {
  it('cancels everything, sells every lot at market, records the losses and stops', () => {
    const sim = paperBot();
    sim.tick(100, 1000);
    sim.tick(98.5, 2000);
    expect(sim.state.lots.map((l) => [l.qty, l.buyPrice, l.buyFee])).toEqual([
      [0.2, 100, 0.02],
      [0.202, 99, 0.019998],
    ]);
    sim.act({ type: 'set_sl', sl: 98.45, ts: 2500 });
    const before = sim.commands.length;
    sim.tick(98.4, 3000);
    const cmds = sim.commands.slice(before);
    expect(logs(cmds).map((l) => l.code)).toEqual(['sl_hit', 'stopping', 'lot_closed', 'lot_closed']);
    // The 3 waiting buys and the 2 take profits are cancelled before anything is sold.
    expect(cancels(cmds)).toHaveLength(5);
    const closes = places(cmds);
    expect(closes.map((p) => [p.role, p.side, p.orderType, p.amount, p.lotId])).toEqual([
      ['close', 'sell', 'market', 0.2, 'b-1'],
      ['close', 'sell', 'market', 0.202, 'b-3'],
    ]);
    expect(trades(cmds).map((t) => [t.lotId, t.sellPrice, t.sellFee, t.pnlNet])).toEqual([
      ['b-1', 98.4, 0.01968, -0.35968],
      ['b-3', 98.4, 0.0198768, -0.1610748],
    ]);
    expect(sim.state.realizedPnl).toBe('-0.5207548');
    expect(sim.state.status).toBe('stopped');
    expect(sim.state.lots).toEqual([]);
    expect(sim.book.size).toBe(0);
    expect(cmds.at(-1)).toEqual({ type: 'stopped', reason: 'sl_hit' });
    // A stopped bot ignores further events.
    const after = sim.commands.length;
    sim.tick(90, 4000);
    expect(sim.commands.length).toBe(after);
  });

  it('clearing the SL with null disarms it', () => {
    const sim = new DcaSim('b', dcaConfig({ sl: 99 }), {
      budget: 1000,
      feeRate: 0.001,
      fillsFirst: false,
      partialFills: false,
    });
    sim.tick(100, 1000);
    sim.act({ type: 'set_sl', sl: null, ts: 1500 });
    sim.tick(98.9, 2000);
    expect(sim.state.status).toBe('running');
    expect(sim.state.config.sl).toBeNull();
  });
});
