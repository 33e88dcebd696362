/**
 * Scenario: buy 20 USDT at 100, TP 1% fills at 101, fees 0.1%.
 *
 *   qty      = 20 / 100                 = 0.2 BTC
 *   buy fee  = 0.2 × 100 × 0.001        = 0.02 USDT
 *   sell fee = 0.2 × 101 × 0.001        = 0.0202 USDT
 *   pnl_net  = 0.2 × (101 − 100) − 0.02 − 0.0202 = 0.2 − 0.0402 = 0.1598 USDT
 *
 * The level-0 lot is closed, so level 0 (100) is free and again among the 3 highest free levels below
 * 101: it is re-armed and the lowest waiting buy (97.02, b-5) is cancelled to keep 3.
 */
import { describe, expect, it } from 'vitest';
import { drive, cancels, logs, places, start, trades } from './helpers';

describe('take profit of the first lot', () => {
  it('records the trade with pnl_net after both fees and re-arms the freed level', () => {
    const s0 = drive(start().state, [
      { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 0.2, fee: 0.02, ts: 1000 },
    ]).state;
    const { state, commands } = drive(s0, [
      { type: 'tick', price: 101, ts: 5000 },
      { type: 'order_filled', clientOrderId: 'b-2', price: 101, amount: 0.2, fee: 0.0202, ts: 5000 },
    ]);
    expect(trades(commands)).toEqual([
      {
        lotId: 'b-1',
        qty: 0.2,
        buyPrice: 100,
        sellPrice: 101,
        buyTime: 1000,
        sellTime: 5000,
        buyFee: 0.02,
        sellFee: 0.0202,
        pnlNet: 0.1598,
      },
    ]);
    expect(state.realizedPnl).toBe('0.1598');
    expect(state.closedTrades).toBe(1);
    expect(state.lots).toEqual([]);
    expect(cancels(commands)).toEqual(['b-5']);
    expect(places(commands).map((p) => [p.clientOrderId, p.price, p.amount])).toEqual([['b-6', 100, 0.2]]);
    expect(logs(commands).find((l) => l.code === 'lot_closed')?.params).toMatchObject({ pnl_net: 0.1598 });
  });

  it('ten such trades add up to exactly 1.598 (no float drift)', () => {
    let state = drive(start().state, [
      { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 0.2, fee: 0.02, ts: 1000 },
    ]).state;
    // 0.1598 × 10 in floats is 1.5979999999999999; the decimal sum is exactly 1.598.
    for (let i = 0; i < 10; i++) {
      const lot = state.lots[0]!;
      state = drive(state, [
        { type: 'tick', price: 101, ts: 10_000 + i * 10 },
        {
          type: 'order_filled',
          clientOrderId: lot.tp!.clientOrderId,
          price: 101,
          amount: 0.2,
          fee: 0.0202,
          ts: 10_000 + i * 10,
        },
        { type: 'tick', price: 99.9, ts: 10_001 + i * 10 },
      ]).state;
      // The re-armed level-0 buy at 100 fills: a new 0.2 lot at 100 with the same fee.
      const buy0 = state.waitingBuys.find((w) => w.level === 0)!;
      state = drive(state, [
        {
          type: 'order_filled',
          clientOrderId: buy0.clientOrderId,
          price: 100,
          amount: 0.2,
          fee: 0.02,
          ts: 10_002 + i * 10,
        },
      ]).state;
    }
    expect(state.realizedPnl).toBe('1.598');
    expect(state.closedTrades).toBe(10);
  });
});
