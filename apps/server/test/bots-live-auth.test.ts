/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- JSON answers read loosely */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runners } from '../src/modules/bots/routes';
import { defaultVenueFactory } from '../src/modules/exchanges/venue-factory';
import type { DbVenueRegistry } from '../src/modules/exchanges/venue-registry';
import { until } from './bots.helpers';
import { binanceExchangeInfo, createTestUser, makeTestApp, type TestApp } from './helpers';

const KEY = 'tradeOnlyKeyLiveBot7Qp';
const SECRET = 'tradeOnlySecretLiveBot_Zr8Kw3Yh6Tq1';

const json = (b: unknown, status = 200) =>
  new Response(JSON.stringify(b), { status, headers: { 'content-type': 'application/json' } });

/**
 * Binance's spot REST API behind ccxt's fetch, as recorded-style responses: market info, the account,
 * API restrictions, and an order book of this key's orders (create, query by client id, open orders,
 * cancel). `revoke()` makes every signed call answer Binance's 401 for a key that no longer works.
 */
function fakeBinance(price: () => number) {
  let revoked = false;
  let seq = 1000;
  const orders = new Map<string, Record<string, any>>();
  const byId = new Map<string, string>();
  const view = (o: Record<string, any>) => ({ ...o });
  const fetchImplementation = async (url: string, init: Record<string, unknown>): Promise<Response> => {
    await Promise.resolve();
    const u = new URL(url);
    const method = (typeof init.method === 'string' ? init.method : 'GET').toUpperCase();
    const headers = (init.headers ?? {}) as Record<string, string>;
    const key = headers['X-MBX-APIKEY'] ?? headers['x-mbx-apikey'];
    // ccxt sends signed parameters in the query, or in the body of a POST.
    const params = new URLSearchParams(u.search);
    if (typeof init.body === 'string') for (const [k, v] of new URLSearchParams(init.body)) params.set(k, v);
    if (u.pathname === '/api/v3/exchangeInfo') return json(binanceExchangeInfo());
    if (revoked || key !== KEY || !params.get('signature')) {
      return json({ code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' }, 401);
    }
    if (u.pathname === '/api/v3/account') {
      return json({ balances: [{ asset: 'USDT', free: '10000', locked: '0' }] });
    }
    if (u.pathname === '/sapi/v1/account/apiRestrictions') {
      return json({ enableWithdrawals: false, enableSpotAndMarginTrading: true });
    }
    if (u.pathname === '/api/v3/order' && method === 'POST') {
      const id = String(seq++);
      const market = params.get('type') === 'MARKET';
      const qty = params.get('quantity') ?? '0';
      const p = market ? price().toFixed(2) : (params.get('price') ?? '0');
      const o = {
        symbol: 'BTCUSDT',
        orderId: Number(id),
        clientOrderId: params.get('newClientOrderId') ?? `x-${id}`,
        transactTime: Date.now(),
        updateTime: Date.now(),
        price: market ? '0.00000000' : p,
        origQty: qty,
        executedQty: market ? qty : '0.00000000',
        cummulativeQuoteQty: market ? (Number(qty) * Number(p)).toFixed(8) : '0.00000000',
        status: market ? 'FILLED' : 'NEW',
        timeInForce: 'GTC',
        type: params.get('type'),
        side: params.get('side'),
        fills: market
          ? [
              {
                price: p,
                qty,
                commission: (Number(qty) * Number(p) * 0.001).toFixed(8),
                commissionAsset: 'USDT',
              },
            ]
          : [],
      };
      orders.set(o.clientOrderId, o);
      byId.set(id, o.clientOrderId);
      return json(view(o));
    }
    if (u.pathname === '/api/v3/order' && method === 'GET') {
      const cid = params.get('origClientOrderId') ?? byId.get(params.get('orderId') ?? '') ?? '';
      const o = orders.get(cid);
      return o ? json(view(o)) : json({ code: -2013, msg: 'Order does not exist.' }, 400);
    }
    if (u.pathname === '/api/v3/order' && method === 'DELETE') {
      const cid = params.get('origClientOrderId') ?? byId.get(params.get('orderId') ?? '') ?? '';
      const o = orders.get(cid);
      if (!o || o.status !== 'NEW') return json({ code: -2011, msg: 'Unknown order sent.' }, 400);
      o.status = 'CANCELED';
      o.updateTime = Date.now();
      return json(view(o));
    }
    if (u.pathname === '/api/v3/openOrders') {
      return json([...orders.values()].filter((o) => o.status === 'NEW').map(view));
    }
    // Every order of the symbol (open and finished), as GET /api/v3/order shows each, oldest first:
    // https://developers.binance.com/docs/binance-spot-api-docs/rest-api/trading-endpoints#all-orders-user_data
    if (u.pathname === '/api/v3/allOrders') {
      const all = [...orders.values()].filter((o) => o.symbol === params.get('symbol'));
      return json(
        all
          .sort((a, b) => a.orderId - b.orderId)
          .slice(-Number(params.get('limit') ?? 500))
          .map(view),
      );
    }
    return json({ code: -1000, msg: `not recorded: ${u.pathname}` }, 404);
  };
  return {
    fetchImplementation,
    orders,
    revoke: (v: boolean) => {
      revoked = v;
    },
  };
}

describe('a live key that starts failing pauses its bots, which resume when it works again', () => {
  let t: TestApp;
  let user: Awaited<ReturnType<typeof createTestUser>>;
  const fake = fakeBinance(() => 50_000);

  const call = async (method: string, url: string, body?: unknown) => {
    const res = await t.app.inject({
      method: method as 'POST',
      url,
      headers: user.auth,
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
    return { status: res.statusCode, body: res.json<Record<string, any>>() };
  };
  const bot = async () => (await call('GET', '/api/bots_activos_dca')).body.bots[0];

  beforeAll(async () => {
    t = await makeTestApp({ SIMULATOR_CONTROL: '1', BOT_RUNNER: '1' });
    (t.ctx.services.venues as DbVenueRegistry).factory = defaultVenueFactory(t.ctx, {
      fetchImplementation: fake.fetchImplementation,
    });
    runners.get(t.ctx)!.deps.retryBaseMs = 5;
    user = await createTestUser(t);
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/dev/market/price',
      payload: { exchange: 'binance', symbol: 'BTC/USDT', price: 50_000 },
    });
    expect(r.statusCode).toBe(200);
    const c = await call('POST', '/api/conectar_exchange', {
      exchange: 'binance',
      apiKey: KEY,
      apiSecret: SECRET,
    });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
  });
  afterAll(async () => t?.close());

  it('pauses on the 401 with the reason, answers every call meanwhile, and resumes on the next check', async () => {
    const started = await call('POST', '/api/start_bot_dca', {
      exchange: 'binance',
      symbol: 'BTC/USDT',
      amount: 20,
      tp: 1,
      separacion: 1,
      os: 3,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const runner = runners.get(t.ctx)!;
    await runner.idle();
    const open = () => [...fake.orders.values()].filter((o) => o.status === 'NEW').length;
    await until(async () => (open() === 4 ? true : null));

    // The key is revoked on the exchange; the next order call of the bot (a relocation) meets the 401.
    fake.revoke(true);
    await call('POST', '/api/dca/relocate', { exchange: 'binance', symbol: 'BTC/USDT' });
    const paused = await until(async () => {
      const b = await bot();
      return b?.problem === 'auth_failed' ? b : null;
    });
    expect(paused.status).toBe('error');
    expect(paused.reason.en).toMatch(/refuses the API key/);
    expect(paused.reason.es).toMatch(/rechaza la API key/);
    expect(paused.open_lots).toBe(1);
    const events = (await call('GET', `/api/bots/${paused.id}/events`)).body.events as Record<string, any>[];
    expect(events.map((e) => e.code)).toContain('auth_failed');
    expect(runner.has(paused.id)).toBe(false);
    // Every call still answers while the key fails (the resume call tries it again and says so).
    for (const [m, u] of [
      ['GET', '/api/bots_activos_dca'],
      ['POST', '/api/precios_actuales'],
      ['POST', '/api/pnls_actuales'],
      ['GET', '/api/dca/pending_orders'],
    ] as const) {
      expect((await call(m, u, m === 'POST' ? {} : undefined)).status, u).toBe(200);
    }
    const still = await call('POST', '/api/reanudar_bots_activos', {});
    expect(still.status).toBe(200);
    expect(still.body.problems).toEqual([expect.objectContaining({ problem: 'auth_failed' })]);

    // The key works again: resuming tries it, clears the problem and reconciles the bot.
    fake.revoke(false);
    const resumed = await call('POST', '/api/reanudar_bots_activos', {});
    expect(resumed.status).toBe(200);
    expect(resumed.body.problems).toEqual([]);
    const back = await until(async () => {
      const b = await bot();
      return b && b.problem === null && b.status === 'active' ? b : null;
    });
    expect(back.open_lots).toBe(1);
    expect(runner.has(back.id)).toBe(true);
    const after = (await call('GET', `/api/bots/${back.id}/events`)).body.events as Record<string, any>[];
    expect(after.map((e) => e.code)).toContain('problem_cleared');
    // Trading again: the ladder is complete on the exchange.
    await until(async () => (open() >= 4 ? true : null));
  });
});
