import { describe, expect, it } from 'vitest';
import { near, onReplay, TIER } from './tier';
import { replay } from './replay';

/**
 * Conformance tier (issue 38 point 6), public market data: each exchange's recorded ticker, order book
 * and candles (fixtures/<exchange>.ts, with their sources) replayed through the real CcxtVenue + ccxt at
 * the HTTP boundary, and read back with the meaning the exchange gave them: last price, best bid and
 * ask, the 24 h change, the time; book levels [price, amount] best first; candles as [open time ms,
 * open, high, low, close, base volume].
 */

describe('conformance: ticker (last, bid, ask, 24 h change, time)', () => {
  for (const [exchange, fx] of TIER) {
    const c = fx.ticker;
    if (!c) continue;
    it(`${exchange}: ${c.source}`, async () => {
      const r = replay(exchange, fx, c.replies);
      const symbol = c.symbol ?? String(fx.spot.symbol);
      const before = Date.now();
      const t = await onReplay(r, () => r.venue.fetchTicker(symbol));
      expect(t.symbol).toBe(symbol);
      near(t.last, c.expect.last, 'last');
      near(t.bid, c.expect.bid, 'bid');
      near(t.ask, c.expect.ask, 'ask');
      if (t.bid !== null && t.ask !== null) expect(t.bid).toBeLessThanOrEqual(t.ask);
      near(t.percentage, c.expect.percentage, 'percentage (24 h change, %)');
      if (c.expect.timestamp === null) {
        // No time in the reply: the venue stamps the moment it read it.
        expect(t.timestamp).toBeGreaterThanOrEqual(before);
        expect(t.timestamp).toBeLessThanOrEqual(Date.now());
      } else expect(t.timestamp).toBe(c.expect.timestamp);
    });
  }
});

describe('conformance: order book (bids high to low, asks low to high, [price, amount])', () => {
  for (const [exchange, fx] of TIER) {
    const c = fx.book;
    if (!c) continue;
    it(`${exchange}: ${c.source}`, async () => {
      const r = replay(exchange, fx, c.replies);
      const symbol = c.symbol ?? String(fx.spot.symbol);
      const before = Date.now();
      const b = await onReplay(r, () => r.venue.fetchOrderBook(symbol, 10));
      expect(b.symbol).toBe(symbol);
      expect(b.bids.length, 'bid levels').toBe(c.expect.bids);
      expect(b.asks.length, 'ask levels').toBe(c.expect.asks);
      near(b.bids[0]![0], c.expect.bestBid[0], 'best bid price');
      near(b.bids[0]![1], c.expect.bestBid[1], 'best bid amount');
      near(b.asks[0]![0], c.expect.bestAsk[0], 'best ask price');
      near(b.asks[0]![1], c.expect.bestAsk[1], 'best ask amount');
      for (let i = 1; i < b.bids.length; i++) expect(b.bids[i]![0]).toBeLessThan(b.bids[i - 1]![0]);
      for (let i = 1; i < b.asks.length; i++) expect(b.asks[i]![0]).toBeGreaterThan(b.asks[i - 1]![0]);
      expect(b.bids[0]![0]).toBeLessThan(b.asks[0]![0]);
      for (const [p, a] of [...b.bids, ...b.asks]) expect(p > 0 && a > 0, `level ${p} × ${a}`).toBe(true);
      if (c.expect.timestamp === null) expect(b.timestamp).toBeGreaterThanOrEqual(before);
      else expect(b.timestamp).toBe(c.expect.timestamp);
    });
  }
});

describe('conformance: candles ([open time ms, open, high, low, close, base volume], oldest first)', () => {
  for (const [exchange, fx] of TIER) {
    const c = fx.candles;
    if (!c) continue;
    it(`${exchange}: ${c.source}`, async () => {
      const r = replay(exchange, fx, c.replies);
      const rows = await onReplay(r, () =>
        r.venue.fetchOHLCV(c.symbol ?? String(fx.spot.symbol), c.timeframe),
      );
      expect(rows.length).toBe(c.expect.count);
      const first = rows[0]!;
      expect(first[0], 'open time (ms)').toBe(c.expect.first[0]);
      ['open', 'high', 'low', 'close', 'volume'].forEach((what, i) =>
        near(first[i + 1], c.expect.first[i + 1]!, what),
      );
      for (const [t, o, h, l, cl, v] of rows) {
        expect(Number.isInteger(t) && t > 1e12, `open time ${t} is in ms`).toBe(true);
        expect(l <= Math.min(o, cl) && Math.max(o, cl) <= h, `low ≤ open, close ≤ high at ${t}`).toBe(true);
        expect(v).toBeGreaterThanOrEqual(0);
      }
      for (let i = 1; i < rows.length; i++) {
        const step = rows[i]![0] - rows[i - 1]![0];
        if (c.expect.stepMs !== undefined) expect(step, 'candle length').toBe(c.expect.stepMs);
        else expect(step).toBeGreaterThan(0);
      }
    });
  }
});
