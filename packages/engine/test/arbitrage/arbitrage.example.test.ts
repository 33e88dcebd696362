/**
 * The Arbitrage bot with worked numbers. Two venues, ETH/USDT:
 *   binance: amount step 0.0001, min cost 5, taker 0.1 %;  bybit: amount step 0.001, min cost 5, taker 0.1 %.
 * Capital 10,000 USDT (5,000 per venue), trade size 20 % = 2,000 USDT, margin 0.1 %: a direction trades
 * when its executable edge > 0.1 % + 0.1 % + 0.1 % = 0.3 %.
 * Books of the opportunity:
 *   binance bids [1999 × 5]            asks [2000 × 0.5, 2001 × 1, 2002 × 5]
 *   bybit   bids [2010 × 0.4, 2008 × 2] asks [2011 × 5]
 */
import { describe, expect, it } from 'vitest';
import {
  ARB_BOOK_MAX_AGE_MS,
  ArbitrageConfigError,
  arbDecision,
  arbitrageBot,
  arbitrageSummary,
  createArbitrageBot,
  samePersistedArbitrage,
  stepArbitrage,
  walkBook,
  type ArbitrageConfig,
  type ArbitrageState,
  type BookSnapshot,
  type MarketRules,
  type StrategyEvent,
} from '../../src/index';
import { codes, driveWith, logs, places, stops, trades } from '../shared/shared-helpers';

const BINANCE: MarketRules = {
  amountStep: 0.0001,
  priceStep: 0.01,
  minAmount: 0,
  minCost: 5,
  takerFee: 0.001,
  makerFee: 0.001,
};
const BYBIT: MarketRules = { ...BINANCE, amountStep: 0.001 };

function arbConfig(overrides: Partial<ArbitrageConfig> = {}): ArbitrageConfig {
  return {
    exchanges: ['binance', 'bybit'],
    symbol: 'ETH/USDT',
    amountQuote: 10_000,
    rules: { binance: BINANCE, bybit: BYBIT },
    marginPct: 0.1,
    tradeFraction: 0.2,
    cooldownMs: 2_000,
    ...overrides,
  };
}

/** The books of the worked opportunity (buy on binance, sell on bybit). */
const OPP: Record<string, BookSnapshot> = {
  binance: {
    bids: [[1999, 5]],
    asks: [
      [2000, 0.5],
      [2001, 1],
      [2002, 5],
    ],
  },
  bybit: {
    bids: [
      [2010, 0.4],
      [2008, 2],
    ],
    asks: [[2011, 5]],
  },
};
/** Flat books: both venues bid 1999 / ask 2000, no edge either way. */
const FLAT: BookSnapshot = { bids: [[1999, 50]], asks: [[2000, 50]] };

const drive = (state: ArbitrageState, events: StrategyEvent[]) => driveWith(stepArbitrage, state, events);
const tick = (exchange: string, book: BookSnapshot, ts: number): StrategyEvent => ({
  type: 'tick',
  exchange,
  symbol: 'ETH/USDT',
  price: book.asks[0]![0],
  book,
  ts,
});
const fill = (id: string, price: number, amount: number, fee: number, ts: number): StrategyEvent => ({
  type: 'order_filled',
  clientOrderId: id,
  price,
  amount,
  fee,
  ts,
});

/** A bot whose inventory is prepared on flat books: per venue 1.25 ETH bought at 2000 (fee 2.5) →
 *  base 1.25, quote 5000 − 2500 − 2.5 = 2497.5. */
function prepared(config = arbConfig()) {
  const r = drive(createArbitrageBot('a', config), [
    tick('binance', FLAT, 1000),
    tick('bybit', FLAT, 1000),
    fill('a-0', 2000, 1.25, 2.5, 1100),
    fill('a-1', 2000, 1.25, 2.5, 1100),
  ]);
  return r;
}

describe('arbDecision (worked numbers)', () => {
  const inventory = { binance: { base: 1.25, quote: 2497.5 }, bybit: { base: 1.25, quote: 2497.5 } };
  const input = {
    exchanges: ['binance', 'bybit'] as [string, string],
    books: OPP,
    inventory,
    rules: { binance: BINANCE, bybit: BYBIT },
    tradeQuote: 2000,
    marginPct: 0.1,
  };

  it('walks both books at the trade size and trades the direction whose edge beats fees + margin', () => {
    const d = arbDecision(input);
    // binance → bybit: mid (1999 + 2000) / 2 = 1999.5; 2000 / 1999.5 = 1.00025 → 1.0002 (binance step)
    // → 1.000 (bybit step). Buy walk: 0.5 × 2000 + 0.5 × 2001 = 2000.5 for 1 → 2000.5.
    // Sell walk: 0.4 × 2010 + 0.6 × 2008 = 804 + 1204.8 = 2008.8 for 1 → 2008.8.
    // edge = 2008.8 / 2000.5 − 1 = 0.414896 % > 0.3 % → trade.
    // net = 1 × (2008.8 − 2000.5) − 2000.5 × 0.001 − 2008.8 × 0.001 = 8.3 − 2.0005 − 2.0088 = 4.2907.
    const [ab, ba] = d.directions;
    expect(ab).toMatchObject({
      key: 'binance_to_bybit',
      buyExchange: 'binance',
      sellExchange: 'bybit',
      desiredQty: 1,
      qty: 1,
      buyAvg: 2000.5,
      sellAvg: 2008.8,
      edgePct: 0.414896,
      tradeEdgePct: 0.414896,
      feesPct: 0.2,
      expectedNet: 4.2907,
      reason: 'ok',
    });
    // bybit → binance: buy at 2011, sell at 1999: 1999 / 2011 − 1 = −0.596718 % → no edge.
    // Size: mid 2010.5, 2000 / 2010.5 = 0.99478 → 0.9947 → 0.994.
    expect(ba).toMatchObject({
      key: 'bybit_to_binance',
      desiredQty: 0.994,
      edgePct: -0.596718,
      reason: 'no_edge',
    });
    expect(d.best).toBe(ab);
  });

  it('does not trade an edge at or under fees + margin', () => {
    // bybit bids 2006: edge = 2006 / 2000.5 − 1 = 0.274931 % ≤ 0.3 %.
    const books = {
      ...OPP,
      bybit: { bids: [[2006, 5]] as [number, number][], asks: [[2011, 5]] as [number, number][] },
    };
    const d = arbDecision({ ...input, books });
    expect(d.directions[0]).toMatchObject({ edgePct: 0.274931, reason: 'no_edge', qty: 0 });
    expect(d.best).toBeNull();
    // Without the margin (0.2 % threshold) the same books trade.
    expect(arbDecision({ ...input, books, marginPct: 0 }).best?.key).toBe('binance_to_bybit');
  });

  it('a book too thin for the size is no trade (and no spread to show)', () => {
    // 10,000 USDT → 5.001 ETH: bybit bids hold 2.4 only.
    const d = arbDecision({ ...input, tradeQuote: 10_000 });
    expect(d.directions[0]).toMatchObject({ reason: 'no_depth', edgePct: null, qty: 0 });
    expect(d.best).toBeNull();
    expect(walkBook(OPP.bybit!.bids, 2.4)).toBe(2008.333333333333);
    expect(walkBook(OPP.bybit!.bids, 2.401)).toBeNull();
  });

  it('sizes to the inventory: base on the sell venue, quote on the buy venue', () => {
    // bybit holds 0.5 ETH: qty 0.5, buy 0.5 × 2000 = 2000, sell 0.4 × 2010 + 0.1 × 2008 = 1004.8 → 2009.6.
    const lowBase = arbDecision({ ...input, inventory: { ...inventory, bybit: { base: 0.5, quote: 0 } } });
    expect(lowBase.best).toMatchObject({ qty: 0.5, buyAvg: 2000, sellAvg: 2009.6, reason: 'ok' });
    // binance holds 1000 USDT: 1 × 2000.5 × 1.001 = 2002.5 > 1000 → 1000 / (2000.5 × 1.001) = 0.49937 → 0.499.
    const lowQuote = arbDecision({
      ...input,
      inventory: { ...inventory, binance: { base: 0, quote: 1000 } },
    });
    expect(lowQuote.best).toMatchObject({ qty: 0.499, buyAvg: 2000, reason: 'ok' });
    // Too little for the 5 USDT minimum: the cause is named.
    const noBase = arbDecision({ ...input, inventory: { ...inventory, bybit: { base: 0.002, quote: 0 } } });
    expect(noBase.directions[0]).toMatchObject({ reason: 'no_base', qty: 0, edgePct: 0.414896 });
    const noQuote = arbDecision({ ...input, inventory: { ...inventory, binance: { base: 0, quote: 3 } } });
    expect(noQuote.directions[0]).toMatchObject({ reason: 'no_quote', qty: 0 });
  });
});

describe('the Arbitrage bot', () => {
  it('prepares the inventory: a quarter of the capital in base on each venue, then starts', () => {
    const c = arbConfig();
    const s0 = createArbitrageBot('a', c);
    expect(arbitrageBot.bookDepth!(s0)).toBe(10);
    expect(arbitrageBot.extraMarkets!(s0)).toEqual([{ exchange: 'bybit', symbol: 'ETH/USDT' }]);
    // One venue's price is not enough.
    const one = drive(s0, [tick('binance', FLAT, 1000)]);
    expect(one.commands).toEqual([]);
    // 10,000 / 2 / 2 = 2,500 USDT per venue at the best ask 2000 → 1.25 ETH.
    const r = drive(one.state, [tick('bybit', FLAT, 1000)]);
    expect(
      places(r.commands).map((p) => [p.clientOrderId, p.exchange, p.side, p.orderType, p.amount, p.role]),
    ).toEqual([
      ['a-0', 'binance', 'buy', 'market', 1.25, 'arb_prepare'],
      ['a-1', 'bybit', 'buy', 'market', 1.25, 'arb_prepare'],
    ]);
    const p = prepared(c);
    expect(p.state.status).toBe('running');
    expect(codes(p.commands)).toEqual(['arb_prepared', 'arb_prepared', 'started']);
    expect(arbitrageSummary(p.state).inventory).toEqual({
      binance: { base: 1.25, quote: 2497.5 },
      bybit: { base: 1.25, quote: 2497.5 },
    });
  });

  it('a refused prepare stops the bot (entry_failed) and sells back what the other venue bought', () => {
    const r = drive(createArbitrageBot('a', arbConfig()), [
      tick('binance', FLAT, 1000),
      tick('bybit', FLAT, 1000),
      { type: 'order_rejected', clientOrderId: 'a-1', reason: 'insufficient_funds', ts: 1100 },
      fill('a-0', 2000, 1.25, 2.5, 1100),
    ]);
    const close = places(r.commands).filter((p) => p.role === 'arb_close');
    expect(close.map((p) => [p.exchange, p.side, p.amount])).toEqual([['binance', 'sell', 1.25]]);
    const done = drive(r.state, [fill(close[0]!.clientOrderId, 1999, 1.25, 2.49875, 1200)]);
    expect(stops(done.commands)).toEqual(['entry_failed']);
    expect(done.state.status).toBe('stopped');
  });

  it('a full round trip: both legs in one step, the trade at the real average fills', () => {
    const p = prepared();
    const r = drive(p.state, [tick('binance', OPP.binance!, 2000), tick('bybit', OPP.bybit!, 2000)]);
    const legs = places(r.commands);
    expect(legs.map((l) => [l.clientOrderId, l.exchange, l.side, l.orderType, l.amount, l.role])).toEqual([
      ['a-2', 'binance', 'buy', 'market', 1, 'arb_buy'],
      ['a-3', 'bybit', 'sell', 'market', 1, 'arb_sell'],
    ]);
    expect(logs(r.commands).find((l) => l.code === 'arb_opportunity')!.params).toMatchObject({
      direction: 'binance_to_bybit',
      buy_avg: 2000.5,
      sell_avg: 2008.8,
      edge_pct: 0.414896,
      fees_pct: 0.2,
      expected_net: 4.2907,
    });
    // Both legs come from ONE tick step (the bybit tick), so the runner sends them concurrently.
    const lastStep = stepArbitrage(
      drive(p.state, [tick('binance', OPP.binance!, 2000)]).state,
      tick('bybit', OPP.bybit!, 2000),
    );
    expect(places(lastStep.commands)).toHaveLength(2);
    // While the trip is open no other trip starts.
    const open = drive(r.state, [tick('bybit', OPP.bybit!, 2500), tick('binance', OPP.binance!, 2600)]);
    expect(places(open.commands)).toEqual([]);
    // The fills slipped a little: buy 2000.6 (fee 2.0006), sell 2008.7 (fee 2.0087).
    // pnl = 1 × (2008.7 − 2000.6) − 2.0006 − 2.0087 = 8.1 − 4.0093 = 4.0907.
    const done = drive(r.state, [fill('a-3', 2008.7, 1, 2.0087, 2100), fill('a-2', 2000.6, 1, 2.0006, 2100)]);
    expect(trades(done.commands)).toEqual([
      {
        lotId: 'a-2',
        qty: 1,
        buyPrice: 2000.6,
        sellPrice: 2008.7,
        buyTime: 2100,
        sellTime: 2100,
        buyFee: 2.0006,
        sellFee: 2.0087,
        pnlNet: 4.0907,
        buyExchange: 'binance',
        sellExchange: 'bybit',
      },
    ]);
    expect(codes(done.commands)).toEqual(['arb_round_trip']);
    const sum = arbitrageSummary(done.state);
    expect(sum).toMatchObject({ pnlQuote: '4.0907', trips: 1, tripOpen: false, waiting: null });
    // binance: base 1.25 + 1 = 2.25, quote 2497.5 − 2000.6 − 2.0006 = 494.8994;
    // bybit: base 1.25 − 1 = 0.25, quote 2497.5 + 2008.7 − 2.0087 = 4504.1913.
    expect(sum.inventory).toEqual({
      binance: { base: 2.25, quote: 494.8994 },
      bybit: { base: 0.25, quote: 4504.1913 },
    });
    expect(arbitrageBot.realizedPnl(done.state)).toBe('4.0907');
    // The cooldown (2 s after 2100): no trip at 3000; at 4100 the next one, sized to what is left: bybit
    // holds 0.25 ETH, binance 494.8994 USDT buys 494.8994 / (2000 × 1.001) = 0.2472 → 0.247 (bybit step).
    const cool = drive(done.state, [tick('binance', OPP.binance!, 3000), tick('bybit', OPP.bybit!, 3000)]);
    expect(places(cool.commands)).toEqual([]);
    const next = drive(cool.state, [tick('binance', OPP.binance!, 4100), tick('bybit', OPP.bybit!, 4100)]);
    expect(places(next.commands).map((l) => [l.exchange, l.side, l.amount])).toEqual([
      ['binance', 'buy', 0.247],
      ['bybit', 'sell', 0.247],
    ]);
  });

  it('a leg failure unwinds the filled leg at market and records the loss as its own trade', () => {
    const p = prepared();
    const r = drive(p.state, [tick('binance', OPP.binance!, 2000), tick('bybit', OPP.bybit!, 2000)]);
    const failed = drive(r.state, [
      fill('a-2', 2000.5, 1, 2.0005, 2100),
      {
        type: 'order_rejected',
        clientOrderId: 'a-3',
        reason: 'exchange_error',
        message: 'timeout',
        ts: 2100,
      },
    ]);
    expect(codes(failed.commands)).toEqual(['order_rejected', 'arb_paused', 'arb_leg_failed']);
    const unwind = places(failed.commands);
    expect(unwind.map((u) => [u.clientOrderId, u.exchange, u.side, u.orderType, u.amount, u.role])).toEqual([
      ['a-4', 'binance', 'sell', 'market', 1, 'arb_unwind'],
    ]);
    expect(trades(failed.commands)).toEqual([]);
    // Sold back at 1999 (fee 1.999): pnl = 1 × (1999 − 2000.5) − 2.0005 − 1.999 = −1.5 − 3.9995 = −5.4995.
    const done = drive(failed.state, [fill('a-4', 1999, 1, 1.999, 2200)]);
    expect(trades(done.commands)).toEqual([
      {
        lotId: 'a-2',
        key: 'a-2#unwind',
        qty: 1,
        buyPrice: 2000.5,
        sellPrice: 1999,
        buyTime: 2200,
        sellTime: 2200,
        buyFee: 2.0005,
        sellFee: 1.999,
        pnlNet: -5.4995,
        buyExchange: 'binance',
        sellExchange: 'binance',
      },
    ]);
    expect(codes(done.commands)).toEqual(['arb_unwound']);
    expect(done.state.realizedPnl).toBe('-5.4995');
    expect(done.state.trip).toBeNull();
    expect(done.state.trips).toBe(0);
    // binance back to 1.25 ETH; quote 2497.5 − 2002.5005 + 1997.001 = 2492.0005.
    expect(arbitrageSummary(done.state).inventory.binance).toEqual({ base: 1.25, quote: 2492.0005 });
  });

  it('after a failed leg it opens no trip for 60 s, then 120 s after a second failure in a row', () => {
    const p = prepared();
    const fail = (state: ArbitrageState, ts: number) => {
      const opened = drive(state, [tick('binance', OPP.binance!, ts), tick('bybit', OPP.bybit!, ts)]);
      const [buy, sell] = places(opened.commands);
      expect(buy?.role).toBe('arb_buy');
      // The buy venue refuses (its account holds less than the bot counts on); the sell filled.
      const failed = drive(opened.state, [
        fill(sell!.clientOrderId, 2008.8, 1, 2.0088, ts + 10),
        {
          type: 'order_rejected',
          clientOrderId: buy!.clientOrderId,
          reason: 'insufficient_funds',
          ts: ts + 10,
        },
      ]);
      const unwind = places(failed.commands)[0]!;
      return drive(failed.state, [fill(unwind.clientOrderId, 2009, 1, 2.009, ts + 20)]).state;
    };
    const once = fail(p.state, 2000);
    expect(once.failStreak).toBe(1);
    expect(once.pausedUntil).toBe(2010 + 60_000);
    expect(arbitrageSummary(once).pausedUntil).toBe(62_010);
    // The same opportunity 30 s later: no trip (each failure would cost the spread and two fees).
    const quiet = drive(once, [tick('binance', OPP.binance!, 32_000), tick('bybit', OPP.bybit!, 32_000)]);
    expect(places(quiet.commands)).toEqual([]);
    // After the pause it tries again; a second failure in a row pauses twice as long.
    const twice = fail(quiet.state, 62_100);
    expect(twice.failStreak).toBe(2);
    expect(twice.pausedUntil).toBe(62_110 + 120_000);
  });

  it('a sell leg that filled while the buy failed is bought back on its venue', () => {
    const p = prepared();
    const r = drive(p.state, [tick('binance', OPP.binance!, 2000), tick('bybit', OPP.bybit!, 2000)]);
    const failed = drive(r.state, [
      { type: 'order_cancelled', clientOrderId: 'a-2', ts: 2100 },
      fill('a-3', 2008.8, 1, 2.0088, 2100),
    ]);
    expect(places(failed.commands).map((u) => [u.exchange, u.side, u.amount, u.role])).toEqual([
      ['bybit', 'buy', 1, 'arb_unwind'],
    ]);
    // Bought back at 2011 (fee 2.011): pnl = 1 × (2008.8 − 2011) − 2.011 − 2.0088 = −2.2 − 4.0198 = −6.2198.
    const done = drive(failed.state, [fill('a-4', 2011, 1, 2.011, 2200)]);
    expect(trades(done.commands)[0]).toMatchObject({
      key: 'a-2#unwind',
      buyPrice: 2011,
      sellPrice: 2008.8,
      buyFee: 2.011,
      sellFee: 2.0088,
      pnlNet: -6.2198,
      buyExchange: 'bybit',
      sellExchange: 'bybit',
    });
  });

  it('partial legs: the matched part is the trip, the rest of the larger leg is unwound', () => {
    const p = prepared();
    const r = drive(p.state, [tick('binance', OPP.binance!, 2000), tick('bybit', OPP.bybit!, 2000)]);
    // Buy filled 1, sell cancelled after 0.6 at 2010 (fee 1.206).
    const done = drive(r.state, [
      fill('a-2', 2000.5, 1, 2.0005, 2100),
      { type: 'order_cancelled', clientOrderId: 'a-3', filled: 0.6, price: 2010, fee: 1.206, ts: 2100 },
    ]);
    // Matched 0.6: buy fee share 2.0005 × 0.6 = 1.2003; pnl = 0.6 × (2010 − 2000.5) − 1.2003 − 1.206 = 3.2937.
    expect(trades(done.commands)).toEqual([
      expect.objectContaining({ qty: 0.6, buyFee: 1.2003, sellFee: 1.206, pnlNet: 3.2937 }),
    ]);
    expect(places(done.commands).map((u) => [u.exchange, u.side, u.amount, u.role])).toEqual([
      ['binance', 'sell', 0.4, 'arb_unwind'],
    ]);
  });

  it('waiting for inventory is logged once per cause', () => {
    const p = prepared();
    // bybit has no base left: the binance → bybit opportunity cannot be taken.
    const s = structuredClone(p.state);
    s.venues[1].inventory.base = '0.001';
    const r = drive(s, [
      tick('binance', OPP.binance!, 2000),
      tick('bybit', OPP.bybit!, 2000),
      tick('binance', OPP.binance!, 2500),
      tick('bybit', OPP.bybit!, 3000),
    ]);
    expect(places(r.commands)).toEqual([]);
    const waits = logs(r.commands).filter((l) => l.code === 'arb_waiting_inventory');
    expect(waits).toHaveLength(1);
    expect(waits[0]!.params).toMatchObject({
      direction: 'binance_to_bybit',
      side: 'base',
      exchange: 'bybit',
      have: '0.001',
      need: 1,
    });
    expect(arbitrageSummary(r.state).waiting).toBe('base_on_bybit');
    // Another cause (binance out of quote as well, bybit's base back) is logged again.
    const t = structuredClone(r.state);
    t.venues[1].inventory.base = '1.25';
    t.venues[0].inventory.quote = '1';
    const q = drive(t, [tick('binance', OPP.binance!, 3500), tick('bybit', OPP.bybit!, 3500)]);
    expect(logs(q.commands).filter((l) => l.code === 'arb_waiting_inventory')).toHaveLength(1);
    expect(arbitrageSummary(q.state).waiting).toBe('quote_on_binance');
  });

  it('a tick without opportunity is not persisted; the live spread is kept in memory', () => {
    const p = prepared();
    const r = stepArbitrage(p.state, tick('bybit', FLAT, 2000));
    expect(r.commands).toEqual([]);
    expect(samePersistedArbitrage(p.state, r.state)).toBe(true);
    expect(r.state.lastSpread).toEqual({
      // 1999 / 2000 − 1 = −0.05 % both ways.
      binance_to_bybit: { edgePct: -0.05, feesPct: 0.2 },
      bybit_to_binance: { edgePct: -0.05, feesPct: 0.2 },
    });
    expect(arbitrageSummary(r.state).books).toEqual({
      binance: { bid: 1999, ask: 2000 },
      bybit: { bid: 1999, ask: 2000 },
    });
  });

  it('does not trade on a stale book of the other venue', () => {
    // binance's last book is from the prepare (ts 1000): at 1000 + max age + 1 it is stale.
    const p = prepared();
    const late = 1000 + ARB_BOOK_MAX_AGE_MS + 1;
    const r = drive(p.state, [tick('bybit', OPP.bybit!, late)]);
    expect(places(r.commands)).toEqual([]);
    expect(r.state.lastSpread).toBeNull();
    // A fresh binance book: the trade goes.
    const fresh = drive(r.state, [tick('binance', OPP.binance!, late)]);
    expect(places(fresh.commands)).toHaveLength(2);
  });

  it('stop close_market sells each venue’s base; cancel_only stops at once', () => {
    const p = prepared();
    const close = drive(p.state, [{ type: 'stop', mode: 'close_market', ts: 3000 }]);
    expect(places(close.commands).map((c) => [c.exchange, c.side, c.amount, c.role])).toEqual([
      ['binance', 'sell', 1.25, 'arb_close'],
      ['bybit', 'sell', 1.25, 'arb_close'],
    ]);
    expect(stops(close.commands)).toEqual([]);
    const half = drive(close.state, [fill('a-2', 1999, 1.25, 2.49875, 3100)]);
    expect(stops(half.commands)).toEqual([]);
    const done = drive(half.state, [fill('a-3', 1999, 1.25, 2.49875, 3100)]);
    expect(stops(done.commands)).toEqual(['user_close_market']);
    expect(codes(done.commands)).toEqual(['arb_closed']);
    // bybit: 2497.5 + 1.25 × 1999 − 2.49875 = 4993.75125 USDT, no base.
    expect(arbitrageSummary(done.state).inventory.bybit).toEqual({ base: 0, quote: 4993.75125 });

    const keep = drive(p.state, [{ type: 'stop', mode: 'cancel_only', ts: 3000 }]);
    expect(places(keep.commands)).toEqual([]);
    expect(stops(keep.commands)).toEqual(['user_cancel_only']);
  });

  it('a stop while a trip is open waits for its legs', () => {
    const p = prepared();
    const r = drive(p.state, [tick('binance', OPP.binance!, 2000), tick('bybit', OPP.bybit!, 2000)]);
    const stopping = drive(r.state, [{ type: 'stop', mode: 'cancel_only', ts: 2050 }]);
    expect(stops(stopping.commands)).toEqual([]);
    expect(stopping.state.status).toBe('stopping');
    const done = drive(stopping.state, [
      fill('a-2', 2000.5, 1, 2.0005, 2100),
      fill('a-3', 2008.8, 1, 2.0088, 2100),
    ]);
    expect(trades(done.commands)).toHaveLength(1);
    expect(stops(done.commands)).toEqual(['user_cancel_only']);
  });

  it('replayed events are harmless', () => {
    const p = prepared();
    const r = drive(p.state, [tick('binance', OPP.binance!, 2000), tick('bybit', OPP.bybit!, 2000)]);
    const done = drive(r.state, [fill('a-2', 2000.5, 1, 2.0005, 2100), fill('a-3', 2008.8, 1, 2.0088, 2100)]);
    const again = drive(done.state, [
      fill('a-2', 2000.5, 1, 2.0005, 2100),
      fill('a-3', 2008.8, 1, 2.0088, 2100),
      fill('a-0', 2000, 1.25, 2.5, 1100),
      { type: 'order_rejected', clientOrderId: 'a-3', reason: 'unknown', ts: 2200 },
    ]);
    expect(again.commands).toEqual([]);
    expect(again.state.venues).toBe(done.state.venues);
    expect(again.state.realizedPnl).toBe(done.state.realizedPnl);
  });

  it('rejects invalid configs and logs unknown actions', () => {
    expect(() => createArbitrageBot('a', arbConfig({ exchanges: ['binance', 'binance'] }))).toThrow(
      ArbitrageConfigError,
    );
    expect(() => createArbitrageBot('a', arbConfig({ amountQuote: 0 }))).toThrow(ArbitrageConfigError);
    expect(() => createArbitrageBot('a', arbConfig({ rules: { binance: BINANCE } }))).toThrow(
      ArbitrageConfigError,
    );
    const r = stepArbitrage(prepared().state, { type: 'action', name: 'x', params: {}, ts: 1 });
    expect(codes(r.commands)).toEqual(['invalid_value']);
  });
});
