/**
 * Scenario: the user stops a bot holding two lots (0.2 at 100 and 0.202 at 99) at price 99.5.
 *
 * close_market: cancel the 3 waiting buys and 2 take profits, then sell both lots at market:
 *   lot 0: pnl = 0.2 × (99.5 − 100) − 0.02 − 0.2 × 99.5 × 0.001     = −0.1 − 0.02 − 0.0199     = −0.1399
 *   lot 1: pnl = 0.202 × (99.5 − 99) − 0.019998 − 0.202 × 99.5 × 0.001
 *              = 0.101 − 0.019998 − 0.020099                         = 0.060903
 *   realized = −0.1399 + 0.060903 = −0.078997
 * cancel_only: cancel the orders and keep both lots (assets stay on the account); nothing is sold.
 */
import { describe, expect, it } from 'vitest';
import { createDcaBot } from '../../src/index';
import { DcaSim } from './dca-sim';
import { cancels, dcaConfig, drive, logs, paperBot, places, start, trades } from './helpers';

function twoLots(): DcaSim {
  const sim = paperBot();
  sim.tick(100, 1000);
  sim.tick(98.5, 2000);
  sim.tick(99.5, 3000);
  return sim;
}

describe('stop modes', () => {
  it('close_market sells every lot at market after the cancels, then reports stopped', () => {
    const sim = twoLots();
    sim.act({ type: 'stop', mode: 'close_market', ts: 4000 });
    expect(trades(sim.commands).map((t) => [t.qty, t.sellPrice, t.pnlNet])).toEqual([
      [0.2, 99.5, -0.1399],
      [0.202, 99.5, 0.060903],
    ]);
    expect(sim.state.realizedPnl).toBe('-0.078997');
    expect(sim.state.status).toBe('stopped');
    expect(sim.state.lots).toEqual([]);
    expect(sim.base).toBe(0n);
    expect(sim.commands.at(-1)).toEqual({ type: 'stopped', reason: 'user_close_market' });
  });

  it('cancel_only cancels every order and keeps the lots', () => {
    const sim = twoLots();
    sim.act({ type: 'stop', mode: 'cancel_only', ts: 4000 });
    expect(trades(sim.commands)).toEqual([]);
    expect(sim.book.size).toBe(0);
    expect(sim.state.status).toBe('stopped');
    expect(sim.state.lots.map((l) => l.qty)).toEqual([0.2, 0.202]);
    expect(sim.commands.at(-1)).toEqual({ type: 'stopped', reason: 'user_cancel_only' });
  });

  it('waits for the venue to confirm the cancels before selling (the base is locked in the TP)', () => {
    const s0 = drive(start().state, [
      { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 0.2, fee: 0.02, ts: 1000 },
    ]).state;
    const stop = drive(s0, [{ type: 'stop', mode: 'close_market', ts: 2000 }]);
    expect(stop.state.status).toBe('stopping');
    expect(places(stop.commands)).toEqual([]);
    // The TP filled before the cancel reached the venue: the lot is closed by it, nothing left to sell.
    const raced = drive(stop.state, [
      { type: 'order_cancelled', clientOrderId: 'b-3', ts: 2001 },
      { type: 'order_cancelled', clientOrderId: 'b-4', ts: 2001 },
      { type: 'order_filled', clientOrderId: 'b-2', price: 101, amount: 0.2, fee: 0.0202, ts: 2001 },
    ]);
    expect(raced.state.status).toBe('stopping');
    const done = drive(raced.state, [{ type: 'order_cancelled', clientOrderId: 'b-5', ts: 2002 }]);
    expect(places(done.commands)).toEqual([]);
    expect(done.state.status).toBe('stopped');
    expect(trades(raced.commands).map((t) => t.pnlNet)).toEqual([0.1598]);
  });

  it('a stop before the first tick stops at once', () => {
    const { state, commands } = drive(createDcaBot('b', dcaConfig()), [
      { type: 'stop', mode: 'close_market', ts: 1 },
    ]);
    expect(state.status).toBe('stopped');
    expect(commands.at(-1)).toEqual({ type: 'stopped', reason: 'user_close_market' });
  });
  it('a close that never reached the venue (cancelled, nothing filled) is sent again, at most 3 times', () => {
    const s0 = drive(start().state, [
      { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 0.2, fee: 0.02, ts: 1000 },
      { type: 'stop', mode: 'close_market', ts: 2000 },
      { type: 'order_cancelled', clientOrderId: 'b-2', ts: 2001 },
      { type: 'order_cancelled', clientOrderId: 'b-3', ts: 2001 },
      { type: 'order_cancelled', clientOrderId: 'b-4', ts: 2001 },
    ]);
    const first = drive(s0.state, [{ type: 'order_cancelled', clientOrderId: 'b-5', ts: 2001 }]);
    expect(places(first.commands).map((p) => [p.clientOrderId, p.role])).toEqual([['b-6', 'close']]);
    const second = drive(first.state, [{ type: 'order_cancelled', clientOrderId: 'b-6', ts: 2002 }]);
    expect(places(second.commands).map((p) => p.clientOrderId)).toEqual(['b-7']);
    const third = drive(second.state, [
      { type: 'order_rejected', clientOrderId: 'b-7', reason: 'exchange_error', ts: 2003 },
    ]);
    expect(places(third.commands).map((p) => p.clientOrderId)).toEqual(['b-8']);
    const gaveUp = drive(third.state, [{ type: 'order_cancelled', clientOrderId: 'b-8', ts: 2004 }]);
    expect(places(gaveUp.commands)).toEqual([]);
    expect(gaveUp.state.status).toBe('stopped');
    expect(gaveUp.state.lots.map((l) => l.id)).toEqual(['b-1']);
    expect(logs(gaveUp.commands)[0]).toMatchObject({
      code: 'close_failed',
      params: { attempt: 3, max_attempts: 3 },
    });
  });

  it('a close refused for funds is not retried: the lot is kept and the bot stops', () => {
    const sim = twoLots();
    const s = drive(sim.state, [{ type: 'stop', mode: 'close_market', ts: 4000 }]);
    const cancelled = drive(
      s.state,
      cancels(s.commands).map((id) => ({ type: 'order_cancelled' as const, clientOrderId: id, ts: 4001 })),
    );
    const closes = places(cancelled.commands);
    expect(closes).toHaveLength(2);
    const done = drive(cancelled.state, [
      {
        type: 'order_rejected',
        clientOrderId: closes[0]!.clientOrderId,
        reason: 'insufficient_funds',
        ts: 4002,
      },
      {
        type: 'order_filled',
        clientOrderId: closes[1]!.clientOrderId,
        price: 99.5,
        amount: 0.202,
        fee: 0.020099,
        ts: 4002,
      },
    ]);
    expect(places(done.commands)).toEqual([]);
    expect(done.state.status).toBe('stopped');
    expect(done.state.lots.map((l) => l.id)).toEqual(['b-1']);
    expect(trades(done.commands).map((t) => t.pnlNet)).toEqual([0.060903]);
  });
});
