/**
 * Worked example (the same numbers as docs/bots/classic-dca.md): amount 100 USDT, TP 1%, separation 2%, 3 safety
 * orders, fee 0.1% in quote, amount step 0.0001, price step 0.01, r off, no trend filter.
 *
 * Base (market, tick 100):   qty = 100 / 100 = 1 BTC, quote 100, fee 100 × 0.001 = 0.1
 * Safety levels:             L1 = 100 × 0.98 = 98            → 100 / 98 = 1.02040… → 1.0204 BTC
 *                            L2 = 100 × 0.98² = 96.04        → 100 / 96.04 = 1.04123… → 1.0412 BTC
 *                            L3 = 100 × 0.98³ = 94.1192 → 94.11 (down) → 100 / 94.11 = 1.06258… → 1.0625 BTC
 * First TP:                  100.1 / 1 × 1.01 = 101.101 → 101.11 (up), amount 1
 * Safety L1 fills at 98:     quote 1.0204 × 98 = 99.9992, fee 0.0999992
 * Position:                  qty 2.0204, quote 199.9992, fees 0.1999992, cost 200.1991992
 * Average (dca):             200.1991992 / 2.0204 = 99.08889289…
 * Moved TP:                  99.08889289… × 1.01 = 100.07978182… → 100.08 (up), amount 2.0204
 * TP fills at 100.08:        quote 2.0204 × 100.08 = 202.201632, fee 0.202201632
 * History row:               buyPrice = 199.9992 / 2.0204 = 98.98990298…, buyFee 0.1999992,
 *                            sellPrice 100.08, sellFee 0.202201632
 *                            pnl_net = 202.201632 − 199.9992 − 0.1999992 − 0.202201632 = 1.800231168
 */
import { describe, expect, it } from 'vitest';
import { summarizeClassicDca } from '../../src/index';
import { cancels, codes, create, drive, places, stops, trades } from './classic-helpers';

describe('classic DCA worked example', () => {
  it('base, one safety fill, moved TP, TP fill, one history row', () => {
    let d = drive(create(), [{ type: 'tick', price: 100, ts: 1000 }]);
    expect(places(d.commands)).toEqual([
      {
        type: 'place_order',
        clientOrderId: 'b-1',
        side: 'buy',
        orderType: 'market',
        amount: 1,
        quoteAmount: 100,
        role: 'base',
      },
    ]);

    d = drive(d.state, [
      { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 1, fee: 0.1, ts: 1000 },
    ]);
    const p1 = places(d.commands);
    expect(p1.map((p) => [p.clientOrderId, p.role, p.side, p.price, p.amount, p.level])).toEqual([
      ['b-2', 'safety', 'buy', 98, 1.0204, 1],
      ['b-3', 'safety', 'buy', 96.04, 1.0412, 2],
      ['b-4', 'safety', 'buy', 94.11, 1.0625, 3],
      ['b-5', 'take_profit', 'sell', 101.11, 1, undefined],
    ]);

    // Safety L1 fills: the average changes, the TP is cancelled first…
    d = drive(d.state, [
      { type: 'tick', price: 98, ts: 2000 },
      { type: 'order_filled', clientOrderId: 'b-2', price: 98, amount: 1.0204, fee: 0.0999992, ts: 2000 },
    ]);
    expect(cancels(d.commands)).toEqual(['b-5']);
    expect(places(d.commands)).toEqual([]);
    expect(d.state.position).toEqual({ qty: '2.0204', quote: '199.9992', fee: '0.1999992' });
    const sum = summarizeClassicDca(d.state, 98);
    expect(sum.cost).toBe(200.1991992);
    expect(sum.dca).toBeCloseTo(99.08889289249653, 12);

    // …and the new TP is placed once the cancel is answered.
    d = drive(d.state, [{ type: 'order_cancelled', clientOrderId: 'b-5', ts: 2000 }]);
    expect(places(d.commands).map((p) => [p.clientOrderId, p.price, p.amount, p.lotId])).toEqual([
      ['b-6', 100.08, 2.0204, 'b-c1'],
    ]);

    d = drive(d.state, [
      { type: 'tick', price: 100.08, ts: 3000 },
      {
        type: 'order_filled',
        clientOrderId: 'b-6',
        price: 100.08,
        amount: 2.0204,
        fee: 0.202201632,
        ts: 3000,
      },
    ]);
    const [trade] = trades(d.commands);
    expect(trade).toMatchObject({
      lotId: 'b-c1',
      qty: 2.0204,
      buyTime: 1000,
      sellTime: 3000,
      sellPrice: 100.08,
      buyFee: 0.1999992,
      sellFee: 0.202201632,
      pnlNet: 1.800231168,
    });
    expect(trade!.buyPrice).toBeCloseTo(98.98990298950703, 12);
    expect(d.state.realizedPnl).toBe('1.800231168');
    expect(codes(d.commands)).toContain('cycle_closed');
    // The remaining safety buys are cancelled; r is off: stopped once the cancels are answered.
    expect(cancels(d.commands)).toEqual(['b-3', 'b-4']);
    expect(stops(d.commands)).toEqual([]);
    d = drive(d.state, [
      { type: 'order_cancelled', clientOrderId: 'b-3', ts: 3000 },
      { type: 'order_cancelled', clientOrderId: 'b-4', ts: 3000 },
    ]);
    expect(stops(d.commands)).toEqual(['cycle_done']);
    expect(d.state.status).toBe('stopped');
    expect(d.state.cycles).toBe(1);
    expect(d.state.residual).toBeNull();
  });
});
