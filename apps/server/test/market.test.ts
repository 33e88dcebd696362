import { TICKER_ASSETS } from '@bytx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers';

describe('market data (MARKET_DATA=simulated, SIMULATOR_CONTROL=1)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp({ SIMULATOR_CONTROL: '1' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('exposes the hub and the simulator to other modules', () => {
    expect(t.ctx.services.market).toBeDefined();
    expect(t.ctx.services.simulator).toBeDefined();
  });

  it('GET /api/precio answers the price; set prices hold; only the canonical symbol', async () => {
    const set = await t.app.inject({
      method: 'POST',
      url: '/api/dev/market/price',
      payload: { exchange: 'binance', symbol: 'BTC/USDT', price: 91234.567 },
    });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual({ ok: true, exchange: 'binance', symbol: 'BTC/USDT', price: 91234.57 });
    const r = await t.app.inject({ url: `/api/precio?symbol=BTC/USDT&exchange=binance&user=anonimo` });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ price: 91234.57 });
    // One canonical symbol (docs/bots/runner.md): other spellings are not the pair.
    for (const symbol of ['BTCUSDT', 'btc-usdt', 'btc/usdt', 'BTC/%E2%80%8BUSDT', '%E2%80%AEBTC/USDT']) {
      const other = await t.app.inject({ url: `/api/precio?symbol=${symbol}&exchange=binance` });
      expect(other.statusCode, symbol).toBe(400);
      expect(other.json<{ error: string }>().error).toBe('⚠️ This pair is not available on Binance.');
    }
    // Another exchange keeps its own (offset) price.
    const bybit = await t.app.inject({ url: '/api/precio?symbol=BTC/USDT&exchange=bybit' });
    expect(bybit.json<{ price: number }>().price).not.toBe(91234.57);
  });

  it('answers 400 with a clear message for an unknown exchange or symbol', async () => {
    const ex = await t.app.inject({ url: '/api/precio?symbol=BTC/USDT&exchange=nowhere' });
    expect(ex.statusCode).toBe(400);
    expect(ex.json<{ error: string }>().error).toMatch(/Unknown exchange 'nowhere'/);
    const sym = await t.app.inject({ url: '/api/precio?symbol=FOO/BAR&exchange=binance' });
    expect(sym.statusCode).toBe(400);
    expect(sym.json<{ error: string }>().error).toBe('⚠️ This pair is not available on Binance.');
    const missing = await t.app.inject({ url: '/api/precio?exchange=binance' });
    expect(missing.statusCode).toBe(400);
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/dev/market/price',
      payload: { exchange: 'binance', symbol: 'BTC/USDT', price: -1 },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('GET /api/ticker gives the 16 assets as { usd, usd_24h_change } from Binance prices', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/dev/market/price',
      payload: { exchange: 'binance', symbol: 'ETH/USDT', price: 3333.33 },
    });
    const r = await t.app.inject({ url: '/api/ticker' });
    expect(r.statusCode).toBe(200);
    const body = r.json<Record<string, { usd: number; usd_24h_change: number | null }>>();
    expect(Object.keys(body).sort()).toEqual(TICKER_ASSETS.map((a) => a.id).sort());
    expect(body.ethereum?.usd).toBe(3333.33);
    for (const v of Object.values(body)) {
      expect(v.usd).toBeGreaterThan(0);
      expect(typeof v.usd_24h_change).toBe('number');
    }
    const some = await t.app.inject({ url: '/api/ticker?ids=bitcoin,dogecoin,nope' });
    expect(Object.keys(some.json()).sort()).toEqual(['bitcoin', 'dogecoin']);
  });

  it('GET /api/market/orderbook gives at most 10 levels per side around the price', async () => {
    const r = await t.app.inject({ url: '/api/market/orderbook?exchange=binance&symbol=ETH/USDT&limit=10' });
    expect(r.statusCode).toBe(200);
    const b = r.json<{ bids: [number, number][]; asks: [number, number][]; symbol: string }>();
    expect(b.symbol).toBe('ETH/USDT');
    expect(b.bids).toHaveLength(10);
    expect(b.asks).toHaveLength(10);
    expect(b.bids[0]![0]).toBeLessThan(3333.33);
    expect(b.asks[0]![0]).toBeGreaterThan(3333.33);
    const five = await t.app.inject({
      url: '/api/market/orderbook?exchange=binance&symbol=ETH/USDT&limit=5',
    });
    expect(five.json<{ asks: unknown[] }>().asks).toHaveLength(5);
    const tooMany = await t.app.inject({
      url: '/api/market/orderbook?exchange=binance&symbol=ETH/USDT&limit=50',
    });
    expect(tooMany.statusCode).toBe(400);
  });

  it('GET /api/market/candles gives history for every timeframe', async () => {
    for (const tf of ['1m', '5m', '15m', '1h', '4h', '1d', '1w', '1M', '15', 'D']) {
      const r = await t.app.inject({
        url: `/api/market/candles?exchange=okx&symbol=SOL/USDC&timeframe=${tf}&limit=100`,
      });
      expect(r.statusCode, tf).toBe(200);
      const body = r.json<{ candles: number[][]; timeframe: string }>();
      expect(body.candles).toHaveLength(100);
      expect(body.candles[99]![0]!).toBeGreaterThan(body.candles[0]![0]!);
    }
    const bad = await t.app.inject({ url: '/api/market/candles?exchange=okx&symbol=SOL/USDC&timeframe=7m' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ error: string }>().error).toMatch(/timeframe/);
  });

  it('GET /api/market/pairs lists the exchange pairs', async () => {
    const r = await t.app.inject({ url: '/api/market/pairs?exchange=kraken' });
    expect(r.statusCode).toBe(200);
    const { pairs } = r.json<{ pairs: string[] }>();
    expect(pairs).toContain('BTC/USDT');
    expect(pairs).toContain('BYTX/USDC');
    expect(pairs).toContain('DOGE/USDT');
    expect(pairs).toHaveLength(49);
  });

  it('GET /api/market/ticker gives bid, ask and 24 h change', async () => {
    const r = await t.app.inject({ url: '/api/market/ticker?exchange=binance&symbol=ETH/USDT' });
    expect(r.json()).toMatchObject({ exchange: 'binance', symbol: 'ETH/USDT', last: 3333.33 });
  });

  it('shares one upstream watch per pair however many subscribe', () => {
    const hub = t.ctx.services.market!;
    const seen: number[] = [];
    const offs = [1, 2, 3].map(() => hub.subscribe('binance', 'LINK/USDT', (tk) => seen.push(tk.last)));
    t.ctx.services.simulator!.setPrice('binance', 'LINK/USDT', 25);
    expect(seen).toEqual([25, 25, 25]);
    for (const off of offs) off();
    t.ctx.services.simulator!.setPrice('binance', 'LINK/USDT', 26);
    expect(seen).toHaveLength(3);
  });
});

describe('simulator control off', () => {
  it('POST /api/dev/market/price does not exist', async () => {
    const t = await makeTestApp();
    try {
      const r = await t.app.inject({
        method: 'POST',
        url: '/api/dev/market/price',
        payload: { exchange: 'binance', symbol: 'BTC/USDT', price: 1 },
      });
      expect(r.statusCode).toBe(404);
      expect((await t.app.inject({ url: '/api/precio?symbol=BTC/USDT&exchange=binance' })).statusCode).toBe(
        200,
      );
    } finally {
      await t.close();
    }
  });
});
