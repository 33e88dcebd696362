import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { MarketSimulator } from '@bytx/venues';
import { drizzle } from 'drizzle-orm/pglite';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database, type Db } from '../src/db/client';
import { MIGRATIONS_DIR, runMigrations, type SqlRunner } from '../src/db/migrate';
import * as schema from '../src/db/schema/index';
import { SimMarketStore } from '../src/modules/market/sim-store';
import { openTestDatabase } from './db-snapshot';
import { freshPostgresUrl, PG_SKIP_REASON, PG_URL } from './helpers';

/**
 * The simulated market's save (docs/venues.md): the walk's state is one row of JSON text, written at
 * most every 30 s (issue 37 point 14). It was jsonb until migration 0203 and stored uncompressed from
 * 0203 to 0860; a database written then is read back the same.
 */

const T0 = Date.UTC(2026, 10, 24, 12, 0, 0);
const opened: PGlite[] = [];
const databases: Database[] = [];
const temps: string[] = [];

async function open(): Promise<{ client: PGlite; sql: SqlRunner; db: Db }> {
  const client = new PGlite();
  await client.waitReady;
  opened.push(client);
  const sql: SqlRunner = {
    exec: async (text) => {
      await client.exec(text);
    },
    query: async (text, params) => (await client.query<Record<string, unknown>>(text, params)).rows,
  };
  return { client, sql, db: drizzle({ client, schema }) as unknown as Db };
}

/**
 * A migrated database: the test run's snapshot (db-snapshot.ts, ~1 s to load) instead of a new cluster
 * (~4 s of initdb) plus every migration. Only the pre-0203 test builds its schema itself (open()).
 */
async function openMigrated(): Promise<{ sql: SqlRunner; db: Db }> {
  const database = await openTestDatabase();
  databases.push(database);
  return { sql: database.sql, db: database.db };
}

/** A walk that has moved: 90 ticks of a second after its seed. */
function walked(): MarketSimulator {
  const sim = new MarketSimulator({ startTime: T0 });
  for (let s = 1; s <= 90; s++) sim.advance(T0 + s * 1_000);
  return sim;
}

const btc = (sim: MarketSimulator) => sim.price('binance', 'BTC/USDT');

/** The migrations as they were before 0203, in a folder of their own. */
function migrationsBefore0203(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bytx-mig-'));
  temps.push(dir);
  for (const f of fs.readdirSync(MIGRATIONS_DIR).filter((f) => /^\d{4}_/.test(f) && f < '0203')) {
    fs.copyFileSync(path.join(MIGRATIONS_DIR, f), path.join(dir, f));
  }
  return dir;
}

afterEach(async () => {
  for (const c of opened.splice(0)) await c.close();
  for (const d of databases.splice(0)) await d.close();
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('SimMarketStore', () => {
  it('writes the walk as compressible text (migration 0860), and a new process continues from it', async () => {
    const { sql, db } = await openMigrated();
    const [col] = await sql.query(
      `SELECT format_type(a.atttypid, a.atttypmod) AS type, a.attstorage AS storage
         FROM pg_attribute a WHERE a.attrelid = 'sim_state'::regclass AND a.attname = 'state'`,
    );
    expect(col).toEqual({ type: 'text', storage: 'x' });

    const sim = walked();
    await new SimMarketStore(db, sim).flushState();
    const fresh = new MarketSimulator({ startTime: T0 });
    expect(btc(fresh)).not.toBe(btc(sim));
    expect(await new SimMarketStore(db, fresh).load()).toBe(true);
    expect(fresh.snapshot()).toEqual(sim.snapshot());
    expect(btc(fresh)).toBe(btc(sim));
  });

  it('reads back a walk saved as jsonb before migration 0203', async () => {
    const { sql, db } = await open();
    await runMigrations(sql, migrationsBefore0203());
    const sim = walked();
    await sql.query('INSERT INTO sim_state (id, state) VALUES (1, $1::jsonb)', [
      JSON.stringify(sim.snapshot()),
    ]);

    expect(await runMigrations(sql)).toContain('0203_sim_state_text.sql');
    const fresh = new MarketSimulator({ startTime: T0 });
    expect(await new SimMarketStore(db, fresh).load()).toBe(true);
    expect(fresh.snapshot()).toEqual(sim.snapshot());
  });

  it('writes the walk at most every 30 s after ticks, and at once on flush (issue 37 point 14)', async () => {
    const { db } = await openMigrated();
    const sim = new MarketSimulator({ startTime: T0 });
    let now = T0;
    const store = new SimMarketStore(db, sim, undefined, { now: () => now });
    // Ten minutes of one tick a second, as the server's timer does.
    for (let s = 1; s <= 600; s++) {
      now = T0 + s * 1_000;
      sim.advance(now);
      store.scheduleState();
      await new Promise((r) => setImmediate(r));
    }
    // Was 600 (one per tick): now one per 30 s, so at most 2 a minute.
    expect(store.stateWrites).toBeLessThanOrEqual(20);
    expect(store.stateWrites).toBeGreaterThanOrEqual(19);
    // A set price (or a close) writes at once, so nothing the control set is lost.
    sim.setPrice('binance', 'BTC/USDT', 60_000);
    await store.flushState();
    const fresh = new MarketSimulator({ startTime: T0 });
    expect(await new SimMarketStore(db, fresh).load()).toBe(true);
    expect(btc(fresh)).toBe(60_000);
    expect(fresh.snapshot()).toEqual(sim.snapshot());
  });

  it('writes each candle once, when it closes; the open ones at close', async () => {
    const { sql, db } = await openMigrated();
    const sim = new MarketSimulator({ startTime: T0, historyCandles: 10 });
    const history = sim.candles('binance', 'ETH/USDT', '1m').length - 1;
    const store = new SimMarketStore(db, sim);
    await store.flushCandles();
    // The closed candles of the history; the open one waits.
    expect(store.candleWrites).toBe(history);
    // Five minutes, a flush every 10 s as the server does: 5 more closed candles, each written once
    // (the old rule re-wrote the open candle at every flush: 30 more rows).
    for (let s = 1; s <= 300; s++) {
      sim.advance(T0 + s * 1_000);
      if (s % 10 === 0) await store.flushCandles();
    }
    expect(store.candleWrites).toBe(history + 5);
    // As the server closes: the walk and the open candles.
    await store.flushState();
    await store.flushCandles(true);
    expect(store.candleWrites).toBe(history + 5 + 1);
    const [row] = await sql.query(`SELECT count(*)::int AS n FROM sim_candles`);
    expect(row!.n).toBe(history + 6);
    // A restart reads them back, and the open one is written again once it closes.
    const again = new MarketSimulator({ startTime: T0, historyCandles: 10 });
    const reloaded = new SimMarketStore(db, again);
    expect(await reloaded.load()).toBe(true);
    expect(again.candles('binance', 'ETH/USDT', '1m')).toEqual(sim.candles('binance', 'ETH/USDT', '1m'));
    again.advance(T0 + 360_000);
    await reloaded.flushCandles();
    expect(reloaded.candleWrites).toBe(1);
  });

  it('starts a fresh market from a damaged row instead of failing the start', async () => {
    const { sql, db } = await openMigrated();
    expect(await sql.query('SELECT 1 FROM sim_state')).toEqual([]);
    await sql.query(`INSERT INTO sim_state (id, state) VALUES (1, '{"v":1,"seed":')`);
    const fresh = new MarketSimulator({ startTime: T0 });
    const seedPrice = btc(fresh);
    expect(await new SimMarketStore(db, fresh).load()).toBe(false);
    expect(btc(fresh)).toBe(seedPrice);
  });
});

if (!PG_URL) console.log(`[skip] ${PG_SKIP_REASON}`);

describe.skipIf(!PG_URL)('SimMarketStore on PostgreSQL', () => {
  it('reads back a walk saved as jsonb before migration 0203, stored as compressible text after', async () => {
    const fresh = await freshPostgresUrl();
    try {
      const client = new pg.Client({ connectionString: fresh.url });
      await client.connect();
      const sim = walked();
      try {
        const sql: SqlRunner = {
          exec: async (text) => {
            await client.query(text);
          },
          query: async (text, params) => (await client.query<Record<string, unknown>>(text, params)).rows,
        };
        await runMigrations(sql, migrationsBefore0203());
        await sql.query('INSERT INTO sim_state (id, state) VALUES (1, $1::jsonb)', [
          JSON.stringify(sim.snapshot()),
        ]);
      } finally {
        await client.end();
      }
      // Opening the database runs the migrations left, 0203 among them, as a server start does.
      const database = await openDatabase({ dataDir: 'unused', databaseUrl: fresh.url });
      try {
        const [col] = await database.sql.query(
          `SELECT format_type(a.atttypid, a.atttypmod) AS type, a.attstorage AS storage
             FROM pg_attribute a WHERE a.attrelid = 'sim_state'::regclass AND a.attname = 'state'`,
        );
        expect(col).toEqual({ type: 'text', storage: 'x' });
        const restored = new MarketSimulator({ startTime: T0 });
        expect(await new SimMarketStore(database.db, restored).load()).toBe(true);
        expect(restored.snapshot()).toEqual(sim.snapshot());
        // And it is written back as text.
        restored.advance(T0 + 120_000);
        await new SimMarketStore(database.db, restored).flushState();
        const again = new MarketSimulator({ startTime: T0 });
        expect(await new SimMarketStore(database.db, again).load()).toBe(true);
        expect(again.snapshot()).toEqual(restored.snapshot());
      } finally {
        await database.close();
      }
    } finally {
      await fresh.drop();
    }
  });
});
