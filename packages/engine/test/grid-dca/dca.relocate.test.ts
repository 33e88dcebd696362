/**
 * Scenario: relocation. Start at 100 (lot 0: 0.2 at 100, TP 101; buys at 99, 98.01, 97.02).
 *
 * Relocate at 103: the 3 waiting buys are cancelled, the anchor becomes 103 and the ladder is rebuilt
 * from it; lot 0 and its TP at 101 stay:
 *   L1 = 103 × 0.99   = 101.97                       → 20 / 101.97 = 0.19613… → 0.1961
 *   L2 = 103 × 0.9801 = 100.9503   → 100.95          → 20 / 100.95 = 0.19811… → 0.1981
 *   L3 = 103 × 0.970299 = 99.940797 → 99.94          → 20 / 99.94  = 0.20012… → 0.2001
 * RA on: a tick above the range (above P0 × 1.01 = 101) relocates by itself.
 */
import { describe, expect, it } from 'vitest';
import { inRange } from '../../src/index';
import { cancels, drive, logs, places, start } from './helpers';

function running(overrides = {}) {
  return drive(start('b', overrides).state, [
    { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 0.2, fee: 0.02, ts: 1000 },
  ]).state;
}

describe('relocate', () => {
  it('cancels the waiting buys and re-anchors at the current price; lots and TPs stay', () => {
    const s0 = drive(running(), [{ type: 'tick', price: 103, ts: 2000 }]).state;
    expect(inRange(s0, 103)).toBe(false);
    const { state, commands } = drive(s0, [{ type: 'relocate', ts: 2100 }]);
    expect(cancels(commands)).toEqual(['b-3', 'b-4', 'b-5']);
    expect(state.anchor).toBe(103);
    expect(state.epoch).toBe(1);
    expect(places(commands).map((p) => [p.price, p.amount, p.level])).toEqual([
      [101.97, 0.1961, 1],
      [100.95, 0.1981, 2],
      [99.94, 0.2001, 3],
    ]);
    expect(state.lots.map((l) => [l.id, l.tp?.clientOrderId, l.tp?.price])).toEqual([['b-1', 'b-2', 101]]);
    expect(logs(commands).find((l) => l.code === 'relocated')?.params).toEqual({
      previous: 100,
      anchor: 103,
      price: 103,
    });
    expect(inRange(state, 103)).toBe(true);
    // The cancelled buys are settled by the venue's confirmations; nothing else happens.
    const settled = drive(state, [
      { type: 'order_cancelled', clientOrderId: 'b-3', ts: 2200 },
      { type: 'order_cancelled', clientOrderId: 'b-4', ts: 2200 },
      { type: 'order_cancelled', clientOrderId: 'b-5', ts: 2200 },
    ]);
    expect(settled.state.waitingBuys.map((w) => w.price)).toEqual([101.97, 100.95, 99.94]);
    expect(settled.commands.filter((c) => c.type !== 'log')).toEqual([]);
  });

  it('RA relocates by itself when the price rises above the range', () => {
    const { state, commands } = drive(running({ raEnabled: true }), [
      { type: 'tick', price: 101.5, ts: 2000 },
    ]);
    expect(logs(commands).map((l) => l.code)).toEqual(['ra_relocated']);
    expect(state.anchor).toBe(101.5);
    expect(cancels(commands)).toEqual(['b-3', 'b-4', 'b-5']);
    // 101.5 × 0.99 = 100.485 → 100.48
    expect(places(commands)[0]).toMatchObject({ price: 100.48, role: 'ladder_buy', level: 1 });
  });

  it('without RA the bot stays anchored and logs out_of_range once', () => {
    const { state, commands } = drive(running(), [
      { type: 'tick', price: 101.5, ts: 2000 },
      { type: 'tick', price: 102, ts: 3000 },
    ]);
    expect(state.anchor).toBe(100);
    expect(logs(commands).filter((l) => l.code === 'out_of_range')).toHaveLength(1);
    expect(logs(commands).find((l) => l.code === 'out_of_range')?.params).toMatchObject({
      side: 'above',
      high: '101',
    });
    const back = drive(state, [{ type: 'tick', price: 100.5, ts: 4000 }]);
    expect(logs(back.commands).map((l) => l.code)).toEqual(['back_in_range']);
  });

  it('a relocate before the bot runs is skipped with a reason', () => {
    const { commands } = drive(start().state, [{ type: 'relocate', ts: 1200 }]);
    expect(logs(commands).at(-1)).toMatchObject({
      code: 'relocate_skipped',
      params: { reason: 'not_running' },
    });
  });
});
