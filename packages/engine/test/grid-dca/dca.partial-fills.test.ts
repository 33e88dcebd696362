/**
 * Scenarios: partial fills.
 *
 * A. A ladder buy (0.202 at 99) fills 0.1 (fee 0.0099), then is cancelled by a relocation:
 *    the 0.1 bought becomes a lot of its own with a TP at 99 × 1.01 = 99.99 for 0.1 (cost 9.999 ≥ 5).
 *
 * B. The level-0 TP (0.2 at 101) sells 0.05 (fee 0.05 × 101 × 0.001 = 0.00505), then the user stops
 *    with close_market at 100.5:
 *    trade 1: qty 0.05, buy fee shared pro rata 0.02 × 0.05 / 0.2 = 0.005
 *             pnl = 0.05 × (101 − 100) − 0.005 − 0.00505 = 0.05 − 0.01005 = 0.03995
 *    the lot keeps 0.15 with buy fee 0.015, sold at market at 100.5, fee 0.15 × 100.5 × 0.001 = 0.015075
 *    trade 2: pnl = 0.15 × (100.5 − 100) − 0.015 − 0.015075 = 0.075 − 0.030075 = 0.044925
 *    realized = 0.03995 + 0.044925 = 0.084875
 */
import { describe, expect, it } from 'vitest';
import { drive, places, start, trades } from './helpers';

function running() {
  return drive(start().state, [
    { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 0.2, fee: 0.02, ts: 1000 },
  ]).state;
}

describe('partial fills', () => {
  it('A: a buy cancelled after a partial fill becomes a lot of the filled quantity', () => {
    const s0 = drive(running(), [
      { type: 'tick', price: 99, ts: 2000 },
      { type: 'order_partially_filled', clientOrderId: 'b-3', filled: 0.1, price: 99, fee: 0.0099, ts: 2000 },
      { type: 'tick', price: 99.5, ts: 3000 },
      { type: 'relocate', ts: 3100 },
    ]).state;
    const { state, commands } = drive(s0, [{ type: 'order_cancelled', clientOrderId: 'b-3', ts: 3200 }]);
    const lot = state.lots.find((l) => l.id === 'b-3')!;
    expect(lot).toMatchObject({ qty: 0.1, buyPrice: 99, buyFee: 0.0099, level: 1, epoch: 0 });
    expect(places(commands)).toEqual([
      expect.objectContaining({ side: 'sell', price: 99.99, amount: 0.1, role: 'take_profit', lotId: 'b-3' }),
    ]);
  });

  it('A2: the cancellation may carry the final filled quantity itself', () => {
    const s0 = drive(running(), [{ type: 'relocate', ts: 1500 }]).state;
    const { state } = drive(s0, [
      { type: 'order_cancelled', clientOrderId: 'b-4', ts: 1600, filled: 0.1, price: 98.01, fee: 0.009801 },
    ]);
    expect(state.lots.find((l) => l.id === 'b-4')).toMatchObject({
      qty: 0.1,
      buyPrice: 98.01,
      buyFee: 0.009801,
    });
  });

  it('B: a partly sold lot is closed in two trades whose fees add up exactly', () => {
    const s0 = drive(running(), [
      { type: 'tick', price: 101, ts: 2000 },
      {
        type: 'order_partially_filled',
        clientOrderId: 'b-2',
        filled: 0.05,
        price: 101,
        fee: 0.00505,
        ts: 2000,
      },
      { type: 'tick', price: 100.5, ts: 3000 },
      { type: 'stop', mode: 'close_market', ts: 4000 },
    ]).state;
    const cancelled = drive(s0, [
      // the waiting buys: 99, 98.01 were cancelled; when the price was 101 level 0 (100) was re-armed
      ...s0.waitingBuys.map((w) => ({
        type: 'order_cancelled' as const,
        clientOrderId: w.clientOrderId,
        ts: 4001,
      })),
      { type: 'order_cancelled', clientOrderId: 'b-2', ts: 4001 },
    ]);
    expect(trades(cancelled.commands)).toEqual([
      {
        lotId: 'b-1',
        // A partial sale has a history row of its own: lot id # the sell order's client id.
        key: 'b-1#b-2',
        qty: 0.05,
        buyPrice: 100,
        sellPrice: 101,
        buyTime: 1000,
        sellTime: 4001,
        buyFee: 0.005,
        sellFee: 0.00505,
        pnlNet: 0.03995,
      },
    ]);
    const close = places(cancelled.commands);
    expect(close).toEqual([
      expect.objectContaining({ role: 'close', orderType: 'market', amount: 0.15, lotId: 'b-1' }),
    ]);
    const done = drive(cancelled.state, [
      {
        type: 'order_filled',
        clientOrderId: close[0]!.clientOrderId,
        price: 100.5,
        amount: 0.15,
        fee: 0.015075,
        ts: 4002,
      },
    ]);
    expect(trades(done.commands)).toEqual([
      expect.objectContaining({ qty: 0.15, buyFee: 0.015, sellFee: 0.015075, pnlNet: 0.044925 }),
    ]);
    expect(done.state.realizedPnl).toBe('0.084875');
    expect(done.state.status).toBe('stopped');
  });

  it('stale partial updates (smaller cumulative fill) are ignored', () => {
    const { state } = drive(running(), [
      { type: 'order_partially_filled', clientOrderId: 'b-3', filled: 0.1, price: 99, fee: 0.0099, ts: 2000 },
      {
        type: 'order_partially_filled',
        clientOrderId: 'b-3',
        filled: 0.05,
        price: 99,
        fee: 0.00495,
        ts: 2001,
      },
    ]);
    expect(state.waitingBuys.find((w) => w.clientOrderId === 'b-3')).toMatchObject({
      filled: 0.1,
      fee: 0.0099,
    });
  });
});
