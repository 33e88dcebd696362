/**
 * Pending-order (open lot) actions of the Grid Bot DCA: add funds, sell at market, forget, auto-fund,
 * and `lots(state)`. The money is worked out in the comments.
 *
 * Market: amount step 0.00001, price step 0.01, minimum cost 5 USDT, fees 0.1 % in quote. Bot: A = 50 USDT,
 * TP 1 %, separation 1 %, # OS 0 (no ladder buys, so only the lot's own orders show up), started at 50,000:
 *
 *   entry b-1      market buy 50 / 50,000 = 0.001 BTC at 50,000, fee 0.05 USDT → lot b-1
 *   its TP b-2     50,000 × 1.01 = 50,500 for 0.001
 *
 * Add 30 USDT at 45,000:
 *   b-3            market buy ⌊30 / 45,000⌋ = ⌊0.000666…⌋ = 0.00066 BTC (29.7 USDT), fee 0.0297
 *   merged lot     qty 0.001 + 0.00066 = 0.00166, cost 50 + 29.7 = 79.7, fee 0.05 + 0.0297 = 0.0797
 *   new average    79.7 / 0.00166 = 48,012.048192771084… → 48,012.0481927711 (10 decimals)
 *   new TP b-4     48,012.0481927711 × 1.01 = 48,492.1686746988… → 48,492.17 for 0.00166
 *                  (b-2 is cancelled first; b-4 is placed once the cancel is answered)
 * Sell at market at 47,000:
 *   b-4 cancelled, then b-5 market sell 0.00166 → 78.02 USDT, fee 0.07802
 *   pnlNet         0.00166 × (47,000 − 48,012.0481927711) − 0.0797 − 0.07802
 *                  = −1.680000000000026 − 0.15772 = −1.837720000000026 → −1.83772 (10 decimals)
 *                  (the same as 78.02 − 79.7 − 0.0797 − 0.07802 = −1.83772 with the exact cost)
 */
import { describe, expect, it } from 'vitest';
import {
  AUTO_FUND_MAX_STEPS,
  AUTO_FUND_STEP_PCT,
  createDcaBot,
  gridBotDca,
  isQuietTick,
  LOT_ACTIONS,
  quietBand,
  stepDca,
  type DcaConfig,
  type DcaState,
  type StrategyCommand,
  type StrategyEvent,
} from '../../src/index';
import { DcaSim } from './dca-sim';
import { dcaConfig, drive } from './helpers';
import { cancels, codes, logs, places, testMarket, trades } from '../shared/shared-helpers';

function config(overrides: Partial<DcaConfig> = {}): DcaConfig {
  return dcaConfig({ amount: 50, os: 0, market: { ...testMarket(), amountStep: 0.00001 }, ...overrides });
}

const action = (name: string, params: Record<string, unknown>, ts: number): StrategyEvent => ({
  type: 'action',
  name,
  params,
  ts,
});
const addFunds = (lotId: string, amount: unknown, ts: number) =>
  action(LOT_ACTIONS.addFunds, { lotId, amount }, ts);
const sell = (lotId: string, ts: number) => action(LOT_ACTIONS.sell, { lotId }, ts);
const forget = (lotId: string, ts: number) => action(LOT_ACTIONS.forget, { lotId }, ts);
const autoFund = (lotId: string, enabled: unknown, ts: number) =>
  action(LOT_ACTIONS.autoFund, { lotId, enabled }, ts);
const fill = (id: string, price: number, amount: number, fee: number, ts: number): StrategyEvent => ({
  type: 'order_filled',
  clientOrderId: id,
  price,
  amount,
  fee,
  ts,
});
const cancelled = (id: string, ts: number): StrategyEvent => ({
  type: 'order_cancelled',
  clientOrderId: id,
  ts,
});
const tick = (price: number, ts: number): StrategyEvent => ({ type: 'tick', price, ts });

/** Lot b-1: 0.001 BTC at 50,000 (fee 0.05), its TP b-2 at 50,500 on the venue. */
function lotAt50k(overrides: Partial<DcaConfig> = {}): DcaState {
  const r = drive(createDcaBot('b', config(overrides)), [
    tick(50_000, 1000),
    fill('b-1', 50_000, 0.001, 0.05, 1001),
  ]);
  expect(places(r.commands).map((p) => [p.clientOrderId, p.role, p.price ?? null, p.amount])).toEqual([
    ['b-1', 'entry', null, 0.001],
    ['b-2', 'take_profit', 50_500, 0.001],
  ]);
  return r.state;
}

function refusals(cmds: StrategyCommand[]) {
  return logs(cmds)
    .filter((l) => l.code === 'lot_action_refused')
    .map((l) => l.params);
}

describe('add funds', () => {
  it('merges a market buy into the lot and moves its take profit to the new average (cancel, then place)', () => {
    const s0 = drive(lotAt50k(), [tick(45_000, 2000)]).state;
    const sent = stepDca(s0, addFunds('b-1', 30, 3000));
    expect(sent.commands).toEqual([
      {
        type: 'place_order',
        clientOrderId: 'b-3',
        side: 'buy',
        orderType: 'market',
        amount: 0.00066,
        quoteAmount: 30,
        role: 'add_funds',
        lotId: 'b-1',
      },
    ]);
    expect(gridBotDca.lots!(sent.state)[0]!.busy).toBe('adding');

    const filled = stepDca(sent.state, fill('b-3', 45_000, 0.00066, 0.0297, 3001));
    // The lot is merged and its TP cancelled; nothing is placed before the cancel is answered.
    expect(filled.commands).toEqual([
      {
        type: 'log',
        level: 'info',
        code: 'lot_funds_added',
        params: {
          lot_id: 'b-1',
          amount: 29.7,
          qty: 0.00066,
          price: 45_000,
          fee: 0.0297,
          entry: 48_012.0481927711,
        },
      },
      { type: 'cancel_order', clientOrderId: 'b-2' },
    ]);
    const lot = filled.state.lots[0]!;
    expect(lot).toMatchObject({
      id: 'b-1',
      qty: 0.00166,
      buyPrice: 48_012.0481927711,
      buyFee: 0.0797,
      firstPrice: 50_000,
    });
    expect(filled.state.lotBuys).toEqual([]);

    const moved = stepDca(filled.state, cancelled('b-2', 3002));
    expect(places(moved.commands)).toEqual([
      {
        type: 'place_order',
        clientOrderId: 'b-4',
        side: 'sell',
        orderType: 'limit',
        price: 48_492.17,
        amount: 0.00166,
        role: 'take_profit',
        lotId: 'b-1',
      },
    ]);
    expect(gridBotDca.lots!(moved.state)).toEqual([
      {
        id: 'b-1',
        openedAt: 1001,
        qty: 0.00166,
        entryPrice: 48_012.0481927711,
        // 0.00166 × 48,012.0481927711 = 79.700000000000026 → 79.7 (1e-10)
        cost: 79.7,
        firstPrice: 50_000,
        tpPrice: 48_492.17,
        autoFund: false,
        autoFundSteps: 0,
        busy: null,
      },
    ]);

    // Sell at market at 47,000: the TP is cancelled first, the sale goes once the cancel is answered.
    const s1 = drive(moved.state, [tick(47_000, 4000)]).state;
    const selling = stepDca(s1, sell('b-1', 4001));
    expect(selling.commands).toEqual([{ type: 'cancel_order', clientOrderId: 'b-4' }]);
    expect(gridBotDca.lots!(selling.state)[0]!.busy).toBe('selling');
    const sale = stepDca(selling.state, cancelled('b-4', 4002));
    expect(sale.commands).toEqual([
      {
        type: 'place_order',
        clientOrderId: 'b-5',
        side: 'sell',
        orderType: 'market',
        amount: 0.00166,
        role: 'close',
        lotId: 'b-1',
      },
    ]);
    const done = stepDca(sale.state, fill('b-5', 47_000, 0.00166, 0.07802, 4003));
    expect(trades(done.commands)).toEqual([
      {
        lotId: 'b-1',
        qty: 0.00166,
        buyPrice: 48_012.0481927711,
        sellPrice: 47_000,
        buyTime: 1001,
        sellTime: 4003,
        buyFee: 0.0797,
        sellFee: 0.07802,
        pnlNet: -1.83772,
      },
    ]);
    expect(done.state.lots).toEqual([]);
    expect(done.state.realizedPnl).toBe('-1.83772');
    expect(done.state.closedTrades).toBe(1);
    // No take profit comes back for the sold lot.
    expect(places(drive(done.state, [tick(47_100, 5000)]).commands)).toEqual([]);
  });

  it('a funds fill arriving after the lot closed at its TP opens a lot of its own (nothing is lost)', () => {
    // Add 30 at 50,400: b-3 buys ⌊30 / 50,400⌋ = ⌊0.000595…⌋ = 0.00059. Meanwhile the TP fills:
    // 0.001 × (50,500 − 50,000) − 0.05 − 0.0505 = 0.3995. Then b-3 fills at 50,400 (fee 0.029736):
    // a new lot b-3 (epoch 0, level 0 as its lot was), its TP at 50,400 × 1.01 = 50,904.
    const s0 = drive(lotAt50k(), [tick(50_400, 2000), addFunds('b-1', 30, 2001)]).state;
    const tp = stepDca(s0, fill('b-2', 50_500, 0.001, 0.0505, 2002));
    expect(trades(tp.commands)).toEqual([expect.objectContaining({ lotId: 'b-1', pnlNet: 0.3995 })]);
    expect(trades(tp.commands)[0]!.key).toBeUndefined();
    expect(tp.state.lots).toEqual([]);
    const r = stepDca(tp.state, fill('b-3', 50_400, 0.00059, 0.029736, 2003));
    expect(r.state.lots).toEqual([
      expect.objectContaining({
        id: 'b-3',
        epoch: 0,
        level: 0,
        qty: 0.00059,
        buyPrice: 50_400,
        buyFee: 0.029736,
      }),
    ]);
    expect(codes(r.commands)).toEqual(['lot_opened']);
    expect(places(r.commands)).toEqual([
      expect.objectContaining({
        clientOrderId: 'b-4',
        role: 'take_profit',
        price: 50_904,
        amount: 0.00059,
        lotId: 'b-3',
      }),
    ]);
  });

  it('a partly filled funds buy that is then cancelled merges the part that filled', () => {
    // 0.0003 of 0.00066 filled at 45,000 (fee 0.0135): qty 0.0013, cost 50 + 13.5 = 63.5,
    // average 63.5 / 0.0013 = 48,846.153846153846… → 48,846.1538461538.
    const s0 = drive(lotAt50k(), [tick(45_000, 2000), addFunds('b-1', 30, 2001)]).state;
    const r = drive(s0, [
      {
        type: 'order_partially_filled',
        clientOrderId: 'b-3',
        filled: 0.0003,
        price: 45_000,
        fee: 0.0135,
        ts: 2002,
      },
      cancelled('b-3', 2003),
    ]);
    expect(r.state.lots[0]).toMatchObject({ qty: 0.0013, buyPrice: 48_846.1538461538, buyFee: 0.0635 });
    expect(cancels(r.commands)).toEqual(['b-2']);
    expect(r.state.lotBuys).toEqual([]);
  });

  it('a refused funds buy is logged and changes nothing else (no buy back-off)', () => {
    const s0 = drive(lotAt50k(), [tick(45_000, 2000), addFunds('b-1', 30, 2001)]).state;
    const r = stepDca(s0, {
      type: 'order_rejected',
      clientOrderId: 'b-3',
      reason: 'insufficient_funds',
      ts: 2002,
    });
    expect(logs(r.commands)).toEqual([
      {
        type: 'log',
        level: 'warn',
        code: 'insufficient_funds',
        params: { role: 'add_funds', reason: 'insufficient_funds', lot_id: 'b-1' },
      },
    ]);
    expect(r.commands.length).toBe(1);
    expect(r.state.buyRetryAt).toBeNull();
    expect(r.state.lots[0]).toEqual(s0.lots[0]);
    expect(gridBotDca.lots!(r.state)[0]!.busy).toBeNull();
  });

  it('below the market minimum nothing is sent (logged as below_min_cost)', () => {
    // ⌊3 / 45,000⌋ = 0.00006 → 2.7 USDT < 5.
    const s0 = drive(lotAt50k(), [tick(45_000, 2000)]).state;
    const r = stepDca(s0, addFunds('b-1', 3, 2001));
    expect(places(r.commands)).toEqual([]);
    expect(logs(r.commands)).toEqual([
      expect.objectContaining({
        code: 'below_min_cost',
        params: expect.objectContaining({
          role: 'add_funds',
          reason: 'min_cost',
          amount: 0.00006,
          lot_id: 'b-1',
        }),
      }),
    ]);
    expect(r.state.lotBuys ?? []).toEqual([]);
  });

  it('a stop waits for a funds buy in flight and sells the merged lot', () => {
    // close_market while b-3 (0.00066) is on the venue: the TP is cancelled, the close waits for b-3's
    // fill, then sells 0.001 + 0.00066 = 0.00166 at market.
    const s0 = drive(lotAt50k(), [tick(45_000, 2000), addFunds('b-1', 30, 2001)]).state;
    const r = drive(s0, [{ type: 'stop', mode: 'close_market', ts: 2002 }, cancelled('b-2', 2003)]);
    expect(cancels(r.commands)).toEqual(['b-2']);
    expect(places(r.commands)).toEqual([]);
    expect(r.state.status).toBe('stopping');
    const merged = stepDca(r.state, fill('b-3', 45_000, 0.00066, 0.0297, 2004));
    expect(places(merged.commands)).toEqual([
      expect.objectContaining({ clientOrderId: 'b-4', role: 'close', orderType: 'market', amount: 0.00166 }),
    ]);
  });
});

describe('sell at market', () => {
  it('without a take profit on the venue sells at once', () => {
    // The TP was refused for funds (retried after 60 s): nothing to cancel. Sold at 50,200 (fee 0.0502):
    // 0.001 × 200 − 0.05 − 0.0502 = 0.0998.
    const s0 = drive(lotAt50k(), [
      { type: 'order_rejected', clientOrderId: 'b-2', reason: 'insufficient_funds', ts: 1002 },
      tick(50_200, 2000),
    ]).state;
    expect(s0.lots[0]!.tp).toBeNull();
    const r = stepDca(s0, sell('b-1', 2001));
    expect(r.commands).toEqual([
      {
        type: 'place_order',
        clientOrderId: 'b-3',
        side: 'sell',
        orderType: 'market',
        amount: 0.001,
        role: 'close',
        lotId: 'b-1',
      },
    ]);
    // While it is being sold, no take profit is placed for it (even after the TP retry time).
    expect(places(drive(r.state, [tick(50_250, 100_000)]).commands)).toEqual([]);
    const done = stepDca(r.state, fill('b-3', 50_200, 0.001, 0.0502, 2002));
    expect(trades(done.commands)).toEqual([
      expect.objectContaining({ lotId: 'b-1', qty: 0.001, pnlNet: 0.0998 }),
    ]);
    expect(done.state.lots).toEqual([]);
    expect(done.state.realizedPnl).toBe('0.0998');
  });

  it('whose take profit had filled in part: two trades with distinct keys', () => {
    // The TP sold 0.0004 at 50,500 (fee 0.0202) before the sale: trade 1 = 0.0004 × 500 − 0.02 (its share
    // 0.4 of the buy fee 0.05) − 0.0202 = 0.1598, key 'b-1#b-2'. The rest 0.0006 (fee 0.03) is sold at
    // 50,300 (fee 0.03018): 0.0006 × 300 − 0.03 − 0.03018 = 0.11982, key absent (= lot id).
    const s0 = drive(lotAt50k(), [
      {
        type: 'order_partially_filled',
        clientOrderId: 'b-2',
        filled: 0.0004,
        price: 50_500,
        fee: 0.0202,
        ts: 2000,
      },
      tick(50_300, 2001),
    ]).state;
    const r = drive(s0, [sell('b-1', 2002), cancelled('b-2', 2003)]);
    expect(cancels(r.commands)).toEqual(['b-2']);
    expect(places(r.commands)).toEqual([
      expect.objectContaining({ clientOrderId: 'b-3', role: 'close', orderType: 'market', amount: 0.0006 }),
    ]);
    const done = stepDca(r.state, fill('b-3', 50_300, 0.0006, 0.03018, 2004));
    const all = [...trades(r.commands), ...trades(done.commands)];
    expect(all).toEqual([
      expect.objectContaining({ lotId: 'b-1', key: 'b-1#b-2', qty: 0.0004, buyFee: 0.02, pnlNet: 0.1598 }),
      expect.objectContaining({ lotId: 'b-1', qty: 0.0006, buyFee: 0.03, pnlNet: 0.11982 }),
    ]);
    expect(all[1]!.key).toBeUndefined();
    expect(done.state.realizedPnl).toBe('0.27962');
  });

  it('when the take profit fills before its cancel lands, the lot simply closed at its TP', () => {
    const s0 = drive(lotAt50k(), [tick(50_450, 2000), sell('b-1', 2001)]).state;
    const r = drive(s0, [fill('b-2', 50_500, 0.001, 0.0505, 2002), cancelled('b-2', 2003)]);
    expect(trades(r.commands)).toEqual([expect.objectContaining({ lotId: 'b-1', pnlNet: 0.3995 })]);
    expect(places(r.commands)).toEqual([]);
    expect(r.state.lots).toEqual([]);
  });

  it('a refused sale logs close_failed and the take profit comes back', () => {
    const s0 = drive(lotAt50k(), [tick(50_200, 2000), sell('b-1', 2001), cancelled('b-2', 2002)]).state;
    expect(s0.lots[0]!.close?.clientOrderId).toBe('b-3');
    const r = stepDca(s0, {
      type: 'order_rejected',
      clientOrderId: 'b-3',
      reason: 'insufficient_funds',
      ts: 2003,
    });
    expect(logs(r.commands)[0]).toEqual({
      type: 'log',
      level: 'warn',
      code: 'close_failed',
      params: { lot_id: 'b-1', reason: 'insufficient_funds' },
    });
    expect(places(r.commands)).toEqual([
      expect.objectContaining({ clientOrderId: 'b-4', role: 'take_profit', price: 50_500, amount: 0.001 }),
    ]);
    expect(r.state.lots[0]!.action).toBeNull();
    // A venue-cancelled sale (nothing filled) does the same.
    const s1 = drive(r.state, [sell('b-1', 2004), cancelled('b-4', 2005)]).state;
    const c = stepDca(s1, cancelled('b-5', 2006));
    expect(codes(c.commands)).toContain('close_failed');
    expect(places(c.commands)).toEqual([expect.objectContaining({ role: 'take_profit', lotId: 'b-1' })]);
  });

  it('a lot too small to sell is logged and keeps its take profit', () => {
    // minCost 60: the lot (0.001 × 50,200 = 50.2) cannot be sold at market, so it is kept.
    const s0 = drive(
      createDcaBot('b', config({ amount: 61, market: { ...testMarket(), amountStep: 0.001, minCost: 60 } })),
      [tick(61_000, 1000), fill('b-1', 61_000, 0.001, 0.061, 1001), tick(50_200, 2000)],
    ).state;
    const r = stepDca(s0, sell('b-1', 2001));
    expect(cancels(r.commands)).toEqual(['b-2']);
    const after = stepDca(r.state, cancelled('b-2', 2002));
    expect(logs(after.commands)).toEqual([
      expect.objectContaining({
        code: 'below_min_cost',
        params: expect.objectContaining({ role: 'close', lot_id: 'b-1' }),
      }),
    ]);
    // The TP (0.001 × 61,610 = 61.61 ≥ 60) is placed again.
    expect(places(after.commands)).toEqual([expect.objectContaining({ role: 'take_profit', price: 61_610 })]);
  });
});

describe('forget', () => {
  it('drops the lot without a trade once its TP is cancelled; its level is bought again later', () => {
    // The spec's default bot: 20 USDT a buy, TP 1 %, separation 1 %, 3 OS, start at 100.
    // b-1 entry 0.2 at 100 → TP b-2 at 101, buys b-3 99, b-4 98.01, b-5 97.02. The price dips to 98.5:
    // b-3 fills 0.202 at 99 (lot b-3 on level 1, TP b-6 at 99.99), level 4 (96.05) is armed (b-7).
    const base = dcaConfig();
    const s0 = drive(createDcaBot('b', base), [
      tick(100, 1000),
      fill('b-1', 100, 0.2, 0.02, 1001),
      tick(98.5, 2000),
      fill('b-3', 99, 0.202, 0.019998, 2001),
    ]).state;
    expect(s0.lots.map((l) => [l.id, l.level, l.tp?.clientOrderId])).toEqual([
      ['b-1', 0, 'b-2'],
      ['b-3', 1, 'b-6'],
    ]);
    const asked = stepDca(s0, forget('b-3', 2002));
    expect(asked.commands).toEqual([{ type: 'cancel_order', clientOrderId: 'b-6' }]);
    expect(gridBotDca.lots!(asked.state)[1]!.busy).toBe('deleting');
    const gone = stepDca(asked.state, cancelled('b-6', 2003));
    expect(trades(gone.commands)).toEqual([]);
    expect(logs(gone.commands)).toEqual([
      { type: 'log', level: 'info', code: 'lot_forgotten', params: { lot_id: 'b-3', qty: 0.202, price: 99 } },
    ]);
    expect(gone.state.lots.map((l) => l.id)).toEqual(['b-1']);
    expect(gone.state.realizedPnl).toBe('0');
    // Level 1 (99) is free: once the price is above it again it is armed (the lowest buy, 96.05, goes).
    const up = stepDca(gone.state, tick(99.5, 3000));
    expect(cancels(up.commands)).toEqual(['b-7']);
    expect(places(up.commands)).toEqual([
      expect.objectContaining({ role: 'ladder_buy', level: 1, price: 99 }),
    ]);
    const rebought = drive(up.state, [
      cancelled('b-7', 3001),
      tick(98.9, 4000),
      fill('b-8', 99, 0.202, 0.019998, 4001),
    ]);
    expect(rebought.state.lots.map((l) => [l.id, l.level])).toEqual([
      ['b-1', 0],
      ['b-8', 1],
    ]);
  });

  it('a lot without a TP on the venue is forgotten at once; a partly sold TP is booked first', () => {
    const s0 = drive(lotAt50k(), [
      { type: 'order_rejected', clientOrderId: 'b-2', reason: 'exchange_error', ts: 1002 },
    ]).state;
    const r = stepDca(s0, forget('b-1', 2000));
    expect(codes(r.commands)).toEqual(['lot_forgotten']);
    expect(r.state.lots).toEqual([]);

    // TP sold 0.0004 at 50,500 (fee 0.0202) before the cancel: 0.1598 booked (key b-1#b-2), 0.0006 forgotten.
    const s1 = drive(lotAt50k(), [
      {
        type: 'order_partially_filled',
        clientOrderId: 'b-2',
        filled: 0.0004,
        price: 50_500,
        fee: 0.0202,
        ts: 2000,
      },
      forget('b-1', 2001),
      cancelled('b-2', 2002),
    ]);
    expect(trades(s1.commands)).toEqual([
      expect.objectContaining({ key: 'b-1#b-2', qty: 0.0004, pnlNet: 0.1598 }),
    ]);
    expect(logs(s1.commands).find((l) => l.code === 'lot_forgotten')!.params).toEqual({
      lot_id: 'b-1',
      qty: 0.0006,
      price: 50_000,
    });
    expect(s1.state.lots).toEqual([]);
  });
});

describe('refusals and invalid input', () => {
  it('refuses unknown, busy and completed lots and bots that are not running', () => {
    const s0 = drive(lotAt50k(), [tick(45_000, 2000)]).state;
    expect(refusals(stepDca(s0, sell('nope', 2001)).commands)).toEqual([
      { lot_id: 'nope', action: 'sell', reason: 'unknown_lot' },
    ]);
    // Busy: a funds buy in flight refuses another, a sale and a forget (auto-fund may still be toggled).
    const adding = stepDca(s0, addFunds('b-1', 30, 2001)).state;
    for (const e of [addFunds('b-1', 30, 2002), sell('b-1', 2002), forget('b-1', 2002)]) {
      const r = stepDca(adding, e);
      expect(refusals(r.commands)).toEqual([expect.objectContaining({ lot_id: 'b-1', reason: 'adding' })]);
      expect(r.state).toEqual(adding);
      expect(r.commands.length).toBe(1);
    }
    expect(codes(stepDca(adding, autoFund('b-1', true, 2002)).commands)).toEqual(['auto_fund_set']);
    // Selling / deleting refuse every other action but auto-fund.
    const selling = stepDca(s0, sell('b-1', 2001)).state;
    expect(refusals(stepDca(selling, addFunds('b-1', 30, 2002)).commands)[0]!.reason).toBe('selling');
    expect(refusals(stepDca(selling, sell('b-1', 2002)).commands)[0]!.reason).toBe('selling');
    const deleting = stepDca(s0, forget('b-1', 2001)).state;
    expect(refusals(stepDca(deleting, sell('b-1', 2002)).commands)[0]!.reason).toBe('deleting');
    // Completed: the lot closed at its TP.
    const closed = drive(s0, [fill('b-2', 50_500, 0.001, 0.0505, 2001)]).state;
    expect(refusals(stepDca(closed, forget('b-1', 2002)).commands)).toEqual([
      { lot_id: 'b-1', action: 'forget', reason: 'unknown_lot' },
    ]);
    // Not running: starting (entry not filled), stopping, stopped.
    const starting = drive(createDcaBot('b', config()), [tick(50_000, 1000)]).state;
    expect(refusals(stepDca(starting, addFunds('b-1', 30, 1001)).commands)[0]!.reason).toBe('not_running');
    const stopping = stepDca(s0, { type: 'stop', mode: 'cancel_only', ts: 2001 }).state;
    expect(stopping.status).toBe('stopping');
    expect(refusals(stepDca(stopping, sell('b-1', 2002)).commands)[0]!.reason).toBe('not_running');
    const stopped = stepDca(stopping, cancelled('b-2', 2002)).state;
    expect(stopped.status).toBe('stopped');
    const r = stepDca(stopped, autoFund('b-1', true, 2003));
    expect(refusals(r.commands)).toEqual([{ lot_id: 'b-1', action: 'auto_fund', reason: 'not_running' }]);
    expect(r.state).toEqual(stopped);
  });

  it('logs invalid_value for bad params and unknown actions, changing nothing', () => {
    const s0 = drive(lotAt50k(), [tick(45_000, 2000)]).state;
    const cases: [StrategyEvent, string][] = [
      [addFunds('b-1', -5, 2001), 'amount'],
      [addFunds('b-1', Number.NaN, 2001), 'amount'],
      [addFunds('b-1', '30', 2001), 'amount'],
      [action(LOT_ACTIONS.sell, {}, 2001), 'lot_id'],
      [action(LOT_ACTIONS.forget, { lotId: 7 }, 2001), 'lot_id'],
      [autoFund('b-1', 'yes', 2001), 'enabled'],
      [action('add_funds', { amount: 30 }, 2001), 'action'],
      [action('constructor', { lotId: 'b-1' }, 2001), 'action'],
      [action('__proto__', { lotId: 'b-1' }, 2001), 'action'],
    ];
    for (const [e, field] of cases) {
      const r = stepDca(s0, e);
      expect(r.commands).toEqual([{ type: 'log', level: 'warn', code: 'invalid_value', params: { field } }]);
      expect(r.state).toEqual(s0);
    }
  });
});

describe('auto-fund', () => {
  /** Lot b-1 (0.001 at 50,000) on a simulated account (fees 0.1 %): market orders fill at the tick. */
  function simWithLot(overrides: Partial<DcaConfig> = {}, budget = 1000): DcaSim {
    const sim = new DcaSim('b', config(overrides), {
      budget,
      feeRate: 0.001,
      fillsFirst: false,
      partialFills: false,
    });
    sim.tick(50_000, 1000);
    expect(sim.state.lots.map((l) => l.id)).toEqual(['b-1']);
    sim.act(autoFund('b-1', true, 1001));
    return sim;
  }
  const autoLogs = (sim: DcaSim) =>
    logs(sim.commands)
      .filter((l) => l.code === 'auto_fund' || l.code === 'auto_fund_skipped')
      .map((l) => [l.code, l.params]);

  it('steps at −10/−20/−30/−40 % of the first entry, one amount A each, and no 5th', () => {
    expect([AUTO_FUND_STEP_PCT, AUTO_FUND_MAX_STEPS]).toEqual([10, 4]);
    const sim = simWithLot();
    expect(codes(sim.commands)).toContain('auto_fund_set');
    // Triggers: 45,000, 40,000, 35,000, 30,000 (from firstPrice 50,000 even as the average moves).
    sim.tick(45_001, 2000);
    expect(autoLogs(sim)).toEqual([]);
    sim.tick(45_000, 3000);
    sim.tick(40_000.01, 4000);
    sim.tick(40_000, 5000);
    sim.tick(35_000, 6000);
    sim.tick(30_000, 7000);
    sim.tick(20_000, 8000);
    sim.tick(10_000, 9000);
    expect(autoLogs(sim)).toEqual([
      ['auto_fund', { lot_id: 'b-1', step: 1, drawdown_pct: -10, amount: 50 }],
      ['auto_fund', { lot_id: 'b-1', step: 2, drawdown_pct: -20, amount: 50 }],
      ['auto_fund', { lot_id: 'b-1', step: 3, drawdown_pct: -30, amount: 50 }],
      ['auto_fund', { lot_id: 'b-1', step: 4, drawdown_pct: -40, amount: 50 }],
    ]);
    const buys = places(sim.commands).filter((p) => p.role === 'add_funds');
    // ⌊50 / 45,000⌋ = 0.00111, ⌊50 / 40,000⌋ = 0.00125, ⌊50 / 35,000⌋ = 0.00142, ⌊50 / 30,000⌋ = 0.00166
    expect(buys.map((b) => [b.amount, b.quoteAmount, b.lotId])).toEqual([
      [0.00111, 50, 'b-1'],
      [0.00125, 50, 'b-1'],
      [0.00142, 50, 'b-1'],
      [0.00166, 50, 'b-1'],
    ]);
    // qty 0.001 + 0.00111 + 0.00125 + 0.00142 + 0.00166 = 0.00644; cost 50 + 49.95 + 50 + 49.7 + 49.8 = 249.45
    const [lot] = gridBotDca.lots!(sim.state);
    expect(lot).toMatchObject({
      qty: 0.00644,
      firstPrice: 50_000,
      autoFund: true,
      autoFundSteps: 4,
      busy: null,
    });
    expect(lot!.cost).toBeCloseTo(249.45, 8);
    // The TP follows the average: 249.45 / 0.00644 = 38,734.47… × 1.01 → 39,121.82.
    expect(sim.openSells().map((o) => [o.cmd.price, o.cmd.amount])).toEqual([[39_121.82, 0.00644]]);
  });

  it('takes one step per tick when the price falls several steps at once', () => {
    const sim = simWithLot();
    sim.tick(20_000, 2000); // −60 %: step 1 only
    expect(autoLogs(sim).map(([, p]) => (p as { step: number }).step)).toEqual([1]);
    sim.tick(20_000, 3000);
    sim.tick(20_000, 4000);
    sim.tick(20_000, 5000);
    sim.tick(20_000, 6000);
    expect(autoLogs(sim).map(([, p]) => (p as { step: number }).step)).toEqual([1, 2, 3, 4]);
    expect(autoLogs(sim)[1]![1]).toMatchObject({ drawdown_pct: -60 });
  });

  it('waits while the lot is busy without using the step', () => {
    const s0 = drive(lotAt50k(), [autoFund('b-1', true, 1500), tick(45_000, 2000)]);
    expect(
      places(s0.commands)
        .filter((p) => p.role === 'add_funds')
        .map((p) => p.clientOrderId),
    ).toEqual(['b-3']);
    // b-3 not filled yet: a tick at 40,000 takes nothing (the lot is 'adding').
    const r = stepDca(s0.state, tick(40_000, 3000));
    expect(r.commands.filter((c) => c.type !== 'log')).toEqual([]);
    expect(r.state.lots[0]!.autoFundSteps).toBe(1);
  });

  it('a step below the minimum is skipped and logged, and used', () => {
    // minCost 49.99: the entry (50) passes, step 1 (0.00111 × 45,000 = 49.95) does not, step 2
    // (0.00125 × 40,000 = 50) does.
    const sim = simWithLot({ market: { ...testMarket(), amountStep: 0.00001, minCost: 49.99 } });
    sim.tick(45_000, 2000);
    sim.tick(44_000, 3000);
    sim.tick(40_000, 4000);
    expect(autoLogs(sim)).toEqual([
      ['auto_fund_skipped', { lot_id: 'b-1', step: 1, reason: 'min_cost' }],
      ['auto_fund', { lot_id: 'b-1', step: 2, drawdown_pct: -20, amount: 50 }],
    ]);
    expect(sim.state.lots[0]!.autoFundSteps).toBe(2);
  });

  it('a step refused for funds is logged as skipped', () => {
    // Budget 60: the entry takes 50.05, the step (49.95 + fee) does not fit.
    const sim = simWithLot({}, 60);
    sim.tick(45_000, 2000);
    expect(autoLogs(sim)).toEqual([
      ['auto_fund', { lot_id: 'b-1', step: 1, drawdown_pct: -10, amount: 50 }],
      ['auto_fund_skipped', { lot_id: 'b-1', step: 1, reason: 'insufficient_funds' }],
    ]);
    expect(sim.state.lots[0]!.autoFundSteps).toBe(1);
    expect(sim.state.lots[0]!.qty).toBe(0.001);
  });

  it('turning auto-fund off stops it', () => {
    const sim = simWithLot();
    sim.tick(45_000, 2000);
    sim.act(autoFund('b-1', false, 2001));
    expect(logs(sim.commands).find((l) => l.code === 'auto_fund_set' && l.params.enabled === 0)).toBeTruthy();
    sim.tick(40_000, 3000);
    sim.tick(30_000, 4000);
    expect(autoLogs(sim).length).toBe(1);
    expect(gridBotDca.lots!(sim.state)[0]).toMatchObject({ autoFund: false, autoFundSteps: 1 });
  });

  it('the quiet band never swallows a trigger tick', () => {
    const s0 = drive(lotAt50k(), [tick(46_000, 2000)]).state;
    const before = quietBand(s0)!;
    // Without auto-fund the band reaches below 45,000 (nothing would happen there)…
    expect(isQuietTick(before, 45_000, 3000)).toBe(true);
    const on = stepDca(s0, autoFund('b-1', true, 2001)).state;
    // …with it on, a tick at or below the trigger 45,000 is stepped, and it takes the step.
    const band = quietBand(on)!;
    expect(band.low).toBe(45_000);
    expect(isQuietTick(band, 45_000, 3000)).toBe(false);
    expect(isQuietTick(band, 44_000, 3000)).toBe(false);
    expect(isQuietTick(band, 45_000.01, 3000)).toBe(true);
    // A quiet tick above the trigger is exactly what stepDca does with it.
    expect(stepDca(on, tick(45_000.01, 3000)).commands).toEqual([]);
    const r = stepDca(on, tick(45_000, 3000));
    expect(codes(r.commands)).toContain('auto_fund');
    // The step taken is persisted; the next trigger is 40,000.
    expect(gridBotDca.samePersisted(r.state, on)).toBe(false);
    const next = quietBand(
      drive(r.state, [fill('b-3', 45_000, 0.00111, 0.04995, 3001), cancelled('b-2', 3002)]).state,
    );
    expect(next!.low).toBe(40_000);
  });
});

describe('determinism and old states', () => {
  const events: StrategyEvent[] = [
    tick(50_000, 1000),
    fill('b-1', 50_000, 0.001, 0.05, 1001),
    autoFund('b-1', true, 1002),
    tick(45_000, 2000),
    fill('b-3', 45_000, 0.00111, 0.04995, 2001),
    cancelled('b-2', 2002),
    addFunds('b-1', 30, 2003),
    fill('b-5', 45_000, 0.00066, 0.0297, 2004),
    cancelled('b-4', 2005),
    sell('b-1', 2006),
    cancelled('b-6', 2007),
    fill('b-7', 45_500, 0.00277, 0.126035, 2008),
  ];

  it('the same state and event give the same result; the input state is never mutated', () => {
    let state = deepFreeze(createDcaBot('b', config()));
    const all: StrategyCommand[] = [];
    for (const e of events) {
      const before = JSON.stringify(state);
      const a = stepDca(state, e);
      const b = stepDca(state, e);
      expect(b).toEqual(a);
      expect(JSON.stringify(state)).toBe(before);
      // Also through a JSON round trip (the state is stored as JSON).
      expect(stepDca(JSON.parse(before) as DcaState, e).commands).toEqual(a.commands);
      all.push(...a.commands);
      state = deepFreeze(a.state);
    }
    // The scenario did what it says: two merges, a sale of the whole lot.
    expect(codes(all).filter((c) => c === 'lot_funds_added').length).toBe(2);
    expect(trades(all)).toEqual([expect.objectContaining({ lotId: 'b-1', qty: 0.00277 })]);
    expect(state.lots).toEqual([]);
  });

  it('states stored before these fields existed keep working', () => {
    const s0 = drive(lotAt50k(), [tick(45_000, 2000)]).state;
    const old = JSON.parse(JSON.stringify(s0)) as DcaState & Record<string, unknown>;
    delete old.lotBuys;
    expect(old.lots[0]).not.toHaveProperty('firstPrice');
    expect(gridBotDca.lots!(old)).toEqual([
      {
        id: 'b-1',
        openedAt: 1001,
        qty: 0.001,
        entryPrice: 50_000,
        cost: 50,
        firstPrice: 50_000,
        tpPrice: 50_500,
        autoFund: false,
        autoFundSteps: 0,
        busy: null,
      },
    ]);
    const r = drive(old, [addFunds('b-1', 30, 3000), fill('b-3', 45_000, 0.00066, 0.0297, 3001)]);
    expect(r.state.lots[0]).toMatchObject({ qty: 0.00166, firstPrice: 50_000 });
    expect(gridBotDca.samePersisted(old, old)).toBe(true);
  });
});

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}
