import { SPOT_BASES, TICKER_ASSETS } from '@bytx/contract';
import { describe, expect, it } from 'vitest';
import {
  InvalidOrderError,
  MarketSimulator,
  SimulatedMarketData,
  TIMEFRAMES,
  simulatedSymbols,
  timeframeStart,
} from '../src/index';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);

describe('MarketSimulator', () => {
  it('lists every spot pair and the ticker pairs on every exchange key', () => {
    const sim = new MarketSimulator({ startTime: T0 });
    const symbols = simulatedSymbols();
    expect(symbols).toHaveLength(SPOT_BASES.length * 2 + 1);
    for (const a of TICKER_ASSETS) expect(symbols).toContain(`${a.symbol.slice(0, -4)}/USDT`);
    expect(symbols).toContain('BYTX/USDC');
    for (const ex of ['binance', 'bybit_testnet', 'zb', 'gateio']) {
      expect(Object.keys(sim.markets(ex))).toHaveLength(symbols.length);
    }
    expect(sim.price('binance', 'BTC/USDT')).toBeGreaterThan(90_000);
    expect(sim.price('binance', 'BTC/USDT')).toBeLessThan(100_000);
    expect(sim.price('binance', 'BYTX/USDT')).toBeCloseTo(0.002, 4);
  });

  it('is deterministic for a seed and offsets exchanges by 0.02-0.1% (+ a small wobble)', () => {
    const a = new MarketSimulator({ seed: 42, startTime: T0 });
    const b = new MarketSimulator({ seed: 42, startTime: T0 });
    for (let i = 1; i <= 50; i++) {
      a.advance(T0 + i * 1000);
      b.advance(T0 + i * 1000);
    }
    expect(a.price('binance', 'ETH/USDT')).toBe(b.price('binance', 'ETH/USDT'));
    expect(a.price('binance', 'ETH/USDT')).not.toBe(
      new MarketSimulator({ seed: 43, startTime: T0 }).price('binance', 'ETH/USDT'),
    );
    const fresh = new MarketSimulator({ seed: 42, startTime: T0 });
    const bin = fresh.price('binance', 'ETH/USDT');
    const byb = fresh.price('bybit', 'ETH/USDT');
    const diff = Math.abs(bin - byb) / bin;
    expect(diff).toBeGreaterThan(0);
    expect(diff).toBeLessThan(0.0061);
  });

  it('advances in slices (one step per exchange) to the same prices as in one go', () => {
    const whole = new MarketSimulator({ seed: 42, startTime: T0 });
    const sliced = new MarketSimulator({ seed: 42, startTime: T0 });
    const btc = (s: MarketSimulator) => [s.price('binance', 'BTC/USDT'), s.price('okx', 'BTC/USDT')];
    for (let i = 1; i <= 30; i++) {
      whole.advance(T0 + i * 1000);
      const before = btc(sliced);
      const steps = sliced.beginAdvance(T0 + i * 1000);
      expect(steps).toHaveLength(
        new Set(Object.keys(sliced.snapshot().pairs).map((k) => k.split('|')[0])).size,
      );
      // Until its step runs, an exchange keeps the last tick's prices.
      expect(btc(sliced)).toEqual(before);
      for (const step of steps) step();
    }
    expect(sliced.snapshot()).toEqual(whole.snapshot());
    expect(btc(sliced)).toEqual(btc(whole));
    expect(btc(sliced)).not.toEqual(btc(new MarketSimulator({ seed: 42, startTime: T0 })));
    // No time passed: nothing to step.
    expect(sliced.beginAdvance(T0 + 30 * 1000)).toEqual([]);
  });

  it('moves prices on advance and emits events; a set price holds until changed', () => {
    const sim = new MarketSimulator({ seed: 1, startTime: T0 });
    const events: number[] = [];
    const off = sim.onPairPrice('binance', 'SOL/USDT', (e) => events.push(e.price));
    const p0 = sim.price('binance', 'SOL/USDT');
    for (let i = 1; i <= 20; i++) sim.advance(T0 + i * 1000);
    expect(events.length).toBeGreaterThan(5);
    expect(sim.price('binance', 'SOL/USDT')).not.toBe(p0);
    expect(sim.setPrice('binance', 'SOL/USDT', 123.4567)).toBe(123.457);
    for (let i = 21; i <= 40; i++) sim.advance(T0 + i * 1000);
    expect(sim.price('binance', 'SOL/USDT')).toBe(123.457);
    expect(sim.price('bybit', 'SOL/USDT')).not.toBe(123.457);
    off();
    sim.setPrice('binance', 'SOL/USDT', 100);
    expect(events.at(-1)).toBe(123.457);
    expect(() => sim.setPrice('binance', 'NOPE/USDT', 1)).toThrow(InvalidOrderError);
    expect(() => sim.setPrice('binance', 'SOL/USDT', -1)).toThrow(InvalidOrderError);
  });

  it('has a 10-level book around the price', () => {
    const sim = new MarketSimulator({ startTime: T0 });
    sim.setPrice('binance', 'ETH/USDT', 3400);
    const book = sim.orderBook('binance', 'ETH/USDT');
    expect(book.bids).toHaveLength(10);
    expect(book.asks).toHaveLength(10);
    expect(book.bids[0]![0]).toBeLessThan(3400);
    expect(book.asks[0]![0]).toBeGreaterThan(3400);
    for (let i = 1; i < 10; i++) {
      expect(book.bids[i]![0]).toBeLessThan(book.bids[i - 1]![0]);
      expect(book.asks[i]![0]).toBeGreaterThan(book.asks[i - 1]![0]);
    }
    expect(sim.orderBook('binance', 'ETH/USDT', 5).asks).toHaveLength(5);
    const t = sim.ticker('binance', 'ETH/USDT');
    expect(t.bid).toBe(book.bids[0]![0]);
    expect(typeof t.percentage).toBe('number');
  });

  it('has candles with history for every timeframe, updated by ticks', () => {
    const sim = new MarketSimulator({ startTime: T0 });
    for (const tf of TIMEFRAMES) {
      const c = sim.candles('binance', 'BTC/USDT', tf, undefined, 1000);
      expect(c.length).toBe(301);
      for (let i = 1; i < c.length; i++) {
        expect(c[i]![0]).toBeGreaterThan(c[i - 1]![0]);
        expect(c[i]![1]).toBe(c[i - 1]![4]); // opens where the previous closed
      }
      for (const [, o, h, l, cl] of c) {
        expect(h).toBeGreaterThanOrEqual(Math.max(o, cl));
        expect(l).toBeLessThanOrEqual(Math.min(o, cl));
      }
      expect(c.at(-1)![0]).toBe(timeframeStart(tf, T0));
    }
    sim.setPrice('binance', 'BTC/USDT', 99_000);
    sim.advance(T0 + 61_000);
    const m = sim.candles('binance', 'BTC/USDT', '1m', undefined, 2);
    expect(m.at(-1)).toMatchObject([
      timeframeStart('1m', T0 + 61_000),
      expect.any(Number),
      99_000,
      expect.any(Number),
      99_000,
      expect.any(Number),
    ]);
    expect(sim.candles('binance', 'BTC/USDT', '1h', undefined, 10)).toHaveLength(10);
  });

  it('aligns weeks on Monday and months on the 1st', () => {
    expect(new Date(timeframeStart('1w', T0)).getUTCDay()).toBe(1);
    expect(new Date(timeframeStart('1M', T0)).toISOString()).toBe('2025-01-01T00:00:00.000Z');
  });

  it('SimulatedMarketData serves one exchange and rejects unknown symbols', async () => {
    const sim = new MarketSimulator({ startTime: T0 });
    const md = new SimulatedMarketData(sim, 'kraken');
    expect((await md.fetchTicker('ETH/USDC')).last).toBeGreaterThan(0);
    await expect(md.fetchTicker('ETH/EUR')).rejects.toBeInstanceOf(InvalidOrderError);
    expect(() => new SimulatedMarketData(sim, 'nope')).toThrow(/Unknown exchange/);
  });
});
