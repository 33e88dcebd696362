/**
 * Scenario: the bot starts at 100 with A = 20 USDT, TP 1%, separation 1%, 3 OS (amount step 0.0001,
 * price step 0.01, fees 0.1%).
 *
 *   entry:  market buy of 20 USDT → 20 / 100 = 0.2 BTC                                  (id b-1)
 *   fill:   0.2 at 100, fee 0.2 × 100 × 0.001 = 0.02 USDT → lot at level 0
 *   TP:     100 × 1.01 = 101, sell 0.2                                                 (id b-2)
 *   ladder: L1 = 100 × 0.99   = 99        → 20 / 99    = 0.20202… → 0.202              (id b-3)
 *           L2 = 100 × 0.99^2 = 98.01     → 20 / 98.01 = 0.20406… → 0.204              (id b-4)
 *           L3 = 100 × 0.99^3 = 97.0299   → 97.02 (buy prices round down)
 *                                          → 20 / 97.02 = 0.20614… → 0.2061           (id b-5)
 */
import { describe, expect, it } from 'vitest';
import { createDcaBot, DcaConfigError, stepDca } from '../../src/index';
import { dcaConfig, drive, logs, places, start } from './helpers';

describe('Grid Bot DCA start', () => {
  it('anchors at the first tick and sends one market buy of A', () => {
    const { state, commands } = start();
    expect(state.status).toBe('starting');
    expect(state.anchor).toBe(100);
    expect(places(commands)).toEqual([
      {
        type: 'place_order',
        clientOrderId: 'b-1',
        side: 'buy',
        orderType: 'market',
        amount: 0.2,
        quoteAmount: 20,
        role: 'entry',
        level: 0,
      },
    ]);
    expect(logs(commands).map((l) => l.code)).toEqual(['started']);
    // A second tick while the entry is on its way sends nothing new.
    const again = stepDca(state, { type: 'tick', price: 100.5, ts: 2000 });
    expect(places(again.commands)).toEqual([]);
  });

  it('opens the level-0 lot with its take profit and arms N buys below the price', () => {
    const s0 = start().state;
    const { state, commands } = drive(s0, [
      { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 0.2, fee: 0.02, ts: 1500 },
    ]);
    expect(state.status).toBe('running');
    expect(state.lots).toHaveLength(1);
    expect(state.lots[0]).toMatchObject({
      id: 'b-1',
      level: 0,
      qty: 0.2,
      buyPrice: 100,
      buyFee: 0.02,
      buyTime: 1500,
    });
    expect(
      places(commands).map((p) => [p.clientOrderId, p.side, p.orderType, p.price, p.amount, p.role]),
    ).toEqual([
      ['b-2', 'sell', 'limit', 101, 0.2, 'take_profit'],
      ['b-3', 'buy', 'limit', 99, 0.202, 'ladder_buy'],
      ['b-4', 'buy', 'limit', 98.01, 0.204, 'ladder_buy'],
      ['b-5', 'buy', 'limit', 97.02, 0.2061, 'ladder_buy'],
    ]);
    expect(state.waitingBuys.map((w) => w.level)).toEqual([1, 2, 3]);
    expect(state.seq).toBe(6);
  });

  it('refuses configurations it cannot run', () => {
    // SHORT needs a derivatives market (on spot there is nothing to sell first).
    expect(() => createDcaBot('b', dcaConfig({ direction: 'SHORT' }))).toThrow(DcaConfigError);
    try {
      createDcaBot('b', dcaConfig({ direction: 'SHORT' }));
    } catch (e) {
      expect((e as DcaConfigError).code).toBe('short_needs_derivatives');
    }
    expect(() => createDcaBot('b', dcaConfig({ direction: 'SHORT', derivatives: true }))).not.toThrow();
    expect(() => createDcaBot('b', dcaConfig({ amount: 0 }))).toThrow(/amount/);
    expect(() => createDcaBot('b', dcaConfig({ tpPct: -1 }))).toThrow(/tpPct/);
    expect(() => createDcaBot('b', dcaConfig({ sepPct: 100 }))).toThrow(/sepPct/);
    expect(() => createDcaBot('b', dcaConfig({ os: 2.5 }))).toThrow(/os/);
    expect(() => createDcaBot('', dcaConfig())).toThrow(/botId/);
    expect(() => createDcaBot('b', dcaConfig({ sl: -5 }))).toThrow(/sl/);
  });

  it('stops with an explanation when the entry is below the minimum cost', () => {
    // A = 4 USDT, minimum cost 5 USDT: 4 / 100 = 0.04 BTC, cost 4 < 5.
    const { state, commands } = start('b', { amount: 4 });
    expect(state.status).toBe('stopped');
    expect(places(commands)).toEqual([]);
    expect(logs(commands).find((l) => l.code === 'below_min_cost')?.params).toMatchObject({
      role: 'entry',
      reason: 'min_cost',
      amount: 0.04,
      price: 100,
      cost: '4',
      min_cost: 5,
    });
    expect(commands.at(-1)).toEqual({ type: 'stopped', reason: 'entry_failed' });
  });
});
