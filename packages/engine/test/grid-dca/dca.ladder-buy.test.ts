/**
 * Scenario: the price falls to 98.5 and the L1 buy at 99 fills, then its TP fills.
 *
 *   qty      = 20 / 99 = 0.20202… → 0.202 BTC (amount step 0.0001)
 *   buy fee  = 0.202 × 99 × 0.001          = 0.019998 USDT
 *   TP price = 99 × 1.01                   = 99.99
 *   ladder   : L1 is now a lot, so it extends one level down:
 *              L4 = 100 × 0.99^4 = 96.059601 → 96.05, 20 / 96.05 = 0.20822… → 0.2082
 *   sell fee = 0.202 × 99.99 × 0.001       = 0.02019798 USDT
 *   pnl_net  = 0.202 × (99.99 − 99) − 0.019998 − 0.02019798
 *            = 0.19998 − 0.04019598          = 0.15978402 USDT
 *
 * Once the L1 lot is closed at 99.99, L1 (99) is free and below the price again: it is re-armed and
 * the lowest buy (L4, 96.05) is cancelled.
 */
import { describe, expect, it } from 'vitest';
import { cancels, drive, places, start, trades } from './helpers';

describe('a ladder buy becomes a lot with its own take profit', () => {
  it('fills, extends the ladder, closes at 99.99 with pnl 0.15978402', () => {
    const s0 = drive(start().state, [
      { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 0.2, fee: 0.02, ts: 1000 },
    ]).state;
    const fell = drive(s0, [
      { type: 'tick', price: 98.5, ts: 2000 },
      { type: 'order_filled', clientOrderId: 'b-3', price: 99, amount: 0.202, fee: 0.019998, ts: 2000 },
    ]);
    expect(fell.state.lots.map((l) => [l.id, l.level, l.qty, l.buyPrice, l.tp?.price])).toEqual([
      ['b-1', 0, 0.2, 100, 101],
      ['b-3', 1, 0.202, 99, 99.99],
    ]);
    expect(places(fell.commands).map((p) => [p.clientOrderId, p.side, p.price, p.amount])).toEqual([
      ['b-6', 'sell', 99.99, 0.202],
      ['b-7', 'buy', 96.05, 0.2082],
    ]);
    expect(fell.state.waitingBuys.map((w) => w.level)).toEqual([2, 3, 4]);

    const rose = drive(fell.state, [
      { type: 'tick', price: 99.99, ts: 3000 },
      { type: 'order_filled', clientOrderId: 'b-6', price: 99.99, amount: 0.202, fee: 0.02019798, ts: 3000 },
    ]);
    expect(trades(rose.commands)).toEqual([
      {
        lotId: 'b-3',
        qty: 0.202,
        buyPrice: 99,
        sellPrice: 99.99,
        buyTime: 2000,
        sellTime: 3000,
        buyFee: 0.019998,
        sellFee: 0.02019798,
        pnlNet: 0.15978402,
      },
    ]);
    expect(cancels(rose.commands)).toEqual(['b-7']);
    expect(places(rose.commands).map((p) => [p.clientOrderId, p.price, p.amount])).toEqual([
      ['b-8', 99, 0.202],
    ]);
    expect(rose.state.waitingBuys.filter((w) => !w.cancelling).map((w) => w.level)).toEqual([2, 3, 1]);
  });

  it('keeps a buy the market crossed until the venue reports its fill (never more than N)', () => {
    const s0 = drive(start().state, [
      { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 0.2, fee: 0.02, ts: 1000 },
    ]).state;
    // The tick at 98.5 arrives before the venue reports the fill of the 99 buy: nothing is cancelled
    // and no fourth buy is placed.
    const { state, commands } = drive(s0, [{ type: 'tick', price: 98.5, ts: 2000 }]);
    expect(commands.filter((c) => c.type === 'place_order' || c.type === 'cancel_order')).toEqual([]);
    expect(state.waitingBuys.map((w) => w.price)).toEqual([99, 98.01, 97.02]);
  });

  it('rounds a take profit up to the price step: 97.02 × 1.01 = 97.9902 → 98', () => {
    const s0 = drive(start().state, [
      { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 0.2, fee: 0.02, ts: 1000 },
      { type: 'tick', price: 97, ts: 2000 },
    ]).state;
    // 0.2061 × 97.02 = 19.995822 USDT spent; fee 0.019995822 → reported as 0.01999582.
    const { commands } = drive(s0, [
      { type: 'order_filled', clientOrderId: 'b-5', price: 97.02, amount: 0.2061, fee: 0.01999582, ts: 2000 },
    ]);
    expect(places(commands).find((p) => p.role === 'take_profit')).toMatchObject({
      price: 98,
      amount: 0.2061,
    });
  });
});
