/**
 * The Signal bot with worked numbers. Market: 0.0001 base step, 5 USDT minimum cost, fees 0.1 %.
 * 100 USDT per signal, at most 250 USDT of position. Prices 2000 then 2500 and 2400.
 */
import { describe, expect, it } from 'vitest';
import {
  SIGNAL_RECENT_MAX,
  SignalConfigError,
  createSignalBot,
  samePersistedSignal,
  signalBot,
  signalSummary,
  stepSignal,
  type SignalConfig,
  type SignalState,
  type StrategyEvent,
} from '../../src/index';
import { codes, driveWith, logs, places, stops, testMarket, trades } from '../shared/shared-helpers';

const config = (o: Partial<SignalConfig> = {}): SignalConfig => ({
  amountQuote: 100,
  maxPositionQuote: 250,
  rules: testMarket(),
  symbol: 'ETH/USDT',
  ...o,
});
const drive = (s: SignalState, events: StrategyEvent[]) => driveWith(stepSignal, s, events);
const tick = (price: number, ts: number): StrategyEvent => ({ type: 'tick', price, ts });
const signal = (seq: number, action: string, amount?: number, ts = 1000): StrategyEvent => ({
  type: 'action',
  name: 'signal',
  params: amount === undefined ? { seq, action } : { seq, action, amount },
  ts,
});
const fill = (id: string, price: number, amount: number, fee: number, ts = 1000): StrategyEvent => ({
  type: 'order_filled',
  clientOrderId: id,
  price,
  amount,
  fee,
  ts,
});

/** Two buys of 100 USDT at 2000: 0.05 ETH each, fee 0.1 each → qty 0.1, cost 200, fees 0.2. */
function twoBuys() {
  return drive(createSignalBot('s', config()), [
    tick(2000, 500),
    signal(1, 'buy'),
    fill('s-0', 2000, 0.05, 0.1),
    signal(2, 'buy'),
    fill('s-1', 2000, 0.05, 0.1),
  ]);
}

describe('the Signal bot', () => {
  it('buy: a market buy of the amount in quote, the base from the last price', () => {
    const r = drive(createSignalBot('s', config()), [tick(2000, 500), signal(1, 'buy')]);
    expect(places(r.commands)).toEqual([
      {
        type: 'place_order',
        clientOrderId: 's-0',
        side: 'buy',
        orderType: 'market',
        amount: 0.05,
        quoteAmount: 100,
        role: 'signal_buy',
        lotId: 'sig-1',
      },
    ]);
    expect(r.state.recent).toEqual([{ seq: 1, action: 'buy', clientOrderIds: ['s-0'], outcome: 'executed' }]);
    const f = drive(r.state, [fill('s-0', 2000, 0.05, 0.1)]);
    // Break-even entry (100 + 0.1) / 0.05 = 2002.
    expect(signalSummary(f.state)).toMatchObject({ qty: 0.05, cost: 100, avgEntry: 2002, lastSeq: 1 });
  });

  it('sizes a buy on the price the signal carries, over a stale last tick', () => {
    // Last tick 2000, but the server read 2500 when it executed the signal: 100 / 2500 = 0.04 ETH.
    const r = drive(createSignalBot('s', config()), [
      tick(2000, 500),
      { type: 'action', name: 'signal', params: { seq: 1, action: 'buy', price: 2500 }, ts: 1000 },
    ]);
    expect(places(r.commands)[0]).toMatchObject({ amount: 0.04, quoteAmount: 100 });
    // With no tick at all, the carried price is enough to trade.
    const cold = drive(createSignalBot('s', config()), [
      { type: 'action', name: 'signal', params: { seq: 1, action: 'buy', price: 2000 }, ts: 1000 },
    ]);
    expect(places(cold.commands)[0]).toMatchObject({ amount: 0.05 });
  });

  it('refuses a buy over the max position and one under the minimum cost', () => {
    const b = twoBuys();
    // Position cost 200 + 100 > 250.
    const over = drive(b.state, [signal(3, 'buy')]);
    expect(places(over.commands)).toEqual([]);
    expect(logs(over.commands)[0]).toMatchObject({
      code: 'signal_skipped',
      params: { seq: 3, reason: 'max_position', position_cost: '200', max_position: 250 },
    });
    // 40 still fits (200 + 40 ≤ 250); 4 USDT buys 0.002 ETH = 4 USDT < 5 minimum.
    const fits = drive(b.state, [signal(3, 'buy', 40)]);
    expect(places(fits.commands).map((p) => [p.amount, p.quoteAmount])).toEqual([[0.02, 40]]);
    const small = drive(b.state, [signal(3, 'buy', 4)]);
    expect(places(small.commands)).toEqual([]);
    expect(logs(small.commands)[0]!.params).toMatchObject({
      reason: 'below_min_cost',
      min_reason: 'min_cost',
    });
    expect(small.state.recent.at(-1)).toEqual({
      seq: 3,
      action: 'buy',
      clientOrderIds: [],
      outcome: 'skipped',
      reason: 'below_min_cost',
    });
  });

  it('buys in flight count against the max position', () => {
    const r = drive(createSignalBot('s', config()), [
      tick(2000, 500),
      signal(1, 'buy'),
      signal(2, 'buy'),
      signal(3, 'buy'),
    ]);
    expect(places(r.commands)).toHaveLength(2);
    expect(r.state.recent.map((o) => o.reason ?? o.outcome)).toEqual([
      'executed',
      'executed',
      'max_position',
    ]);
  });

  it('sell and close: realized PnL with the position’s share of cost and fees', () => {
    const b = twoBuys();
    // sell 50 USDT at 2500 → 0.02 ETH. Its share: cost 200 × 0.02 / 0.1 = 40, buy fees 0.2 × 0.2 = 0.04.
    // pnl = 0.02 × 2500 − 40 − 0.04 − 0.05 (sell fee) = 50 − 40.09 = 9.91.
    const sold = drive(b.state, [tick(2500, 2000), signal(3, 'sell', 50, 2000)]);
    expect(places(sold.commands).map((p) => [p.side, p.amount, p.role, p.lotId])).toEqual([
      ['sell', 0.02, 'signal_sell', 'sig-3'],
    ]);
    const s1 = drive(sold.state, [fill('s-2', 2500, 0.02, 0.05, 2100)]);
    expect(trades(s1.commands)).toEqual([
      {
        lotId: 'sig-3',
        key: 'sig-3',
        qty: 0.02,
        buyPrice: 2000,
        sellPrice: 2500,
        buyTime: 1000,
        sellTime: 2100,
        buyFee: 0.04,
        sellFee: 0.05,
        pnlNet: 9.91,
      },
    ]);
    expect(signalSummary(s1.state)).toMatchObject({ qty: 0.08, cost: 160, pnlQuote: '9.91' });
    // close at 2400: 0.08 ETH, fee 0.192. pnl = 192 − 160 − 0.16 − 0.192 = 31.648; total 41.558.
    const closed = drive(s1.state, [tick(2400, 3000), signal(4, 'close', undefined, 3000)]);
    expect(places(closed.commands).map((p) => [p.side, p.amount])).toEqual([['sell', 0.08]]);
    const s2 = drive(closed.state, [fill('s-3', 2400, 0.08, 0.192, 3100)]);
    expect(trades(s2.commands)[0]).toMatchObject({ qty: 0.08, buyFee: 0.16, sellFee: 0.192, pnlNet: 31.648 });
    expect(signalBot.realizedPnl(s2.state)).toBe('41.558');
    expect(signalSummary(s2.state)).toMatchObject({ qty: 0, avgEntry: 0, cost: 0 });
    // Nothing held: sell and close are skipped.
    const none = drive(s2.state, [signal(5, 'sell'), signal(6, 'close')]);
    expect(places(none.commands)).toEqual([]);
    expect(none.state.recent.slice(-2).map((o) => o.reason)).toEqual(['no_position', 'no_position']);
  });

  it('a sell of more than the position value sells the whole position', () => {
    const b = twoBuys();
    const r = drive(b.state, [signal(3, 'sell', 1000)]);
    expect(places(r.commands).map((p) => p.amount)).toEqual([0.1]);
    // A second sell while the first is in flight finds nothing free.
    const again = drive(r.state, [signal(4, 'sell')]);
    expect(again.state.recent.at(-1)!.reason).toBe('no_position');
  });

  it('a replayed seq does nothing', () => {
    const b = twoBuys();
    const r = drive(b.state, [signal(2, 'buy'), signal(1, 'sell')]);
    expect(r.commands).toEqual([]);
    expect(r.state).toEqual(b.state);
    expect(samePersistedSignal(b.state, r.state)).toBe(true);
  });

  it('keeps the last 50 signals', () => {
    const events: StrategyEvent[] = [];
    for (let i = 1; i <= 60; i++) events.push(signal(i, 'sell'));
    const r = drive(createSignalBot('s', config()), events);
    expect(r.state.recent).toHaveLength(SIGNAL_RECENT_MAX);
    expect(r.state.recent[0]!.seq).toBe(11);
    expect(r.state.lastSeq).toBe(60);
  });

  it('invalid signals are logged; a bad seq does not move lastSeq', () => {
    const s = createSignalBot('s', config());
    const r = drive(s, [
      { type: 'action', name: 'signal', params: { seq: -1, action: 'buy' }, ts: 1 },
      { type: 'action', name: 'signal', params: { seq: 1, action: 'hold' }, ts: 1 },
      { type: 'action', name: 'signal', params: { seq: 2, action: 'buy', amount: -5 }, ts: 1 },
      { type: 'action', name: 'other', params: {}, ts: 1 },
      signal(3, 'buy'),
    ]);
    expect(codes(r.commands)).toEqual([
      'invalid_value',
      'invalid_value',
      'invalid_value',
      'invalid_value',
      'signal_skipped',
    ]);
    expect(r.state.lastSeq).toBe(3);
    // No price yet.
    expect(r.state.recent.at(-1)!.reason).toBe('no_price');
  });

  it('stop close_market sells the position; cancel_only keeps it', () => {
    const b = twoBuys();
    const close = drive(b.state, [{ type: 'stop', mode: 'close_market', ts: 5000 }]);
    expect(places(close.commands).map((p) => [p.side, p.amount, p.role])).toEqual([['sell', 0.1, 'close']]);
    // Sold at 1900, fee 0.19: pnl = 190 − 200 − 0.2 − 0.19 = −10.39.
    const done = drive(close.state, [fill('s-2', 1900, 0.1, 0.19, 5100)]);
    expect(trades(done.commands)[0]!.pnlNet).toBe(-10.39);
    expect(stops(done.commands)).toEqual(['user_close_market']);
    const keep = drive(b.state, [{ type: 'stop', mode: 'cancel_only', ts: 5000 }]);
    expect(places(keep.commands)).toEqual([]);
    expect(stops(keep.commands)).toEqual(['user_cancel_only']);
    expect(signalSummary(keep.state).qty).toBe(0.1);
    // A signal after the stop is skipped.
    const late = drive(keep.state, [signal(9, 'buy')]);
    expect(late.state.recent.at(-1)!.reason).toBe('not_running');
  });

  it('a rejected or cancelled order leaves the position as it was', () => {
    const r = drive(createSignalBot('s', config()), [
      tick(2000, 500),
      signal(1, 'buy'),
      { type: 'order_rejected', clientOrderId: 's-0', reason: 'insufficient_funds', ts: 600 },
    ]);
    expect(signalSummary(r.state)).toMatchObject({ qty: 0, pending: 0 });
    expect(codes(r.commands)).toContain('order_rejected');
    // Replayed answers are ignored.
    const again = drive(r.state, [fill('s-0', 2000, 0.05, 0.1)]);
    expect(again.commands).toEqual([]);
  });

  it('ticks are quiet and not persisted', () => {
    const b = twoBuys();
    const r = stepSignal(b.state, tick(2100, 9000));
    expect(r.commands).toEqual([]);
    expect(samePersistedSignal(b.state, r.state)).toBe(true);
    expect(r.state.lastPrice).toBe(2100);
  });

  it('rejects invalid configs', () => {
    expect(() => createSignalBot('s', config({ amountQuote: 0 }))).toThrow(SignalConfigError);
    expect(() => createSignalBot('s', config({ maxPositionQuote: 50 }))).toThrow(SignalConfigError);
  });
});
