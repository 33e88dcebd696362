/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- JSON answers read loosely */
import { BOT_PROBLEMS } from '@bytx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client';
import { runners } from '../src/modules/bots/routes';
import {
  KEY_RECHECK_EVERY_MS,
  KEY_RECHECK_JOB,
  type KeyRechecker,
} from '../src/modules/exchanges/key-recheck';
import { defaultVenueFactory } from '../src/modules/exchanges/venue-factory';
import type { DbVenueRegistry } from '../src/modules/exchanges/venue-registry';
import { fakeBinanceSpot } from './binance-fake';
import { until } from './bots.helpers';
import {
  createTestUser,
  freshPostgresUrl,
  makeTestApp,
  PG_SKIP_REASON,
  PG_URL,
  tempDir,
  type TestApp,
} from './helpers';

/**
 * Issue 38 point 9: live keys are checked again daily and on every resume. A key that gained withdrawal
 * rights, or that the exchange now refuses, pauses its bots with the reason (en/es) and marks the
 * connection; a good key changes nothing. ccxt runs for real against Binance's documented answers; only its
 * fetch is replaced:
 * - GET /api/v3/account (balances), the signed call every check makes;
 * - GET /sapi/v1/account/apiRestrictions (https://developers.binance.com/docs/wallet/account/api-key-permission):
 *   `enableWithdrawals` true once the user ticks "Enable Withdrawals" on the key;
 * - a revoked key: HTTP 401 `{"code": -2015, "msg": "Invalid API-key, IP, or permissions for action."}`
 *   (https://developers.binance.com/docs/binance-spot-api-docs/errors), ccxt's AuthenticationError.
 */

const KEY = 'tradeOnlyKeyRecheck5Tw';
const SECRET = 'tradeOnlySecretRecheck_Hk2Lp9Wd4Zq7';

const fakeBinance = (price: () => number) => fakeBinanceSpot(KEY, price);

async function scenario(env: Record<string, string>, database?: Awaited<ReturnType<typeof openDatabase>>) {
  const t: TestApp = await makeTestApp(
    { SIMULATOR_CONTROL: '1', BOT_RUNNER: '1', ...env },
    database ? { database } : {},
  );
  const fake = fakeBinance(() => 50_000);
  (t.ctx.services.venues as DbVenueRegistry).factory = defaultVenueFactory(t.ctx, {
    fetchImplementation: fake.fetchImplementation,
  });
  const keys = t.ctx.services.keys as KeyRechecker;
  // Every check asks the exchange (the 60 s reuse is for many bots resuming at once).
  keys.reuseMs = 0;
  const user = await createTestUser(t);
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await t.app.inject({
      method: method as 'POST',
      url,
      headers: user.auth,
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
    return { status: res.statusCode, body: res.json<Record<string, any>>() };
  };
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
  const bot = async () => (await call('GET', '/api/bots_activos_dca')).body.bots[0];
  const connection = async (): Promise<Record<string, any>> =>
    ((await call('GET', '/api/exchanges/connections')).body.connections as Record<string, any>[]).find(
      (x) => x.exchange === 'binance',
    ) ?? {};
  const job = async (): Promise<Record<string, any>> =>
    (
      await t.ctx.database.sql.query(`SELECT next_run_at, last_run_at FROM scheduled_jobs WHERE name = $1`, [
        KEY_RECHECK_JOB,
      ])
    )[0] ?? {};
  return { t, fake, keys, user, call, runner, bot, connection, job };
}

describe('live keys checked again (PGlite)', () => {
  let s: Awaited<ReturnType<typeof scenario>>;
  beforeAll(async () => {
    s = await scenario({});
  });
  afterAll(async () => s?.t.close());

  it('a good key: checked (balance and withdrawal right), nothing changes', async () => {
    const b = await s.bot();
    expect(b.problem).toBeNull();
    s.fake.calls.length = 0;
    const result = await s.keys.checkAll();
    expect(result).toEqual({ checked: 1, revoked: 0, canWithdraw: 0, unreachable: 0 });
    expect(s.fake.calls).toEqual(
      expect.arrayContaining(['GET /api/v3/account', 'GET /sapi/v1/account/apiRestrictions']),
    );
    const after = await s.bot();
    expect(after.problem).toBeNull();
    expect(after.status).toBe('active');
    expect(s.runner.has(after.id)).toBe(true);
    const c = await s.connection();
    expect(c.key_problem).toBeNull();
    expect(Date.parse(c.key_checked_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('the daily run is kept in scheduled_jobs: not due again before a day, then its bots pause when the key can withdraw', async () => {
    // The first tick books the next run a day later (the start already checked every key).
    expect(await s.keys.tick()).toBeNull();
    const booked = await s.job();
    expect(new Date(booked.next_run_at).getTime()).toBeGreaterThan(
      Date.now() + KEY_RECHECK_EVERY_MS - 60_000,
    );
    // Still not due (a restart reads the same row: nothing is run twice a day).
    expect(await s.keys.tick()).toBeNull();

    // The user enables withdrawals on the key; a day later the job runs.
    s.fake.state = 'can_withdraw';
    await s.t.ctx.database.sql.query(
      `UPDATE scheduled_jobs SET next_run_at = now() - interval '1 second' WHERE name = $1`,
      [KEY_RECHECK_JOB],
    );
    expect(await s.keys.tick()).toEqual({ checked: 1, revoked: 0, canWithdraw: 1, unreachable: 0 });
    const ran = await s.job();
    expect(ran.last_run_at).not.toBeNull();
    expect(new Date(ran.next_run_at).getTime()).toBeGreaterThan(Date.now() + KEY_RECHECK_EVERY_MS - 60_000);

    const paused = await until(async () => {
      const b = await s.bot();
      return b?.problem === 'key_can_withdraw' ? b : null;
    });
    expect(paused.reason).toEqual(BOT_PROBLEMS.key_can_withdraw);
    expect(paused.reason.es).toMatch(/puede retirar fondos/);
    expect(paused.open_lots).toBe(1);
    expect(s.runner.has(paused.id)).toBe(false);
    const events = (await s.call('GET', `/api/bots/${paused.id}/events`)).body.events as Record<
      string,
      any
    >[];
    const ev = events.find((e) => e.code === 'key_can_withdraw');
    expect(ev?.params?.message).toMatch(/Binance API key can now withdraw funds/);
    // Settings shows it on the connection.
    expect((await s.connection()).key_problem).toBe('can_withdraw');
    // Resume lists the bot with its problem while the key can still withdraw (the check runs again).
    s.fake.calls.length = 0;
    const still = await s.call('POST', '/api/reanudar_bots_activos', {});
    expect(still.body.problems).toEqual([expect.objectContaining({ problem: 'key_can_withdraw' })]);
    expect(s.fake.calls).toContain('GET /sapi/v1/account/apiRestrictions');
  });

  it('on resume, a key that is trade-only again resumes the bot', async () => {
    s.fake.state = 'trade_only';
    const resumed = await s.call('POST', '/api/reanudar_bots_activos', {});
    expect(resumed.status).toBe(200);
    expect(resumed.body.problems).toEqual([]);
    const back = await until(async () => {
      const b = await s.bot();
      return b && b.problem === null ? b : null;
    });
    expect(back.open_lots).toBe(1);
    await until(async () => (s.runner.has(back.id) ? true : null));
    expect((await s.connection()).key_problem).toBeNull();
  });

  it('on resume, a revoked key (the exchange’s auth error) pauses its bots and marks the connection', async () => {
    s.fake.state = 'revoked';
    s.fake.calls.length = 0;
    const res = await s.call('POST', '/api/reanudar_bots_activos', {});
    expect(res.status).toBe(200);
    expect(s.fake.calls).toContain('GET /api/v3/account');
    expect(res.body.problems).toEqual([expect.objectContaining({ problem: 'auth_failed' })]);
    const b = await s.bot();
    expect(b.problem).toBe('auth_failed');
    expect(b.reason).toEqual(BOT_PROBLEMS.auth_failed);
    expect(s.runner.has(b.id)).toBe(false);
    const events = (await s.call('GET', `/api/bots/${b.id}/events`)).body.events as Record<string, any>[];
    expect(events.find((e) => e.code === 'auth_failed')?.params?.message).toMatch(/refused the API key/);
    expect((await s.connection()).key_problem).toBe('revoked');
  });
});

describe('live keys checked again (PostgreSQL)', () => {
  if (!PG_URL) console.log(`[skip] ${PG_SKIP_REASON}`);
  it.skipIf(!PG_URL)(
    'a key that can withdraw pauses its bot through the daily job on PostgreSQL',
    async () => {
      const pg = await freshPostgresUrl();
      const database = await openDatabase({ databaseUrl: pg.url, dataDir: tempDir() });
      const s = await scenario({}, database);
      try {
        expect(await s.keys.tick()).toBeNull();
        s.fake.state = 'can_withdraw';
        await database.sql.query(
          `UPDATE scheduled_jobs SET next_run_at = now() - interval '1 second' WHERE name = $1`,
          [KEY_RECHECK_JOB],
        );
        expect(await s.keys.tick()).toMatchObject({ checked: 1, canWithdraw: 1 });
        const b = await until(async () => {
          const x = await s.bot();
          return x?.problem === 'key_can_withdraw' ? x : null;
        });
        expect(b.reason).toEqual(BOT_PROBLEMS.key_can_withdraw);
        expect((await s.connection()).key_problem).toBe('can_withdraw');
      } finally {
        await s.t.close();
        await database.close();
        await pg.drop();
      }
    },
  );
});
