/**
 * The manual order (kind 'manual') with worked numbers. Market: 0.0001 base step, 0.01 price step,
 * 5 USDT minimum cost, fees 0.1 % (testMarket). The order: buy 0.01 BTC limit at 60000 (600 USDT,
 * entry fee 0.6), take profit 63000, stop loss 58000; a sell entry mirrors it (tp 57000, sl 62000).
 * Client ids are `m-${seq}`: m-0 the entry, m-1 the take profit (or the first close), m-2 the next.
 */
import { describe, expect, it } from 'vitest';
import {
  MANUAL_ACTIONS,
  MANUAL_KIND,
  MANUAL_MAX_CLOSE_ATTEMPTS,
  ManualConfigError,
  createManualOrder,
  manualOrder,
  manualQuietBand,
  manualSummary,
  samePersistedManual,
  stepManual,
  type ManualConfig,
  type ManualState,
  type StrategyEvent,
} from '../../src/index';
import { cancels, codes, driveWith, logs, places, stops, testMarket, trades } from '../shared/shared-helpers';

const config = (o: Partial<ManualConfig> = {}): ManualConfig => ({
  symbol: 'BTC/USDT',
  side: 'buy',
  orderType: 'limit',
  price: 60000,
  amount: 0.01,
  tp: 63000,
  sl: 58000,
  rules: testMarket(),
  ...o,
});
const drive = (s: ManualState, events: StrategyEvent[]) => driveWith(stepManual, s, events);
const place = (ts = 1000, params: Record<string, unknown> = {}): StrategyEvent => ({
  type: 'action',
  name: MANUAL_ACTIONS.place,
  params,
  ts,
});
const tick = (price: number, ts: number): StrategyEvent => ({ type: 'tick', price, ts });
const fill = (id: string, price: number, amount: number, fee: number, ts: number): StrategyEvent => ({
  type: 'order_filled',
  clientOrderId: id,
  price,
  amount,
  fee,
  ts,
});
const partial = (id: string, filled: number, price: number, fee: number, ts: number): StrategyEvent => ({
  type: 'order_partially_filled',
  clientOrderId: id,
  filled,
  price,
  fee,
  ts,
});
const cancelled = (id: string, ts: number, f: { filled: number; price: number; fee: number } | null = null) =>
  ({ type: 'order_cancelled', clientOrderId: id, ts, ...(f ?? {}) }) as StrategyEvent;
const rejected = (
  id: string,
  reason: 'insufficient_funds' | 'exchange_error' | 'unknown' | 'precision' | 'min_cost',
  ts: number,
  message?: string,
): StrategyEvent => ({
  type: 'order_rejected',
  clientOrderId: id,
  reason,
  ts,
  ...(message ? { message } : {}),
});
const stop = (mode: 'cancel_only' | 'close_market', ts: number): StrategyEvent => ({
  type: 'stop',
  mode,
  ts,
});

/** Placed and filled at 60000: 0.01 BTC for 600 USDT, fee 600 × 0.1 % = 0.6 (at ts 2000). */
function armed(o: Partial<ManualConfig> = {}) {
  return drive(createManualOrder('m', config(o)), [place(), fill('m-0', o.price ?? 60000, 0.01, 0.6, 2000)]);
}

describe('the manual order: entry', () => {
  it('a limit buy rests, fills in part, then fills: the take profit goes out for the whole amount', () => {
    const s0 = createManualOrder('m', config());
    expect(manualSummary(s0)).toMatchObject({
      entryStatus: 'pending',
      exitState: 'waiting_entry',
      open: true,
    });
    const placed = drive(s0, [place()]);
    expect(places(placed.commands)).toEqual([
      {
        type: 'place_order',
        clientOrderId: 'm-0',
        side: 'buy',
        orderType: 'limit',
        price: 60000,
        amount: 0.01,
        role: 'manual_entry',
      },
    ]);
    expect(codes(placed.commands)).toEqual(['manual_placed']);
    expect(manualSummary(placed.state)).toMatchObject({ entryStatus: 'open', filled: 0, average: null });
    // Resting: a price above the limit does nothing; 0.004 fills: 0.004 × 60000 = 240 USDT, fee 0.24.
    const rest = drive(placed.state, [tick(60500, 1500), partial('m-0', 0.004, 60000, 0.24, 1600)]);
    expect(rest.commands).toEqual([]);
    expect(manualSummary(rest.state)).toMatchObject({
      entryStatus: 'partially_filled',
      exitState: 'waiting_entry',
      filled: 0.004,
      average: 60000,
      cost: 240,
      fee: 0.24,
      held: 0.004,
    });
    // A price below the sl before the entry has ended triggers nothing: the exits are not armed yet.
    const low = drive(rest.state, [tick(57000, 1700)]);
    expect(low.commands).toEqual([]);
    // The rest fills: 0.01 × 60000 = 600 USDT, fee 0.6 in all.
    const f = drive(low.state, [tick(60000, 1900), fill('m-0', 60000, 0.01, 0.6, 2000)]);
    expect(places(f.commands)).toEqual([
      {
        type: 'place_order',
        clientOrderId: 'm-1',
        side: 'sell',
        orderType: 'limit',
        price: 63000,
        amount: 0.01,
        role: 'manual_tp',
        lotId: 'm-0',
      },
    ]);
    expect(codes(f.commands)).toEqual(['manual_filled', 'manual_exits_active']);
    expect(manualSummary(f.state)).toEqual({
      entryStatus: 'filled',
      exitState: 'active',
      filled: 0.01,
      average: 60000,
      fee: 0.6,
      cost: 600,
      held: 0.01,
      pnl: null,
      error: null,
      open: true,
    });
  });

  it('a market buy without exits: filled at once, nothing more, stopped order_done', () => {
    const s = createManualOrder('m', config({ orderType: 'market', price: undefined, tp: null, sl: null }));
    expect(s.exitState).toBe('none');
    // The server passes the market price it read (60000); the order carries no price.
    const r = drive(s, [place(1000, { price: 60000 })]);
    expect(places(r.commands)).toEqual([
      {
        type: 'place_order',
        clientOrderId: 'm-0',
        side: 'buy',
        orderType: 'market',
        amount: 0.01,
        role: 'manual_entry',
      },
    ]);
    expect(r.state.lastPrice).toBe(60000);
    // Filled at 60010: cost 0.01 × 60010 = 600.1, fee 0.6001.
    const f = drive(r.state, [fill('m-0', 60010, 0.01, 0.6001, 1001)]);
    expect(places(f.commands)).toEqual([]);
    expect(stops(f.commands)).toEqual(['order_done']);
    expect(manualSummary(f.state)).toEqual({
      entryStatus: 'filled',
      exitState: 'none',
      filled: 0.01,
      average: 60010,
      fee: 0.6001,
      cost: 600.1,
      held: 0.01,
      pnl: null,
      error: null,
      open: false,
    });
  });

  it('a market buy with exits: the take profit from the fill', () => {
    const s = createManualOrder('m', config({ orderType: 'market', price: undefined }));
    const r = drive(s, [place(1000, { price: 60000 }), fill('m-0', 60010, 0.01, 0.6001, 1001)]);
    expect(places(r.commands).map((p) => [p.clientOrderId, p.side, p.orderType, p.price, p.amount])).toEqual([
      ['m-0', 'buy', 'market', undefined, 0.01],
      ['m-1', 'sell', 'limit', 63000, 0.01],
    ]);
  });

  it('the entry refused: the exchange’s text, rejected, stopped entry_failed', () => {
    const msg = 'Account has insufficient balance for requested action.';
    const r = drive(createManualOrder('m', config()), [
      place(),
      rejected('m-0', 'insufficient_funds', 1001, msg),
    ]);
    expect(logs(r.commands).at(-1)).toMatchObject({
      code: 'order_rejected',
      params: { role: 'manual_entry', reason: 'insufficient_funds', message: msg },
    });
    expect(stops(r.commands)).toEqual(['entry_failed']);
    expect(r.state.entry).toMatchObject({
      status: 'rejected',
      rejectReason: 'insufficient_funds',
      rejectMessage: msg,
    });
    expect(manualSummary(r.state)).toMatchObject({
      entryStatus: 'rejected',
      exitState: 'cancelled',
      held: 0,
      error: msg,
      open: false,
    });
    // Without a message from the venue: ours for the reason.
    const bare = drive(createManualOrder('m', config()), [place(), rejected('m-0', 'min_cost', 1001)]);
    expect(bare.state.error).toBe('The order value is below the exchange minimum.');
    // The venue cancelled it with nothing filled: the same end.
    const gone = drive(createManualOrder('m', config()), [place(), cancelled('m-0', 1500)]);
    expect(stops(gone.commands)).toEqual(['entry_failed']);
    expect(manualSummary(gone.state)).toMatchObject({
      entryStatus: 'cancelled',
      error: 'The exchange cancelled the order.',
    });
  });

  it('the venue cancels the entry after a partial fill: the exits cover what filled', () => {
    // 0.0042 filled (cost 252, fee 0.252): the take profit sells 0.0042.
    const r = drive(createManualOrder('m', config()), [
      place(),
      cancelled('m-0', 1500, { filled: 0.0042, price: 60000, fee: 0.252 }),
    ]);
    expect(places(r.commands).at(-1)).toMatchObject({ clientOrderId: 'm-1', amount: 0.0042, price: 63000 });
    expect(manualSummary(r.state)).toMatchObject({
      entryStatus: 'cancelled',
      exitState: 'active',
      held: 0.0042,
    });
  });

  it('a repeated manual_place does nothing', () => {
    const once = drive(createManualOrder('m', config()), [place()]);
    const twice = stepManual(once.state, place(1100));
    expect(twice.commands).toEqual([]);
    expect(samePersistedManual(once.state, twice.state)).toBe(true);
    // After the fill, too (the server retrying its call after a restart).
    const a = armed();
    const again = stepManual(a.state, place(5000));
    expect(again.commands).toEqual([]);
    expect(samePersistedManual(a.state, again.state)).toBe(true);
  });

  it('rejects configurations it cannot run, with a code', () => {
    const code = (o: Partial<ManualConfig>) => {
      try {
        createManualOrder('m', config(o));
        return null;
      } catch (e) {
        expect(e).toBeInstanceOf(ManualConfigError);
        return (e as ManualConfigError).code;
      }
    };
    expect(code({})).toBeNull();
    expect(code({ side: 'long' as 'buy' })).toBe('invalid_side');
    expect(code({ orderType: 'stop' as 'limit' })).toBe('invalid_order_type');
    expect(code({ price: 0 })).toBe('invalid_price');
    expect(code({ amount: -1 })).toBe('invalid_amount');
    expect(code({ tp: Number.NaN })).toBe('invalid_tp');
    expect(code({ sl: -5 })).toBe('invalid_sl');
    // A buy's tp above and sl below the limit price; a sell's the other way round.
    expect(code({ tp: 59000 })).toBe('tp_wrong_side');
    expect(code({ sl: 61000 })).toBe('sl_wrong_side');
    expect(code({ side: 'sell' })).toBe('tp_wrong_side');
    expect(code({ side: 'sell', tp: 57000, sl: 59000 })).toBe('sl_wrong_side');
    // A market order: only tp against sl.
    expect(code({ orderType: 'market', price: undefined, tp: 58000, sl: 63000 })).toBe('tp_sl_crossed');
    expect(code({ reduceOnly: true })).toBe('reduce_only_spot');
    expect(code({ rules: { ...testMarket(), amountStep: 0 } })).toBe('invalid_market');
    expect(() => createManualOrder('', config())).toThrow(ManualConfigError);
  });
});

describe('the manual order: exits', () => {
  it('take profit fills: one trade, PnL after both fees, stopped order_done', () => {
    // Sold 0.01 at 63000 = 630 USDT, fee 0.63. pnl = 0.01 × (63000 − 60000) − 0.6 − 0.63 = 30 − 1.23 = 28.77.
    const r = drive(armed().state, [tick(63000, 2900), fill('m-1', 63000, 0.01, 0.63, 3000)]);
    expect(trades(r.commands)).toEqual([
      {
        lotId: 'm-0',
        key: 'm-0#m-1',
        qty: 0.01,
        buyPrice: 60000,
        sellPrice: 63000,
        buyTime: 2000,
        sellTime: 3000,
        buyFee: 0.6,
        sellFee: 0.63,
        pnlNet: 28.77,
      },
    ]);
    expect(stops(r.commands)).toEqual(['order_done']);
    expect(manualOrder.realizedPnl(r.state)).toBe('28.77');
    expect(manualSummary(r.state)).toMatchObject({
      exitState: 'tp_filled',
      held: 0,
      pnl: 28.77,
      open: false,
    });
  });

  it('stop loss reached: the take profit is cancelled first, then what is held closes at market', () => {
    // 57990 ≤ 58000: sl_hit; the TP m-1 is cancelled, the close waits for the confirmation.
    const hit = drive(armed().state, [tick(58500, 2500), tick(57990, 3000)]);
    expect(cancels(hit.commands)).toEqual(['m-1']);
    expect(places(hit.commands)).toEqual([]);
    expect(logs(hit.commands).find((l) => l.code === 'sl_hit')!.params).toEqual({ price: 57990, sl: 58000 });
    expect(manualSummary(hit.state)).toMatchObject({ exitState: 'sl_triggered', open: true });
    // More ticks while cancelling change nothing.
    const more = drive(hit.state, [tick(57000, 3050)]);
    expect(more.commands).toEqual([]);
    const closing = drive(more.state, [cancelled('m-1', 3100)]);
    expect(places(closing.commands)).toEqual([
      {
        type: 'place_order',
        clientOrderId: 'm-2',
        side: 'sell',
        orderType: 'market',
        amount: 0.01,
        role: 'manual_sl',
        lotId: 'm-0',
      },
    ]);
    // Sold at 57950: 579.5 USDT, fee 0.5795. pnl = 0.01 × (57950 − 60000) − 0.6 − 0.5795 = −20.5 − 1.1795 = −21.6795.
    const done = drive(closing.state, [fill('m-2', 57950, 0.01, 0.5795, 3200)]);
    expect(trades(done.commands)).toEqual([
      {
        lotId: 'm-0',
        key: 'm-0#m-2',
        qty: 0.01,
        buyPrice: 60000,
        sellPrice: 57950,
        buyTime: 2000,
        sellTime: 3200,
        buyFee: 0.6,
        sellFee: 0.5795,
        pnlNet: -21.6795,
      },
    ]);
    expect(stops(done.commands)).toEqual(['sl_hit']);
    expect(manualSummary(done.state)).toMatchObject({
      exitState: 'sl_filled',
      held: 0,
      pnl: -21.6795,
      open: false,
    });
  });

  it('the take profit fills while its cancel is on the way: no close, tp_filled', () => {
    const hit = drive(armed().state, [tick(57990, 3000)]);
    const r = drive(hit.state, [fill('m-1', 63000, 0.01, 0.63, 3100), cancelled('m-1', 3101)]);
    expect(places(r.commands)).toEqual([]);
    expect(trades(r.commands).map((t) => t.pnlNet)).toEqual([28.77]);
    expect(stops(r.commands)).toEqual(['order_done']);
    expect(r.state.exitState).toBe('tp_filled');
  });

  it('take profit filled in part, then the stop loss: a trade for the part and a close of the rest', () => {
    // TP sold 0.004 at 63000 (252 USDT, fee 0.252); 0.006 still held.
    const part = drive(armed().state, [partial('m-1', 0.004, 63000, 0.252, 2500)]);
    expect(manualSummary(part.state).held).toBe(0.006);
    const hit = drive(part.state, [tick(57990, 4000)]);
    expect(cancels(hit.commands)).toEqual(['m-1']);
    // The cancel (its partial fill as last reported) is a trade: the entry fee's share 0.6 × 0.004 / 0.01
    // = 0.24; pnl = 0.004 × 3000 − 0.24 − 0.252 = 12 − 0.492 = 11.508. Then 0.006 closes at market.
    const closing = drive(hit.state, [cancelled('m-1', 4000)]);
    expect(trades(closing.commands)).toEqual([
      {
        lotId: 'm-0',
        key: 'm-0#m-1',
        qty: 0.004,
        buyPrice: 60000,
        sellPrice: 63000,
        buyTime: 2000,
        sellTime: 4000,
        buyFee: 0.24,
        sellFee: 0.252,
        pnlNet: 11.508,
      },
    ]);
    expect(places(closing.commands)).toMatchObject([
      { clientOrderId: 'm-2', amount: 0.006, role: 'manual_sl' },
    ]);
    // 0.006 at 57950 = 347.7 USDT, fee 0.3477; the rest of the entry fee 0.6 − 0.24 = 0.36.
    // pnl = 0.006 × (57950 − 60000) − 0.36 − 0.3477 = −12.3 − 0.7077 = −13.0077. Total 11.508 − 13.0077 = −1.4997.
    const done = drive(closing.state, [fill('m-2', 57950, 0.006, 0.3477, 4100)]);
    expect(trades(done.commands)).toMatchObject([
      { key: 'm-0#m-2', qty: 0.006, buyFee: 0.36, sellFee: 0.3477, pnlNet: -13.0077 },
    ]);
    expect(done.state.realizedPnl).toBe('-1.4997');
    expect(done.state.trades).toBe(2);
    expect(stops(done.commands)).toEqual(['sl_hit']);
    expect(manualSummary(done.state)).toMatchObject({ exitState: 'sl_filled', held: 0, pnl: -1.4997 });
  });

  it('the last price already past the stop loss when the entry fills: closes at once, no take profit', () => {
    const r = drive(createManualOrder('m', config()), [
      place(),
      tick(57900, 1500),
      fill('m-0', 60000, 0.01, 0.6, 1600),
    ]);
    expect(places(r.commands).map((p) => [p.clientOrderId, p.role, p.orderType])).toEqual([
      ['m-0', 'manual_entry', 'limit'],
      ['m-1', 'manual_sl', 'market'],
    ]);
    expect(r.state.exitState).toBe('sl_triggered');
  });

  it('sell entry on futures: a short; the take profit and the close buy back with reduceOnly', () => {
    const short: Partial<ManualConfig> = { side: 'sell', tp: 57000, sl: 62000, derivatives: true };
    const a = armed(short);
    expect(places(a.commands)).toEqual([
      {
        type: 'place_order',
        clientOrderId: 'm-0',
        side: 'sell',
        orderType: 'limit',
        price: 60000,
        amount: 0.01,
        role: 'manual_entry',
      },
      {
        type: 'place_order',
        clientOrderId: 'm-1',
        side: 'buy',
        orderType: 'limit',
        price: 57000,
        amount: 0.01,
        role: 'manual_tp',
        lotId: 'm-0',
        reduceOnly: true,
      },
    ]);
    // TP: bought back at 57000 (570 USDT, fee 0.57). The trade keeps the history semantics: sellPrice = the
    // entry, buyPrice = the buy back. pnl = 0.01 × (60000 − 57000) − 0.57 − 0.6 = 30 − 1.17 = 28.83.
    const tp = drive(a.state, [fill('m-1', 57000, 0.01, 0.57, 3000)]);
    expect(trades(tp.commands)).toEqual([
      {
        lotId: 'm-0',
        key: 'm-0#m-1',
        qty: 0.01,
        buyPrice: 57000,
        sellPrice: 60000,
        buyTime: 3000,
        sellTime: 2000,
        buyFee: 0.57,
        sellFee: 0.6,
        pnlNet: 28.83,
      },
    ]);
    // SL: 62000 ≥ 62000 → cancel the TP, buy back at market with reduceOnly. At 62010 (620.1, fee 0.6201):
    // pnl = 0.01 × (60000 − 62010) − 0.6201 − 0.6 = −20.1 − 1.2201 = −21.3201.
    const hit = drive(a.state, [tick(61999.99, 2900), tick(62000, 3000)]);
    expect(cancels(hit.commands)).toEqual(['m-1']);
    const sl = drive(hit.state, [cancelled('m-1', 3001), fill('m-2', 62010, 0.01, 0.6201, 3002)]);
    expect(places(sl.commands)).toEqual([
      {
        type: 'place_order',
        clientOrderId: 'm-2',
        side: 'buy',
        orderType: 'market',
        amount: 0.01,
        role: 'manual_sl',
        lotId: 'm-0',
        reduceOnly: true,
      },
    ]);
    expect(trades(sl.commands)).toMatchObject([{ buyPrice: 62010, sellPrice: 60000, pnlNet: -21.3201 }]);
    expect(stops(sl.commands)).toEqual(['sl_hit']);
    // A reduce-only entry carries reduceOnly itself.
    const ro = drive(createManualOrder('m', config({ ...short, reduceOnly: true })), [place()]);
    expect(places(ro.commands)[0]!.reduceOnly).toBe(true);
  });

  it('sell entry on spot: the exits are plain buys, never reduceOnly', () => {
    const a = armed({ side: 'sell', tp: 57000, sl: 62000 });
    const hit = drive(a.state, [tick(62500, 3000), cancelled('m-1', 3001)]);
    for (const p of places([...a.commands, ...hit.commands])) expect('reduceOnly' in p).toBe(false);
    expect(places(hit.commands)).toMatchObject([{ side: 'buy', orderType: 'market', amount: 0.01 }]);
  });

  it('take profit refused: logged, the stop loss still watched; without a stop loss the order fails', () => {
    const withSl = drive(armed().state, [rejected('m-1', 'precision', 2001, 'Filter failure: PRICE_FILTER')]);
    expect(logs(withSl.commands)[0]).toMatchObject({
      code: 'order_rejected',
      params: {
        role: 'manual_tp',
        reason: 'precision',
        price: 63000,
        message: 'Filter failure: PRICE_FILTER',
      },
    });
    expect(stops(withSl.commands)).toEqual([]);
    expect(manualSummary(withSl.state)).toMatchObject({
      exitState: 'active',
      error: 'Take profit refused: Filter failure: PRICE_FILTER',
      open: true,
    });
    // The stop loss: no take profit to cancel, the close goes out at once.
    const hit = drive(withSl.state, [tick(57000, 3000)]);
    expect(cancels(hit.commands)).toEqual([]);
    expect(places(hit.commands)).toMatchObject([{ clientOrderId: 'm-2', role: 'manual_sl', amount: 0.01 }]);
    // No stop loss: failed, stopped, the base stays held.
    const noSl = drive(armed({ sl: null }).state, [rejected('m-1', 'min_cost', 2001)]);
    expect(stops(noSl.commands)).toEqual(['exit_failed']);
    expect(manualSummary(noSl.state)).toMatchObject({
      exitState: 'failed',
      held: 0.01,
      error: 'Take profit refused: The order value is below the exchange minimum.',
      open: false,
    });
  });

  it('a refused close is retried up to 3 times for exchange errors, then the exits fail', () => {
    const a = armed({ tp: null });
    expect(places(a.commands)).toHaveLength(1); // the entry only: the stop loss is watched
    expect(a.state.exitState).toBe('active');
    const hit = drive(a.state, [tick(57000, 3000)]);
    expect(places(hit.commands)).toMatchObject([{ clientOrderId: 'm-1', role: 'manual_sl' }]);
    const r = drive(hit.state, [
      rejected('m-1', 'exchange_error', 3001),
      rejected('m-2', 'unknown', 3002),
      rejected('m-3', 'exchange_error', 3003, 'Service unavailable'),
    ]);
    expect(places(r.commands).map((p) => p.clientOrderId)).toEqual(['m-2', 'm-3']);
    expect(logs(r.commands).map((l) => [l.code, l.params.attempt])).toEqual([
      ['close_failed', 1],
      ['close_failed', 2],
      ['close_failed', 3],
    ]);
    expect(MANUAL_MAX_CLOSE_ATTEMPTS).toBe(3);
    expect(stops(r.commands)).toEqual(['exit_failed']);
    expect(manualSummary(r.state)).toMatchObject({
      exitState: 'failed',
      held: 0.01,
      error: 'Market close failed: Service unavailable',
    });
    // A retry that goes through ends as a stop loss.
    const ok = drive(hit.state, [
      rejected('m-1', 'exchange_error', 3001),
      fill('m-2', 56990, 0.01, 0.5699, 3002),
    ]);
    expect(stops(ok.commands)).toEqual(['sl_hit']);
    // Funds do not come back by retrying: no second attempt.
    const funds = drive(hit.state, [rejected('m-1', 'insufficient_funds', 3001)]);
    expect(places(funds.commands)).toEqual([]);
    expect(stops(funds.commands)).toEqual(['exit_failed']);
  });

  it('a close the venue cancels after a partial fill: that part is a trade, the rest is closed again', () => {
    const hit = drive(armed({ tp: null }).state, [tick(57000, 3000)]);
    // 0.004 sold at 57000 (228, fee 0.228): pnl = 0.004 × −3000 − 0.24 − 0.228 = −12.468.
    const r = drive(hit.state, [cancelled('m-1', 3001, { filled: 0.004, price: 57000, fee: 0.228 })]);
    expect(trades(r.commands)).toMatchObject([{ key: 'm-0#m-1', qty: 0.004, pnlNet: -12.468 }]);
    expect(places(r.commands)).toMatchObject([{ clientOrderId: 'm-2', amount: 0.006, role: 'manual_sl' }]);
  });
});

describe('the manual order: stops', () => {
  it('cancel_only while the entry is open: cancelled, a partial fill stays held without exits', () => {
    const open = drive(createManualOrder('m', config()), [place(), partial('m-0', 0.004, 60000, 0.24, 1500)]);
    const st = drive(open.state, [stop('cancel_only', 3000)]);
    expect(cancels(st.commands)).toEqual(['m-0']);
    expect(st.state.status).toBe('stopping');
    expect(manualSummary(st.state)).toMatchObject({ exitState: 'cancelled', open: true });
    const done = drive(st.state, [cancelled('m-0', 3100, { filled: 0.004, price: 60000, fee: 0.24 })]);
    expect(places(done.commands)).toEqual([]);
    expect(stops(done.commands)).toEqual(['user_cancel_only']);
    expect(manualSummary(done.state)).toMatchObject({
      entryStatus: 'cancelled',
      exitState: 'cancelled',
      filled: 0.004,
      held: 0.004,
      open: false,
    });
    // The entry filled before the cancel reached it: held, still no exits.
    const raced = drive(st.state, [fill('m-0', 60000, 0.01, 0.6, 3050)]);
    expect(places(raced.commands)).toEqual([]);
    expect(stops(raced.commands)).toEqual(['user_cancel_only']);
    expect(manualSummary(raced.state)).toMatchObject({ entryStatus: 'filled', held: 0.01 });
  });

  it('cancel_only while the exits are active: the take profit cancelled, the stop loss no longer watched', () => {
    const st = drive(armed().state, [stop('cancel_only', 3000)]);
    expect(cancels(st.commands)).toEqual(['m-1']);
    const done = drive(st.state, [cancelled('m-1', 3100)]);
    expect(stops(done.commands)).toEqual(['user_cancel_only']);
    expect(manualSummary(done.state)).toMatchObject({ exitState: 'cancelled', held: 0.01, open: false });
    // A price under the stop loss afterwards: nothing.
    expect(stepManual(done.state, tick(50000, 4000)).commands).toEqual([]);
    // Before anything was placed: stopped at once, and a late manual_place does nothing.
    const early = drive(createManualOrder('m', config()), [stop('cancel_only', 500), place(600)]);
    expect(early.commands.filter((c) => c.type === 'place_order' || c.type === 'cancel_order')).toEqual([]);
    expect(stops(early.commands)).toEqual(['user_cancel_only']);
  });

  it('close_market: the take profit cancelled, then what is held sold at market (role close)', () => {
    const st = drive(armed().state, [tick(61000, 4900), stop('close_market', 5000)]);
    expect(cancels(st.commands)).toEqual(['m-1']);
    const closing = drive(st.state, [cancelled('m-1', 5001)]);
    expect(places(closing.commands)).toEqual([
      {
        type: 'place_order',
        clientOrderId: 'm-2',
        side: 'sell',
        orderType: 'market',
        amount: 0.01,
        role: 'close',
        lotId: 'm-0',
      },
    ]);
    // 0.01 at 61000 = 610, fee 0.61: pnl = 10 − 0.6 − 0.61 = 8.79.
    const done = drive(closing.state, [fill('m-2', 61000, 0.01, 0.61, 5002)]);
    expect(trades(done.commands)[0]!.pnlNet).toBe(8.79);
    expect(stops(done.commands)).toEqual(['user_close_market']);
    expect(manualSummary(done.state)).toMatchObject({ exitState: 'cancelled', held: 0, pnl: 8.79 });
    // While the entry is open with 0.004 filled: the entry is cancelled, then 0.004 closes.
    const open = drive(createManualOrder('m', config()), [place(), partial('m-0', 0.004, 60000, 0.24, 1500)]);
    const c2 = drive(open.state, [
      stop('close_market', 3000),
      cancelled('m-0', 3100, { filled: 0.004, price: 60000, fee: 0.24 }),
    ]);
    expect(cancels(c2.commands)).toEqual(['m-0']);
    expect(places(c2.commands).at(-1)).toMatchObject({ clientOrderId: 'm-1', amount: 0.004, role: 'close' });
  });

  it('a stop while the stop loss closes is ignored: the close ends the order', () => {
    const hit = drive(armed({ tp: null }).state, [tick(57000, 3000)]);
    const r = drive(hit.state, [stop('cancel_only', 3001), fill('m-1', 57000, 0.01, 0.57, 3002)]);
    expect(stops(r.commands)).toEqual(['sl_hit']);
  });

  it('liquidated (futures): the rest held is a trade at the price, stopped liquidated', () => {
    // A long with a take profit only. The runner delivers the venue's cancel of the reduce-only TP
    // first: the order waits (a tick would stop it), then the liquidation at 54000 is recorded:
    // pnl = 0.01 × (54000 − 60000) − 0.6 − 0 = −60.6.
    const a = armed({ sl: null, derivatives: true });
    const c = drive(a.state, [cancelled('m-1', 4000)]);
    expect(stops(c.commands)).toEqual([]);
    expect(c.state.exitState).toBe('failed');
    expect(manualQuietBand(c.state)).toEqual({ low: 0, high: 0, until: 0 });
    const liq = drive(c.state, [{ type: 'liquidated', price: 54000, contracts: 0.01, ts: 4000 }]);
    expect(trades(liq.commands)).toEqual([
      {
        lotId: 'm-0',
        key: 'm-0#liq-4000',
        qty: 0.01,
        buyPrice: 60000,
        sellPrice: 54000,
        buyTime: 2000,
        sellTime: 4000,
        buyFee: 0.6,
        sellFee: 0,
        pnlNet: -60.6,
      },
    ]);
    expect(stops(liq.commands)).toEqual(['liquidated']);
    expect(manualSummary(liq.state)).toMatchObject({
      held: 0,
      pnl: -60.6,
      error: 'Position liquidated at 54000.',
    });
    // No liquidation follows the cancel: the next tick stops the order.
    const t = drive(c.state, [tick(60000, 4100)]);
    expect(stops(t.commands)).toEqual(['exit_failed']);
    // A short liquidated with its TP still tracked: it is marked cancelled, the trade buys back at 66000:
    // pnl = 0.01 × (60000 − 66000) − 0.6 = −60.6.
    const sh = armed({ side: 'sell', tp: 57000, sl: 62000, derivatives: true });
    const l2 = drive(sh.state, [{ type: 'liquidated', price: 66000, contracts: 0.01, ts: 5000 }]);
    expect(trades(l2.commands)).toMatchObject([{ buyPrice: 66000, sellPrice: 60000, pnlNet: -60.6 }]);
    expect(l2.state.tp!.status).toBe('cancelled');
    expect(l2.state.exitState).toBe('cancelled');
    // On spot there is nothing to liquidate.
    const spot = drive(armed().state, [{ type: 'liquidated', price: 54000, contracts: 0.01, ts: 4000 }]);
    expect(codes(spot.commands)).toEqual(['invalid_value']);
  });
});

describe('the manual order: replays and ticks', () => {
  it('replayed and unknown events are ignored', () => {
    const a = armed();
    for (const e of [
      fill('m-0', 60000, 0.01, 0.6, 2000),
      partial('m-0', 0.004, 60000, 0.24, 1500),
      cancelled('m-0', 2100),
      rejected('m-0', 'unknown', 2100),
      fill('x-9', 1, 1, 0, 2100),
    ]) {
      const r = stepManual(a.state, e);
      expect(r.commands).toEqual([]);
      expect(r.state).toEqual(a.state);
    }
    // A partial report smaller than one applied (delivered out of order) is ignored.
    const p = drive(createManualOrder('m', config()), [place(), partial('m-0', 0.006, 60000, 0.36, 1500)]);
    const stale = stepManual(p.state, partial('m-0', 0.004, 60000, 0.24, 1400));
    expect(stale.state.entry!.filled).toBe(0.006);
    // After the end, nothing moves: the TP fill delivered twice records one trade.
    const done = drive(a.state, [fill('m-1', 63000, 0.01, 0.63, 3000)]);
    const twice = drive(done.state, [
      fill('m-1', 63000, 0.01, 0.63, 3000),
      tick(50000, 4000),
      stop('close_market', 5000),
    ]);
    expect(twice.commands).toEqual([]);
    expect(twice.state).toEqual(done.state);
  });

  it('other actions and events are refused with invalid_value', () => {
    const a = armed();
    const r = drive(a.state, [
      { type: 'action', name: 'lot_sell', params: {}, ts: 3000 },
      { type: 'relocate', ts: 3000 },
      { type: 'set_sl', sl: 1, ts: 3000 },
    ]);
    expect(logs(r.commands).map((l) => [l.code, l.params.field])).toEqual([
      ['invalid_value', 'action'],
      ['invalid_value', 'relocate'],
      ['invalid_value', 'set_sl'],
    ]);
  });

  it('quiet band: only the safe side of an active stop loss; everything otherwise', () => {
    const all = { low: 0, high: Number.POSITIVE_INFINITY, until: Number.POSITIVE_INFINITY };
    const waiting = drive(createManualOrder('m', config()), [place()]);
    expect(manualQuietBand(waiting.state)).toEqual(all);
    const a = armed();
    // Buy entry: prices strictly above the sl 58000 are quiet; 58000 itself triggers.
    expect(manualQuietBand(a.state)).toEqual({ ...all, low: 58000 });
    const quiet = stepManual(a.state, tick(58000.01, 3000));
    expect(quiet.commands).toEqual([]);
    expect(samePersistedManual(a.state, quiet.state)).toBe(true);
    expect(quiet.state.lastPrice).toBe(58000.01);
    expect(cancels(stepManual(a.state, tick(58000, 3000)).commands)).toEqual(['m-1']);
    // Sell entry: prices strictly below the sl 62000.
    const s = armed({ side: 'sell', tp: 57000, sl: 62000 });
    expect(manualQuietBand(s.state)).toEqual({ ...all, high: 62000 });
    // Without a stop loss, or once stopping / stopped: everything.
    expect(manualQuietBand(armed({ sl: null }).state)).toEqual(all);
    expect(manualQuietBand(stepManual(a.state, stop('cancel_only', 3000)).state)).toEqual(all);
    expect(manualOrder.kind).toBe(MANUAL_KIND);
    expect(manualOrder.quietBand?.(a.state)).toEqual(manualQuietBand(a.state));
  });
});
