/**
 * Grid Bot DCA SHORT (the mirror of LONG) and liquidations, with worked numbers. Spec defaults: A = 20
 * USDT, T = 1 %, S = 1 %, N = 3; price step 0.01, amount step 0.0001, minimum cost 5, fees 0.1 %.
 *
 * Start at P0 = 100: entry market SELL of 20 / 100 = 0.2 (fee 0.02).
 * Ladder sells at P0 × 1.01^k rounded UP: 101, 102.01, 103.0301 → 103.04; amounts 20 / L_k rounded down:
 *   0.198 (0.19801…), 0.196 (0.19606…), 0.194 (0.19409…).
 * The entry lot's take profit: a reduceOnly BUY at 100 × 0.99 = 99 (rounded down).
 * Range: P0 × (1 − T) = 99 ≤ price ≤ P0 × (1 + S)^N = 103.0301.
 * TP fills at 99 (fee 0.0198): pnl_net = 0.2 × (100 − 99) − 0.02 − 0.0198 = 0.1602 (sell 100, buy 99).
 */
import { describe, expect, it } from 'vitest';
import {
  LOT_ACTIONS,
  createDcaBot,
  quietBand,
  rangeHigh,
  rangeLow,
  summarizeDca,
  type DcaState,
} from '../../src/index';
import { dcaConfig, drive, places, trades } from './helpers';
import { codes, stops } from '../shared/shared-helpers';
import { classicConfig, drive as driveClassic } from '../classic-dca/classic-helpers';
import { createClassicDca } from '../../src/index';

const short = (o = {}) => dcaConfig({ direction: 'SHORT', derivatives: true, ...o });
const brief = (cmds: ReturnType<typeof places>) =>
  cmds.map((p) => [
    p.clientOrderId,
    p.side,
    p.orderType,
    p.price ?? null,
    p.amount,
    p.role,
    p.reduceOnly ?? false,
  ]);

function started(o = {}): DcaState {
  return drive(createDcaBot('b', short(o)), [
    { type: 'tick', price: 100, ts: 1000 },
    { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 0.2, fee: 0.02, ts: 1000 },
  ]).state;
}

describe('Grid Bot DCA SHORT', () => {
  it('enters with a market sell, rests the ladder sells above and a reduceOnly take-profit buy', () => {
    const a = drive(createDcaBot('b', short()), [{ type: 'tick', price: 100, ts: 1000 }]);
    expect(places(a.commands)).toEqual([
      {
        type: 'place_order',
        clientOrderId: 'b-1',
        side: 'sell',
        orderType: 'market',
        amount: 0.2,
        role: 'entry',
        level: 0,
      },
    ]);
    const b = drive(a.state, [
      { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 0.2, fee: 0.02, ts: 1000 },
    ]);
    expect(brief(places(b.commands))).toEqual([
      ['b-2', 'buy', 'limit', 99, 0.2, 'take_profit', true],
      ['b-3', 'sell', 'limit', 101, 0.198, 'ladder_buy', false],
      ['b-4', 'sell', 'limit', 102.01, 0.196, 'ladder_buy', false],
      ['b-5', 'sell', 'limit', 103.04, 0.194, 'ladder_buy', false],
    ]);
    expect(rangeLow(b.state)).toBe(99);
    expect(rangeHigh(b.state)).toBeCloseTo(103.0301, 10);
    // The quiet band of the fresh ladder mirrors LONG's: the whole range.
    const band = quietBand(b.state)!;
    expect(band.low).toBeCloseTo(99, 10);
    expect(band.high).toBeCloseTo(103.0301, 10);
  });

  it('records the mirrored trade when the take profit buys back, and re-arms the level', () => {
    const s = started();
    const r = drive(s, [
      { type: 'tick', price: 99, ts: 2000 },
      { type: 'order_filled', clientOrderId: 'b-2', price: 99, amount: 0.2, fee: 0.0198, ts: 2000 },
    ]);
    expect(trades(r.commands)).toEqual([
      {
        lotId: 'b-1',
        qty: 0.2,
        buyPrice: 99,
        sellPrice: 100,
        buyTime: 2000,
        sellTime: 1000,
        buyFee: 0.0198,
        sellFee: 0.02,
        pnlNet: 0.1602,
      },
    ]);
    expect(r.state.realizedPnl).toBe('0.1602');
    // A ladder sell fills at 101: its lot's take profit buys at 101 × 0.99 = 99.99.
    const l = drive(s, [
      { type: 'tick', price: 101.2, ts: 2000 },
      { type: 'order_filled', clientOrderId: 'b-3', price: 101, amount: 0.198, fee: 0.019998, ts: 2000 },
    ]);
    expect(brief(places(l.commands))).toEqual([
      ['b-6', 'buy', 'limit', 99.99, 0.198, 'take_profit', true],
      ['b-7', 'sell', 'limit', 104.07, 0.1921, 'ladder_buy', false],
    ]);
    // Unrealized at 102: 0.2 × (100 − 102) + 0.198 × (101 − 102) − 0.02 − 0.019998 = −0.637998.
    expect(summarizeDca(l.state, 102).unrealizedPnl).toBe(-0.637998);
  });

  it('SL is above, TP+ below; the closes are reduceOnly market buys', () => {
    const s = started({ sl: 105 });
    const hit = drive(s, [{ type: 'tick', price: 105, ts: 2000 }]);
    expect(codes(hit.commands)).toEqual(['sl_hit', 'stopping']);
    const closed = drive(hit.state, [
      ...['b-2', 'b-3', 'b-4', 'b-5'].map((id) => ({
        type: 'order_cancelled' as const,
        clientOrderId: id,
        ts: 2001,
      })),
    ]);
    expect(brief(places(closed.commands))).toEqual([['b-6', 'buy', 'market', null, 0.2, 'close', true]]);
    // Bought back at 105 (fee 0.021): 0.2 × (100 − 105) − 0.02 − 0.021 = −1.041.
    const done = drive(closed.state, [
      { type: 'order_filled', clientOrderId: 'b-6', price: 105, amount: 0.2, fee: 0.021, ts: 2002 },
    ]);
    expect(trades(done.commands)[0]!.pnlNet).toBe(-1.041);
    expect(stops(done.commands)).toEqual(['sl_hit']);
    const tpPlus = drive(started({ tpPlus: 98 }), [
      { type: 'tick', price: 98.5, ts: 2000 },
      { type: 'tick', price: 98, ts: 3000 },
    ]);
    // 98.5 is below the range (out_of_range); 98 reaches TP+ (below the price for a SHORT).
    expect(codes(tpPlus.commands)).toEqual(['out_of_range', 'tp_plus_hit', 'stopping']);
    expect(tpPlus.state.stopReason).toBe('tp_plus_hit');
  });

  it('add funds is a market sell merged into the lot; auto-fund steps 10 % above the first entry', () => {
    const s = started();
    const add = drive(s, [
      { type: 'action', name: LOT_ACTIONS.addFunds, params: { lotId: 'b-1', amount: 20 }, ts: 2000 },
    ]);
    expect(brief(places(add.commands))).toEqual([['b-6', 'sell', 'market', null, 0.2, 'add_funds', false]]);
    // Merged: 0.4 at 100; the old take profit is cancelled and a new one placed at 99.
    const merged = drive(add.state, [
      { type: 'order_filled', clientOrderId: 'b-6', price: 100, amount: 0.2, fee: 0.02, ts: 2000 },
      { type: 'order_cancelled', clientOrderId: 'b-2', ts: 2001 },
    ]);
    expect(merged.state.lots[0]!.qty).toBe(0.4);
    expect(brief(places(merged.commands))).toContainEqual([
      'b-7',
      'buy',
      'limit',
      99,
      0.4,
      'take_profit',
      true,
    ]);
    const auto = drive(s, [
      { type: 'action', name: LOT_ACTIONS.autoFund, params: { lotId: 'b-1', enabled: true }, ts: 2000 },
      { type: 'tick', price: 109.99, ts: 3000 },
    ]);
    expect(places(auto.commands).filter((p) => p.role === 'add_funds')).toEqual([]);
    // At 110 = 100 × 1.1 the first step sells 20 USDT (0.1818 at 110), logged with drawdown −10 %.
    const step = drive(auto.state, [{ type: 'tick', price: 110, ts: 4000 }]);
    expect(brief(places(step.commands).filter((p) => p.role === 'add_funds'))).toEqual([
      [expect.any(String), 'sell', 'market', null, 0.1818, 'add_funds', false],
    ]);
    expect(step.commands.find((c) => c.type === 'log' && c.code === 'auto_fund')).toMatchObject({
      params: { step: 1, drawdown_pct: -10 },
    });
  });

  it('a LONG on derivatives also sends reduceOnly take profits; on spot nothing changes', () => {
    const d = drive(createDcaBot('b', dcaConfig({ derivatives: true })), [
      { type: 'tick', price: 100, ts: 1000 },
      { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 0.2, fee: 0.02, ts: 1000 },
    ]);
    expect(brief(places(d.commands))[1]).toEqual(['b-2', 'sell', 'limit', 101, 0.2, 'take_profit', true]);
    const spot = drive(createDcaBot('b', dcaConfig()), [
      { type: 'tick', price: 100, ts: 1000 },
      { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 0.2, fee: 0.02, ts: 1000 },
    ]);
    expect(places(spot.commands).some((p) => 'reduceOnly' in p)).toBe(false);
  });
});

describe('liquidation', () => {
  it('Grid Bot DCA: every open lot closes at the liquidation price, then the bot stops', () => {
    const s = drive(started(), [
      { type: 'tick', price: 101.2, ts: 2000 },
      { type: 'order_filled', clientOrderId: 'b-3', price: 101, amount: 0.198, fee: 0.019998, ts: 2000 },
    ]).state;
    // The runner delivered the cancels first; then the liquidation at 150.
    const l = drive(s, [{ type: 'liquidated', price: 150, contracts: 0.398, ts: 3000 }]);
    expect(codes(l.commands)).toEqual(['liquidated', 'lot_closed', 'lot_closed']);
    // 0.2 × (100 − 150) − 0.02 = −10.02; 0.198 × (101 − 150) − 0.019998 = −9.721998.
    expect(trades(l.commands).map((t) => [t.lotId, t.buyPrice, t.sellPrice, t.pnlNet])).toEqual([
      ['b-1', 150, 100, -10.02],
      ['b-3', 150, 101, -9.721998],
    ]);
    expect(stops(l.commands)).toEqual(['liquidated']);
    expect(l.state.status).toBe('stopped');
    expect(l.state.realizedPnl).toBe('-19.741998');
  });

  it('classic DCA: the position is sold at the liquidation price into the cycle trade', () => {
    const s = driveClassic(createClassicDca('b', classicConfig()), [
      { type: 'tick', price: 100, ts: 1000 },
      { type: 'order_filled', clientOrderId: 'b-1', price: 100, amount: 1, fee: 0.1, ts: 1000 },
    ]).state;
    const l = driveClassic(s, [{ type: 'liquidated', price: 60, contracts: 1, ts: 2000 }]);
    // 1 × (60 − 100) − 0.1 = −40.1.
    expect(trades(l.commands).map((t) => [t.qty, t.buyPrice, t.sellPrice, t.pnlNet])).toEqual([
      [1, 100, 60, -40.1],
    ]);
    expect(stops(l.commands)).toEqual(['liquidated']);
    expect(l.state.status).toBe('stopped');
  });
});
