import { DERIVATIVES_MESSAGES } from '@bytx/contract';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, REDACT } from '../src/app';
import { type Database } from '../src/db/client';
import { sealContext } from '../src/lib/crypto';
import { defaultVenueFactory, WITHDRAW_KEY_MESSAGE } from '../src/modules/exchanges/venue-factory';
import type { DbVenueRegistry } from '../src/modules/exchanges/venue-registry';
import { binanceExchangeInfo, createTestUser, testConfig, type TestApp } from './helpers';
import { openTestDatabase } from './db-snapshot';

type Json = Record<string, unknown>;

const TRADE_KEY = 'tradeOnlyKey7QpX2mN9vL4s';
const TRADE_SECRET = 'tradeOnlySecret_Zr8Kw3Yh6Tq1Fj5Nc0Bv';
const WITHDRAW_KEY = 'withdrawKey3Hd8Lp0Ws6Qm';
const WITHDRAW_SECRET = 'withdrawSecret_Ux4Gt7Re2Ya9Ko1Mi';
const WRONG_SECRET = 'wrongSecret_Pl5Nb8Vc2Xz6Aq3';

const json = (b: unknown, status = 200) =>
  new Response(JSON.stringify(b), { status, headers: { 'content-type': 'application/json' } });

/**
 * Binance's REST API as recorded responses, behind ccxt's fetch: signed calls succeed only with a
 * known key (checked from the X-MBX-APIKEY header); the API restrictions say whether it can withdraw.
 */
function fakeBinance() {
  const requests: string[] = [];
  let down = false;
  const keys: Record<string, { withdraw: boolean }> = {
    [TRADE_KEY]: { withdraw: false },
    [WITHDRAW_KEY]: { withdraw: true },
  };
  const fetchImplementation = async (url: string, init: Record<string, unknown>): Promise<Response> => {
    await Promise.resolve();
    requests.push(url);
    if (down) throw new TypeError('fetch failed');
    const u = new URL(url);
    const headers = (init.headers ?? {}) as Record<string, string>;
    const key = headers['X-MBX-APIKEY'] ?? headers['x-mbx-apikey'];
    if (u.pathname === '/api/v3/exchangeInfo') return json(binanceExchangeInfo());
    if (!key || !keys[key] || !u.searchParams.get('signature')) {
      return json({ code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' }, 401);
    }
    if (u.pathname === '/api/v3/account') {
      return json({
        balances: [
          { asset: 'USDT', free: '123.5', locked: '0' },
          { asset: 'BTC', free: '0.1', locked: '0.05' },
          { asset: 'PEPE', free: '1000', locked: '0' },
        ],
      });
    }
    if (u.pathname === '/sapi/v1/account/apiRestrictions') {
      return json({ enableWithdrawals: keys[key].withdraw, enableSpotAndMarginTrading: true });
    }
    if (u.pathname === '/sapi/v1/capital/deposit/address') {
      const coin = u.searchParams.get('coin') ?? '';
      if (coin !== 'BTC') return json({ code: -4000, msg: 'no address' }, 400);
      return json({ coin, address: 'bc1qfakelivebinanceaddress0000000000000', tag: '', url: '' });
    }
    return json({ code: -1000, msg: `not recorded: ${u.pathname}` }, 404);
  };
  return {
    fetchImplementation,
    requests,
    setDown: (v: boolean) => {
      down = v;
    },
  };
}

describe('live exchange keys', () => {
  let t: TestApp;
  let database: Database;
  let user: Awaited<ReturnType<typeof createTestUser>>;
  const fake = fakeBinance();
  let logs = '';

  beforeAll(async () => {
    database = await openTestDatabase();
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        logs += chunk.toString();
        cb();
      },
    });
    // The app's own redaction, at the most verbose level, into a buffer the test reads.
    const built = await buildApp(testConfig(), {
      database,
      logger: { level: 'trace', redact: { paths: REDACT, censor: '[redacted]' }, stream },
    });
    await built.app.ready();
    t = {
      ...built,
      close: async () => {
        await built.app.close();
        await database.close();
      },
    };
    (t.ctx.services.venues as DbVenueRegistry).factory = defaultVenueFactory(t.ctx, {
      fetchImplementation: fake.fetchImplementation,
    });
    user = await createTestUser(t);
  });
  afterAll(async () => t?.close());

  const connect = (payload: Json) =>
    t.app.inject({ method: 'POST', url: '/api/conectar_exchange', payload, headers: user.auth });
  const count = async () =>
    Number((await database.sql.query('SELECT count(*)::int AS n FROM exchange_connections'))[0]!.n);

  it('refuses keys the exchange rejects, storing nothing', async () => {
    const res = await connect({
      exchange: 'binance',
      apiKey: 'unknownKey1234',
      apiSecret: WRONG_SECRET,
      user_id: user.email,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json<Json>()).toMatchObject({ success: false });
    expect(res.json<{ error: string }>().error).toMatch(/Binance refused these API keys/);
    expect(res.body).not.toContain(WRONG_SECRET);
    expect(await count()).toBe(0);
  });

  it('refuses a key that can withdraw (Binance shows it), storing nothing', async () => {
    const res = await connect({ exchange: 'binance', apiKey: WITHDRAW_KEY, apiSecret: WITHDRAW_SECRET });
    expect(res.statusCode).toBe(400);
    expect(res.json<Json>()).toMatchObject({ success: false, error: WITHDRAW_KEY_MESSAGE });
    expect(fake.requests.some((u) => u.includes('/sapi/v1/account/apiRestrictions'))).toBe(true);
    expect(await count()).toBe(0);
  });

  it('answers a clear error when the exchange cannot be reached', async () => {
    fake.setDown(true);
    try {
      const res = await connect({ exchange: 'binance', apiKey: TRADE_KEY, apiSecret: TRADE_SECRET });
      expect(res.statusCode).toBe(502);
      expect(res.json<{ success: boolean; error: string }>()).toMatchObject({ success: false });
      expect(res.json<{ error: string }>().error).toMatch(/^Could not connect to exchange\./);
    } finally {
      fake.setDown(false);
    }
    expect(await count()).toBe(0);
  });

  it('asks for the passphrase of OKX keys', async () => {
    const res = await connect({ exchange: 'okx', apiKey: 'k', apiSecret: 's' });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ error: string }>().error).toMatch(/passphrase/);
  });

  it('accepts trade-only keys checked with a balance call; never returns the secret', async () => {
    const res = await connect({
      exchange: 'binance',
      apiKey: TRADE_KEY,
      apiSecret: TRADE_SECRET,
      user_id: user.email,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json<Json>()).toMatchObject({ success: true, mode: 'live', exchange: 'binance' });
    expect(res.body).not.toContain(TRADE_SECRET);
    expect(res.body).not.toContain(TRADE_KEY);
    expect(fake.requests.some((u) => u.includes('/api/v3/account'))).toBe(true);

    const status = await t.app.inject({
      method: 'POST',
      url: '/api/estado_conexion',
      payload: { user_id: user.email },
      headers: user.auth,
    });
    expect(status.json<{ conexiones: Record<string, boolean> }>().conexiones.binance).toBe(true);
    const list = await t.app.inject({ method: 'GET', url: '/api/exchanges/connections', headers: user.auth });
    expect(list.json<{ connections: Json[] }>().connections).toEqual([
      expect.objectContaining({ exchange: 'binance', mode: 'live' }),
    ]);
    expect(list.body).not.toContain(TRADE_SECRET);
    expect(list.body).not.toContain(TRADE_KEY);
  });

  it('gives the registry a live venue with the decrypted keys', async () => {
    const venue = await t.ctx.services.venues!.forUser(user.id, 'binance');
    expect(venue.kind).toBe('live');
    expect((await venue.fetchBalance()).USDT?.total).toBe(123.5);
  });

  it('refuses a derivatives Grid Bot DCA the live exchange cannot trade, naming what is missing', async () => {
    const startBot = (apartado: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/start_bot_dca',
        payload: {
          user_id: user.email,
          exchange: 'binance',
          symbol: 'BTC/USDT',
          amount: '20',
          tp: '1',
          separacion: '1',
          os: '3',
          apartado,
          direction: 'SHORT',
          leverage: 5,
        },
        headers: user.auth,
      });
    // The recorded exchangeInfo lists the spot market only: no swap market to trade. (Margin is Binance's
    // isolated spot margin through ccxt, which the exchange has: not refused.)
    const inverse = await startBot('Inverse');
    expect(inverse.statusCode).toBe(400);
    expect(inverse.json<{ error: string }>().error).toBe(DERIVATIVES_MESSAGES.inverseBotsNotYet);
    for (const apartado of ['Perpetual']) {
      const res = await startBot(apartado);
      expect(res.statusCode, `${apartado}: ${res.body}`).toBe(400);
      expect(res.json<{ error: string }>().error).toMatch(
        new RegExp(
          `^Binance has no ${apartado} market for BTC/USDT\\. Choose another market type or pair\\.$|^${apartado} trading is not available on Binance: `,
        ),
      );
    }
    const bots = await database.sql.query(`SELECT 1 FROM bots`);
    expect(bots).toHaveLength(0);
    expect(fake.requests.some((u) => u.includes('/api/v3/order'))).toBe(false);
  });

  it('shows the live account in the wallet, preferred over a paper one', async () => {
    await connect({ exchange: 'bybit', mode: 'paper' });
    const res = await t.app.inject({ method: 'GET', url: '/api/wallet', headers: user.auth });
    const body = res.json<{ balances: Record<string, number>; exchange: string; mode: string }>();
    expect(body).toMatchObject({ exchange: 'binance', mode: 'live' });
    expect(body.balances).toMatchObject({ USDT: 123.5, BTC: 0.15, ETH: 0, PEPE: 1000 });
    const paper = await t.app.inject({
      method: 'GET',
      url: '/api/wallet?exchange=bybit',
      headers: user.auth,
    });
    expect(paper.json<{ balances: Record<string, number> }>().balances.USDT).toBe(10000);

    const gen = await t.app.inject({
      method: 'POST',
      url: '/api/address',
      payload: { symbol: 'BTC' },
      headers: user.auth,
    });
    expect(gen.statusCode).toBe(200);
    expect(gen.json<{ address: string }>().address).toBe('bc1qfakelivebinanceaddress0000000000000');
    const map = await t.app.inject({ method: 'GET', url: '/api/address', headers: user.auth });
    expect(map.json<Record<string, string>>()).toEqual({ BTC: 'bc1qfakelivebinanceaddress0000000000000' });
  });

  it('stores no API key or secret in plain text in any text or jsonb column', async () => {
    const columns = await database.sql.query(
      `SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = 'public' AND data_type IN ('text', 'character varying', 'jsonb', 'json', 'character')`,
    );
    expect(columns.length).toBeGreaterThan(5);
    const found: string[] = [];
    for (const c of columns) {
      const table = String(c.table_name);
      const column = String(c.column_name);
      for (const needle of [TRADE_SECRET, TRADE_KEY, WITHDRAW_SECRET, WRONG_SECRET]) {
        const rows = await database.sql.query(
          `SELECT 1 FROM "${table}" WHERE "${column}"::text LIKE '%' || $1 || '%' LIMIT 1`,
          [needle],
        );
        if (rows.length > 0) found.push(`${table}.${column}`);
      }
    }
    expect(found).toEqual([]);
    // Stored sealed (AES-GCM) and still usable: opening gives the secret back.
    const [row] = await database.sql.query(
      `SELECT user_id::text AS u, api_key_enc, api_secret_enc FROM exchange_connections WHERE exchange = 'binance'`,
    );
    expect(String(row!.api_secret_enc)).toMatch(/^v2:/);
    const owner = String(row!.u);
    expect(
      t.ctx.secretBox.open(String(row!.api_secret_enc), sealContext.exchangeSecret(owner, 'binance')),
    ).toBe(TRADE_SECRET);
    expect(t.ctx.secretBox.open(String(row!.api_key_enc), sealContext.exchangeApiKey(owner, 'binance'))).toBe(
      TRADE_KEY,
    );
  });

  it('writes no API key or secret to the logs, even at trace level', async () => {
    // Log lines were written (the capture works) ...
    expect(logs).toContain('exchange connected');
    expect(logs).toContain('/api/conectar_exchange');
    // ... and none carries key material.
    for (const needle of [TRADE_SECRET, TRADE_KEY, WITHDRAW_SECRET, WITHDRAW_KEY, WRONG_SECRET]) {
      expect(logs).not.toContain(needle);
    }
  });

  it('closes the live venue and forgets the keys on removal', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/eliminar_exchange',
      payload: { exchange: 'binance' },
      headers: user.auth,
    });
    expect(res.statusCode).toBe(200);
    const rows = await database.sql.query(`SELECT 1 FROM exchange_connections WHERE exchange = 'binance'`);
    expect(rows).toHaveLength(0);
    await expect(t.ctx.services.venues!.forUser(user.id, 'binance')).rejects.toMatchObject({
      statusCode: 400,
    });
    const wallet = await t.app.inject({ method: 'GET', url: '/api/wallet', headers: user.auth });
    expect(wallet.json<Json>()).toMatchObject({ exchange: 'bybit', mode: 'paper' });
  });
});
