import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hash } from '@node-rs/argon2';
import pg from 'pg';
import { buildApp, type BuiltApp } from '../src/app';
import { loadConfig, type Config } from '../src/config';
import { type Database } from '../src/db/client';
import { users } from '../src/db/schema/index';
import { SessionsRepository } from '../src/modules/accounts/sessions.repository';
import { chainModules } from '../src/modules/chain/routes';
import { openTestDatabase } from './db-snapshot';

export const TEST_MASTER_KEY = 'ab'.repeat(32);

export function tempDir(prefix = 'bytx-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: tempDir(),
    MASTER_KEY: TEST_MASTER_KEY,
    LOG_LEVEL: 'silent',
    BOT_RUNNER: '0',
    WEB_DIST_DIR: path.join(os.tmpdir(), 'bytx-no-web'),
    ...env,
  });
}

/** DATABASE_URL of the machine's PostgreSQL, or undefined (tests print why they skip). */
export const PG_URL = process.env.DATABASE_URL;
export const PG_SKIP_REASON = 'DATABASE_URL is not set: PostgreSQL variants of the data-layer tests skipped';

/**
 * A fresh PostgreSQL database for one test file (or one bench run): created from DATABASE_URL's server,
 * dropped by cleanup. Each file gets its own so parallel files never see each other's rows.
 */
export async function freshPostgresUrl(
  prefix = 'bytx_t',
): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!PG_URL) throw new Error(PG_SKIP_REASON);
  const name = `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface TestApp extends BuiltApp {
  close: () => Promise<void>;
}

/** The real app on an in-memory PGlite (or a given database), no web build, no bot runner. */
export async function makeTestApp(
  env: Record<string, string> = {},
  opts: { database?: Database } = {},
): Promise<TestApp> {
  const config = testConfig(env);
  const database = opts.database ?? (await openTestDatabase());
  const built = await buildApp(config, { database, logger: false });
  await built.app.ready();
  // The chain starts in the background of a ready app (issue 45 point 5); tests use it at once.
  await chainModules.get(built.ctx)?.started;
  return {
    ...built,
    close: async () => {
      await built.app.close();
      if (!opts.database) await database.close();
    },
  };
}

let cachedHash: string | undefined;

/** Inserts a user with password 'correct horse battery' and returns a live session token. */
export async function createTestUser(
  t: BuiltApp,
  email = `user${Math.random().toString(36).slice(2, 8)}@example.com`,
): Promise<{ id: string; email: string; token: string; auth: { authorization: string } }> {
  cachedHash ??= await hash('correct horse battery');
  const [row] = await t.ctx.db
    .insert(users)
    .values({ email: email.toLowerCase(), passwordHash: cachedHash })
    .returning({ id: users.id, email: users.email });
  if (!row) throw new Error('user insert returned nothing');
  const token = await new SessionsRepository(t.ctx.db).create(row.id);
  return { ...row, token, auth: { authorization: `Bearer ${token}` } };
}

/** A JSON call through the app as `user` (or without a session): status, parsed body and headers. */
export function apiCaller(app: () => BuiltApp['app']) {
  return async (
    user: { auth: { authorization: string } } | null,
    method: string,
    url: string,
    body?: unknown,
  ) => {
    const res = await app().inject({
      method: method as 'POST',
      url,
      headers: user ? user.auth : {},
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers read loosely in tests
    return { status: res.statusCode, body: res.json<Record<string, any>>(), headers: res.headers };
  };
}

/** Binance's recorded `exchangeInfo` for BTCUSDT (spot, 0.01 tick, 0.00001 step, 5 USDT minimum). */
export function binanceExchangeInfo() {
  return {
    timezone: 'UTC',
    serverTime: Date.now(),
    symbols: [
      {
        symbol: 'BTCUSDT',
        status: 'TRADING',
        baseAsset: 'BTC',
        quoteAsset: 'USDT',
        baseAssetPrecision: 8,
        quotePrecision: 8,
        quoteAssetPrecision: 8,
        isSpotTradingAllowed: true,
        permissions: ['SPOT'],
        orderTypes: ['LIMIT', 'MARKET'],
        filters: [
          { filterType: 'PRICE_FILTER', minPrice: '0.01', maxPrice: '1000000', tickSize: '0.01' },
          { filterType: 'LOT_SIZE', minQty: '0.00001', maxQty: '9000', stepSize: '0.00001' },
          { filterType: 'NOTIONAL', minNotional: '5' },
        ],
      },
    ],
  };
}

/** The calls a bot dashboard polls (method, url, body): after anything, each must still answer 2xx. */
export const DASHBOARD_CALLS: readonly [string, string, Record<string, never>?][] = [
  ['GET', '/api/bots_activos_dca'],
  ['GET', '/api/historial'],
  ['POST', '/api/reanudar_bots_activos', {}],
  ['POST', '/api/precios_actuales', {}],
  ['POST', '/api/pnls_actuales', {}],
  ['GET', '/api/dca/pending_orders'],
  ['GET', '/api/bots_activos'],
  ['GET', '/api/historial?kind=classic-dca'],
  ['POST', '/api/vncs_actuales', {}],
  ['POST', '/api/dcas_actuales', {}],
  ['GET', '/api/dca/pending_orders?status=all&per_page=200'],
  ['GET', '/api/pending/drawdowns'],
  ['POST', '/api/estado_bot_arbitraje', {}],
  ['POST', '/api/historial_arbitraje', {}],
  ['GET', '/api/signalbot/bots'],
];
