/**
 * Scenarios: orders the venue refuses, and orders the bot does not send because they are too small.
 * Every skip is explained in the log.
 */
import { describe, expect, it } from 'vitest';
import { DCA_FIRST_BACKOFF_MS, DCA_TP_RETRY_MS } from '../../src/index';
import { drive, logs, places, start } from './helpers';

function running(overrides = {}) {
  return drive(start('b', overrides).state, [
    { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 0.2, fee: 0.02, ts: 1000 },
  ]).state;
}

describe('rejections and skipped orders', () => {
  it('insufficient funds: frees the levels, logs, and retries after a back-off (no loop)', () => {
    const s0 = running();
    const rej = drive(s0, [
      { type: 'order_rejected', clientOrderId: 'b-3', reason: 'insufficient_funds', ts: 2000 },
      { type: 'order_rejected', clientOrderId: 'b-4', reason: 'insufficient_funds', ts: 2000 },
      { type: 'order_rejected', clientOrderId: 'b-5', reason: 'insufficient_funds', ts: 2000 },
    ]);
    // Nothing is sent again at once: three logs, no new orders.
    expect(places(rej.commands)).toEqual([]);
    expect(logs(rej.commands).map((l) => [l.code, l.params.level, l.params.retry_in_s])).toEqual([
      ['insufficient_funds', 1, 10],
      ['insufficient_funds', 2, 10],
      ['insufficient_funds', 3, 10],
    ]);
    expect(rej.state.waitingBuys).toEqual([]);
    expect(rej.state.buyRetryAt).toBe(2000 + DCA_FIRST_BACKOFF_MS);
    // Ticks during the pause place nothing.
    const waiting = drive(rej.state, [{ type: 'tick', price: 100, ts: 5000 }]);
    expect(places(waiting.commands)).toEqual([]);
    // After the pause the three buys are tried again with new client ids.
    const retry = drive(waiting.state, [{ type: 'tick', price: 100, ts: 12_000 }]);
    expect(places(retry.commands).map((p) => [p.clientOrderId, p.price])).toEqual([
      ['b-6', 99],
      ['b-7', 98.01],
      ['b-8', 97.02],
    ]);
    // Refused again: the pause doubles (20 s).
    const again = drive(retry.state, [
      { type: 'order_rejected', clientOrderId: 'b-6', reason: 'insufficient_funds', ts: 12_000 },
    ]);
    expect(again.state.buyRetryAt).toBe(12_000 + 20_000);
    // A take profit filling frees funds: the pause ends.
    const freed = drive(again.state, [
      { type: 'order_filled', clientOrderId: 'b-2', price: 101, amount: 0.2, fee: 0.0202, ts: 13_000 },
    ]);
    expect(freed.state.buyRetryAt).toBeNull();
  });

  it('below minimum cost: a level is skipped and explained once, not retried every tick', () => {
    // A = 5 USDT, minimum cost 5: the entry 5 / 100 = 0.05 costs exactly 5 (allowed);
    // L1: 5 / 99 = 0.050505… → 0.0505, cost 0.0505 × 99 = 4.9995 < 5 → skipped (and so L2, L3).
    const s0 = drive(start('b', { amount: 5 }).state, [
      { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 0.05, fee: 0.005, ts: 1000 },
    ]);
    expect(places(s0.commands).map((p) => p.role)).toEqual(['take_profit']);
    const skips = logs(s0.commands).filter((l) => l.code === 'below_min_cost');
    expect(skips.map((l) => [l.params.level, l.params.amount, l.params.cost])).toEqual([
      [1, 0.0505, '4.9995'],
      [2, 0.051, '4.99851'],
      [3, 0.0515, '4.99653'],
    ]);
    expect(skips[0]!.params).toMatchObject({
      role: 'ladder_buy',
      min_cost: 5,
      reason: 'min_cost',
      price: 99,
    });
    const later = drive(s0.state, [
      { type: 'tick', price: 99.5, ts: 2000 },
      { type: 'tick', price: 99.6, ts: 3000 },
    ]);
    expect(logs(later.commands)).toEqual([]);
    expect(places(later.commands)).toEqual([]);
  });

  it('a venue min_cost rejection marks the level as skipped', () => {
    const s0 = running();
    const { state, commands } = drive(s0, [
      {
        type: 'order_rejected',
        clientOrderId: 'b-3',
        reason: 'min_cost',
        message: 'Order value too small',
        ts: 2000,
      },
      { type: 'tick', price: 100, ts: 3000 },
    ]);
    expect(state.skippedLevels).toEqual([1]);
    expect(places(commands)).toEqual([]);
    expect(logs(commands)[0]).toMatchObject({
      code: 'below_min_cost',
      params: { reason: 'min_cost', message: 'Order value too small', level: 1 },
    });
  });

  it('a refused take profit is placed again after a minute', () => {
    const s0 = running();
    const rej = drive(s0, [
      {
        type: 'order_rejected',
        clientOrderId: 'b-2',
        reason: 'exchange_error',
        message: 'timeout',
        ts: 2000,
      },
    ]);
    expect(rej.state.lots[0]!.tp).toBeNull();
    expect(logs(rej.commands)[0]).toMatchObject({
      code: 'order_rejected',
      params: { role: 'take_profit', retry_in_s: 60 },
    });
    expect(
      places(drive(rej.state, [{ type: 'tick', price: 100, ts: 2000 + DCA_TP_RETRY_MS - 1 }]).commands),
    ).toEqual([]);
    const retry = drive(rej.state, [{ type: 'tick', price: 100, ts: 2000 + DCA_TP_RETRY_MS }]);
    expect(places(retry.commands)).toEqual([
      expect.objectContaining({
        clientOrderId: 'b-6',
        side: 'sell',
        price: 101,
        amount: 0.2,
        role: 'take_profit',
      }),
    ]);
  });

  it('an entry refused for funds is retried on a later tick; a precision refusal stops the bot', () => {
    const s0 = start().state;
    const rej = drive(s0, [
      { type: 'order_rejected', clientOrderId: 'b-1', reason: 'insufficient_funds', ts: 1000 },
    ]);
    expect(rej.state.status).toBe('starting');
    expect(places(drive(rej.state, [{ type: 'tick', price: 100, ts: 5000 }]).commands)).toEqual([]);
    const retry = drive(rej.state, [{ type: 'tick', price: 102, ts: 11_000 }]);
    expect(places(retry.commands)).toEqual([
      expect.objectContaining({ clientOrderId: 'b-2', role: 'entry', amount: 0.196 }),
    ]);
    expect(retry.state.anchor).toBe(102);

    const stop = drive(s0, [{ type: 'order_rejected', clientOrderId: 'b-1', reason: 'precision', ts: 1000 }]);
    expect(stop.state.status).toBe('stopped');
    expect(stop.commands.at(-1)).toEqual({ type: 'stopped', reason: 'entry_failed' });
  });

  it('events about unknown or settled orders change nothing (safe to re-deliver)', () => {
    const s0 = running();
    const dup = drive(s0, [
      { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 0.2, fee: 0.02, ts: 1000 },
      { type: 'order_filled', clientOrderId: 'zz-9', price: 1, amount: 1, fee: 0, ts: 1000 },
      { type: 'order_cancelled', clientOrderId: 'b-1', ts: 1000 },
    ]);
    expect(dup.commands).toEqual([]);
    expect(dup.state).toEqual(s0);
  });
});
