/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- JSON answers read loosely */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runners } from '../src/modules/bots/routes';
import { defaultVenueFactory } from '../src/modules/exchanges/venue-factory';
import type { DbVenueRegistry } from '../src/modules/exchanges/venue-registry';
import { fakeBinanceSpot } from './binance-fake';
import { until } from './bots.helpers';
import { createTestUser, makeTestApp, type TestApp } from './helpers';

const KEY = 'tradeOnlyKeyLiveBot7Qp';
const SECRET = 'tradeOnlySecretLiveBot_Zr8Kw3Yh6Tq1';

const fakeBinance = (price: () => number) => fakeBinanceSpot(KEY, price);

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
