import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/client';
import { MAINTENANCE_EVERY_MS, MaintenanceJob } from '../src/db/maintenance';
import { openTestDatabase } from './db-snapshot';
import { freshPostgresUrl, PG_SKIP_REASON, PG_URL } from './helpers';
import { openDatabase } from '../src/db/client';

/**
 * The data folder stays flat (issue 37 point 14, docs/database.md "What the server writes"): the
 * maintenance job deletes bot event-log rows and minute-to-4-hour simulated candles older than
 * RETENTION_DAYS, keeps every trade (the histories) and the long candles, and on PGlite vacuums and
 * checkpoints. One process gets each run.
 */

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const noLog = { error: () => undefined, debug: () => undefined };
const opened: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

async function seed(database: Database): Promise<void> {
  const { sql } = database;
  const [u] = await sql.query(
    `INSERT INTO users (email, password_hash) VALUES ('retention@example.com', 'x') RETURNING id`,
  );
  const [b] = await sql.query(
    `INSERT INTO bots (user_id, exchange, symbol, config, state) VALUES ($1, 'binance', 'BTC/USDT', '{}', '{}') RETURNING id`,
    [u!.id],
  );
  const at = (days: number) => new Date(NOW - days * DAY).toISOString();
  for (const [days, code] of [
    [45, 'old-1'],
    [31, 'old-2'],
    [29, 'new-1'],
    [0, 'new-2'],
  ] as const) {
    await sql.query(`INSERT INTO bot_events (bot_id, ts, code) VALUES ($1, $2, $3)`, [b!.id, at(days), code]);
  }
  for (const [days, lot] of [
    [400, 'lot-old'],
    [1, 'lot-new'],
  ] as const) {
    await sql.query(
      `INSERT INTO bot_trades (bot_id, user_id, exchange, symbol, lot_key, buy_time, sell_time, qty, buy_price, sell_price, pnl_net)
       VALUES ($1, $2, 'binance', 'BTC/USDT', $3, $4, $4, 1, 100, 101, 1)`,
      [b!.id, u!.id, lot, at(days)],
    );
  }
  for (const [tf, days] of [
    ['1m', 40],
    ['1h', 40],
    ['1h', 2],
    ['1d', 400],
    ['1w', 400],
  ] as const) {
    await sql.query(
      `INSERT INTO sim_candles (exchange, symbol, timeframe, ts, open, high, low, close, volume)
       VALUES ('binance', 'BTC/USDT', $1, $2, 1, 1, 1, 1, 1)`,
      [tf, NOW - days * DAY],
    );
  }
}

async function check(database: Database): Promise<void> {
  const job = new MaintenanceJob({ database, retentionDays: 30, holder: 'a', log: noLog, now: () => NOW });
  const other = new MaintenanceJob({ database, retentionDays: 30, holder: 'b', log: noLog, now: () => NOW });
  const result = await job.tick();
  expect(result).toMatchObject({ events: 2, candles: 2 });
  if (database.driver === 'pglite') {
    expect(result?.checkpoint).toBe(true);
    expect(result?.vacuumed).toBeGreaterThan(10);
  } else {
    expect(result).toMatchObject({ checkpoint: false, vacuumed: 0 });
  }
  const codes = await database.sql.query(`SELECT code FROM bot_events ORDER BY ts`);
  expect(codes.map((r) => r.code)).toEqual(['new-1', 'new-2']);
  const lots = await database.sql.query(`SELECT lot_key FROM bot_trades ORDER BY sell_time`);
  expect(lots.map((r) => r.lot_key)).toEqual(['lot-old', 'lot-new']);
  const candles = await database.sql.query(`SELECT timeframe FROM sim_candles ORDER BY timeframe, ts`);
  expect(candles.map((r) => r.timeframe)).toEqual(['1d', '1h', '1w']);
  // The next run is MAINTENANCE_EVERY_MS away, for this process and every other.
  expect(await job.tick()).toBeNull();
  expect(await other.tick()).toBeNull();
  const [row] = await database.sql.query(
    `SELECT next_run_at, claimed_by FROM scheduled_jobs WHERE name = 'db_maintenance'`,
  );
  expect(new Date(String(row!.next_run_at)).getTime()).toBe(NOW + MAINTENANCE_EVERY_MS);
  expect(row!.claimed_by).toBeNull();
}

describe('database maintenance', () => {
  it('on PGlite: deletes old events and short candles, keeps trades and long candles, vacuums, checkpoints', async () => {
    const database = await openTestDatabase();
    opened.push(() => database.close());
    await seed(database);
    await check(database);
  });

  if (!PG_URL) console.log(`[skip] ${PG_SKIP_REASON}`);
  it.skipIf(!PG_URL)('on PostgreSQL: the same retention, no VACUUM or CHECKPOINT of its own', async () => {
    const fresh = await freshPostgresUrl();
    opened.push(() => fresh.drop());
    const database = await openDatabase({ dataDir: 'unused', databaseUrl: fresh.url });
    opened.push(() => database.close());
    await seed(database);
    await check(database);
  });
});
