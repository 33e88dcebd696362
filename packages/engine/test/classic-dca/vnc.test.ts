/**
 * VNC: the residual of a classic bot (2.0204 BTC that cost 200.1991992 USDT incl. fees) sold at its own TP.
 *
 *   sell price = 200.1991992 / 2.0204 × (1 + 0.5%) = 99.08889289… × 1.005 = 99.5843… → 99.59 (up)
 *   set_tp_vnc 2:  99.08889289… × 1.02 = 101.0706… → 101.08
 *   add_vnc 1 BTC for 95 USDT: qty 3.0204, cost 295.1991992 → 97.7351… × 1.02 = 99.6898… → 99.69
 *   fill at 99.69, fee 0.3011: pnl = 3.0204 × 99.69 − 295.1991992 − 0.3011 = 301.103676 − 295.5002992
 *                                  = 5.6033768; buyPrice = 295.1991992 / 3.0204 (fees inside, buyFee 0)
 */
import { describe, expect, it } from 'vitest';
import {
  classicVnc,
  createVnc,
  stepVnc,
  summarizeVnc,
  VncConfigError,
  type StrategyEvent,
  type VncConfig,
  type VncState,
} from '../../src/index';
import { cancels, codes, places, stops, trades } from './classic-helpers';
import { VenueSim } from './classic-sim';

const config: VncConfig = {
  symbol: 'BTC/USDT',
  market: { amountStep: 0.0001, priceStep: 0.01, minAmount: 0, minCost: 5, takerFee: 0.001, makerFee: 0.001 },
  tpVncPct: 0.5,
};
const first = { source: 'bot-1', qty: 2.0204, cost: '200.1991992', buyTime: 1000 };

function drive(state: VncState, events: StrategyEvent[]) {
  const commands = [];
  for (const e of events) {
    const r = stepVnc(state, e);
    state = r.state;
    commands.push(...r.commands);
  }
  return { state, commands };
}

describe('VNC', () => {
  it('places one sell of the whole qty at cost / qty × (1 + tp) on the first tick', () => {
    const d = drive(createVnc('v', config, first), [{ type: 'tick', price: 98, ts: 2000 }]);
    expect(places(d.commands)).toEqual([
      {
        type: 'place_order',
        clientOrderId: 'v-1',
        side: 'sell',
        orderType: 'limit',
        price: 99.59,
        amount: 2.0204,
        role: 'vnc_sell',
        lotId: 'v-v1',
      },
    ]);
    expect(summarizeVnc(d.state)).toEqual({
      qty: 2.0204,
      cost: 200.1991992,
      sellPrice: 99.59,
      tpVncPct: 0.5,
    });
    // More ticks change nothing.
    expect(drive(d.state, [{ type: 'tick', price: 99, ts: 3000 }]).commands).toEqual([]);
  });

  it('set_tp_vnc moves the sell; add_vnc merges once per source; the fill records and stops', () => {
    let d = drive(createVnc('v', config, first), [
      { type: 'tick', price: 98, ts: 2000 },
      { type: 'action', name: 'set_tp_vnc', params: { pct: 2 }, ts: 2000 },
    ]);
    expect(cancels(d.commands)).toEqual(['v-1']);
    d = drive(d.state, [{ type: 'order_cancelled', clientOrderId: 'v-1', ts: 2000 }]);
    expect(places(d.commands).map((p) => [p.price, p.amount])).toEqual([[101.08, 2.0204]]);

    const add = {
      type: 'action',
      name: 'add_vnc',
      params: { source: 'bot-2', qty: 1, cost: 95, buyTime: 500 },
      ts: 3000,
    } as const;
    d = drive(d.state, [add]);
    expect(codes(d.commands)).toEqual(['vnc_merged']);
    expect(cancels(d.commands)).toEqual(['v-2']);
    const again = drive(d.state, [add]);
    expect(again.commands).toEqual([]);
    expect(again.state).toEqual(d.state);
    expect(drive(d.state, [{ ...add, params: { ...add.params, source: 'bot-1' } }]).commands).toEqual([]);
    d = drive(d.state, [{ type: 'order_cancelled', clientOrderId: 'v-2', ts: 3000 }]);
    expect(places(d.commands).map((p) => [p.clientOrderId, p.price, p.amount])).toEqual([
      ['v-3', 99.69, 3.0204],
    ]);
    expect(d.state).toMatchObject({
      qty: '3.0204',
      cost: '295.1991992',
      buyTime: 500,
      sources: ['bot-1', 'bot-2'],
    });

    d = drive(d.state, [
      { type: 'order_filled', clientOrderId: 'v-3', price: 99.69, amount: 3.0204, fee: 0.3011, ts: 9000 },
    ]);
    const [t] = trades(d.commands);
    expect(t).toMatchObject({
      lotId: 'v-v1',
      qty: 3.0204,
      sellPrice: 99.69,
      buyFee: 0,
      sellFee: 0.3011,
      buyTime: 500,
      sellTime: 9000,
      pnlNet: 5.6033768,
    });
    expect(t!.buyPrice).toBeCloseTo(295.1991992 / 3.0204, 10);
    expect(stops(d.commands)).toEqual(['sold']);
    expect(classicVnc.realizedPnl(d.state)).toBe('5.6033768');
  });

  it('a partial fill reduces qty and cost pro rata; the rest keeps selling', () => {
    let d = drive(createVnc('v', config, { source: 's', qty: 2, cost: 200, buyTime: 0 }), [
      { type: 'tick', price: 100, ts: 1 },
    ]);
    d = drive(d.state, [
      { type: 'order_partially_filled', clientOrderId: 'v-1', filled: 0.5, price: 100.5, fee: 0.05, ts: 2 },
    ]);
    expect(d.state).toMatchObject({ qty: '1.5', cost: '150' });
    expect(d.commands).toEqual([]);
    d = drive(d.state, [
      { type: 'order_filled', clientOrderId: 'v-1', price: 100.5, amount: 2, fee: 0.201, ts: 3 },
    ]);
    // 2 × 100.5 − 200 − 0.201 = 0.799
    expect(trades(d.commands).map((x) => [x.qty, x.buyPrice, x.pnlNet])).toEqual([[2, 100, 0.799]]);
    expect(stops(d.commands)).toEqual(['sold']);
  });

  it('below the minimum: logged once and held', () => {
    const d = drive(createVnc('v', config, { source: 's', qty: 0.01, cost: 0.9, buyTime: 0 }), [
      { type: 'tick', price: 100, ts: 1 },
      { type: 'tick', price: 100, ts: 2 },
    ]);
    expect(codes(d.commands)).toEqual(['vnc_below_min']);
    expect(places(d.commands)).toEqual([]);
    expect(d.state.status).toBe('running');
  });

  it('stop close_market sells at market and records; cancel_only just cancels', () => {
    let d = drive(createVnc('v', config, first), [
      { type: 'tick', price: 98, ts: 2000 },
      { type: 'stop', mode: 'close_market', ts: 2000 },
      { type: 'order_cancelled', clientOrderId: 'v-1', ts: 2000 },
    ]);
    expect(places(d.commands).map((p) => [p.orderType, p.amount, p.role])).toEqual([
      ['limit', 2.0204, 'vnc_sell'],
      ['market', 2.0204, 'close'],
    ]);
    d = drive(d.state, [
      { type: 'order_filled', clientOrderId: 'v-2', price: 98, amount: 2.0204, fee: 0.198, ts: 2001 },
    ]);
    expect(trades(d.commands)).toHaveLength(1);
    expect(stops(d.commands)).toEqual(['user_close_market']);

    const c = drive(createVnc('v', config, first), [
      { type: 'tick', price: 98, ts: 2000 },
      { type: 'stop', mode: 'cancel_only', ts: 2000 },
      { type: 'order_cancelled', clientOrderId: 'v-1', ts: 2000 },
    ]);
    expect(stops(c.commands)).toEqual(['user_cancel_only']);
    expect(c.state.qty).toBe('2.0204');
  });

  it('sells through the venue simulator, a retry after a refusal', () => {
    const sim = new VenueSim<VncState>(createVnc('v', config, first), stepVnc, {
      budget: 0,
      baseBudget: 2.0204,
      feeRate: 0.001,
      amountStep: 0.0001,
    });
    sim.tick(98, 1000);
    sim.tick(99.6, 2000);
    expect(sim.state.status).toBe('stopped');
    expect(trades(sim.commands).map((t) => t.sellPrice)).toEqual([99.59]);
    expect(sim.book.size).toBe(0);

    let d = drive(createVnc('v', config, first), [
      { type: 'tick', price: 98, ts: 1000 },
      { type: 'order_rejected', clientOrderId: 'v-1', reason: 'exchange_error', ts: 1000 },
      { type: 'tick', price: 98, ts: 30_000 },
    ]);
    expect(places(d.commands)).toHaveLength(1);
    d = drive(d.state, [{ type: 'tick', price: 98, ts: 61_000 }]);
    expect(places(d.commands).map((p) => p.clientOrderId)).toEqual(['v-2']);
  });

  it('validates its input', () => {
    expect(() => createVnc('v', { ...config, tpVncPct: 0.3 }, first)).toThrow(VncConfigError);
    expect(() => createVnc('v', config, { ...first, qty: 0 })).toThrow(VncConfigError);
    const s = createVnc('v', config, first);
    const bad = drive(s, [{ type: 'action', name: 'set_tp_vnc', params: { pct: 7 }, ts: 1 }]);
    expect(codes(bad.commands)).toEqual(['invalid_value']);
    expect(classicVnc.samePersisted(s, drive(s, [{ type: 'tick', price: 1, ts: 1 }]).state)).toBe(false);
  });
});
