import { describe, expect, it } from 'vitest';
import { MarketSimulator, SIM_MAX_PRICE } from '../src/index';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
const walk = (sim: MarketSimulator, from: number, steps: number) => {
  for (let i = 1; i <= steps; i++) sim.advance(from + i * 1000);
};

describe('MarketSimulator snapshot and restore (a restart is invisible)', () => {
  it('continues the walk exactly where the snapshot was taken, held prices and candles included', () => {
    const a = new MarketSimulator({ startTime: T0 });
    walk(a, T0, 90);
    a.setPrice('kraken', 'ETH/USDT', 3210.5);
    a.candles('binance', 'BTC/USDT', '1m');
    walk(a, T0 + 90_000, 30);
    const snap = JSON.parse(JSON.stringify(a.snapshot())) as unknown;
    const candles = JSON.parse(JSON.stringify(a.candleSeries())) as ReturnType<
      MarketSimulator['candleSeries']
    >;

    // A new process: a fresh simulator from the seed, then the stored state.
    const b = new MarketSimulator({ startTime: T0 + 500_000 });
    expect(b.price('binance', 'BTC/USDT')).not.toBe(a.price('binance', 'BTC/USDT'));
    expect(b.restore(snap)).toBe(true);
    b.restoreCandles(candles);
    for (const [ex, sym] of [
      ['binance', 'BTC/USDT'],
      ['kraken', 'ETH/USDT'],
      ['okx', 'SOL/USDC'],
    ] as const) {
      expect(b.price(ex, sym)).toBe(a.price(ex, sym));
    }
    expect(b.candles('binance', 'BTC/USDT', '1m')).toEqual(a.candles('binance', 'BTC/USDT', '1m'));
    // The same next steps give the same prices: the generator's state came along.
    walk(a, T0 + 120_000, 20);
    walk(b, T0 + 120_000, 20);
    expect(b.price('bybit', 'ADA/USDT')).toBe(a.price('bybit', 'ADA/USDT'));
    expect(b.price('kraken', 'ETH/USDT')).toBe(3210.5);
    expect(b.candles('binance', 'BTC/USDT', '1m')).toEqual(a.candles('binance', 'BTC/USDT', '1m'));
  });

  it('ignores a snapshot of another seed or with bad numbers, and never produces a non-finite price', () => {
    const a = new MarketSimulator({ startTime: T0 });
    const good = a.snapshot();
    expect(new MarketSimulator({ seed: 7, startTime: T0 }).restore(good)).toBe(false);
    expect(new MarketSimulator({ startTime: T0 }).restore({ v: 2 })).toBe(false);
    expect(new MarketSimulator({ startTime: T0 }).restore(null)).toBe(false);

    const b = new MarketSimulator({ startTime: T0 });
    const bad = {
      ...good,
      usd: { ...good.usd, BTC: Number.POSITIVE_INFINITY, ETH: -1 },
      pairs: {
        ...good.pairs,
        'binance|SOL/USDT': [0, SIM_MAX_PRICE * 10],
        'binance|XRP/USDT': [Number.NaN, null],
      },
    };
    // JSON turns Infinity and NaN into null, as a stored snapshot would.
    expect(b.restore(JSON.parse(JSON.stringify(bad)))).toBe(true);
    for (const sym of ['BTC/USDT', 'ETH/USDT', 'SOL/USDT', 'XRP/USDT']) {
      const p = b.price('binance', sym);
      expect(Number.isFinite(p) && p > 0 && p <= SIM_MAX_PRICE, `${sym} ${p}`).toBe(true);
    }
    expect(() => b.setPrice('binance', 'BTC/USDT', 1e308)).toThrow(/at most/);
    expect(() => b.setPrice('binance', 'BTC/USDT', 1e-320)).toThrow(/tick size/);
    expect(() => b.setPrice('binance', 'BTC/USDT', Number.POSITIVE_INFINITY)).toThrow();
    b.advance(T0 + 3_600_000);
    expect(Number.isFinite(b.price('binance', 'BTC/USDT'))).toBe(true);
  });
});
