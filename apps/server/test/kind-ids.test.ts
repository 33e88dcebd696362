import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { KIND_IDS } from '@bytx/contract';
import {
  arbitrageBot,
  classicDca,
  classicVnc,
  gridBot,
  gridBotDca,
  manualOrder,
  signalBot,
} from '@bytx/engine';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, runMigrations, type SqlRunner } from '../src/db/migrate';
import { freshPostgresUrl, PG_SKIP_REASON, PG_URL } from './helpers';

/**
 * One id per bot kind (issue 39): the engine's strategies carry the contract's ids, and migration
 * 0890_kind_ids.sql renames the ids stored before it ('dca', 'classic_dca', 'classic_vnc' in bots,
 * 'grid_dca', 'classic_dca' in backtests), on the embedded database and on PostgreSQL.
 */

const temps: string[] = [];
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** The migrations as they were before 0890, in a folder of their own. */
function migrationsBefore0890(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bytx-mig-'));
  temps.push(dir);
  for (const f of fs.readdirSync(MIGRATIONS_DIR).filter((f) => /^\d{4}_/.test(f) && f < '0890')) {
    fs.copyFileSync(path.join(MIGRATIONS_DIR, f), path.join(dir, f));
  }
  return dir;
}

const OLD_BOTS: [kind: string, status: string][] = [
  ['dca', 'active'],
  ['dca', 'stopped'],
  ['classic_dca', 'active'],
  ['classic_vnc', 'active'],
  ['grid', 'active'],
  ['arbitrage', 'stopped'],
  ['signal', 'active'],
  ['manual', 'active'],
];

/** Rows stored with the old ids, then the rest of the migrations; answers what they hold after. */
async function migrateOldRows(sql: SqlRunner) {
  await runMigrations(sql, migrationsBefore0890());
  const [user] = await sql.query(
    `INSERT INTO users (email, password_hash) VALUES ('k@x.test', 'h') RETURNING id`,
  );
  const userId = String(user!.id);
  let n = 0;
  for (const [kind, status] of OLD_BOTS) {
    n++;
    await sql.query(
      `INSERT INTO bots (user_id, kind, exchange, symbol, config, state, status)
       VALUES ($1, $2, 'binance', $3, '{}'::jsonb, '{}'::jsonb, $4)`,
      [userId, kind, `C${n}/USDT`, status],
    );
  }
  for (const kind of ['grid_dca', 'classic_dca', 'grid']) {
    await sql.query(
      `INSERT INTO backtests (user_id, kind, exchange, symbol, interval, source, params, slippage_pct, budget, status)
       VALUES ($1, $2, 'binance', 'BTC/USDT', '1h', 'inline', '{}'::jsonb, 0, 1000, 'done')`,
      [userId, kind],
    );
  }
  expect(await runMigrations(sql)).toContain('0890_kind_ids.sql');
  const bots = (await sql.query(`SELECT kind, status FROM bots ORDER BY symbol`)).map((r) => [
    r.kind,
    r.status,
  ]);
  const backtests = (await sql.query(`SELECT kind FROM backtests ORDER BY kind`)).map((r) => r.kind);
  // A bot inserted without a kind is a Grid Bot DCA, as before, under its new id.
  await sql.query(
    `INSERT INTO bots (user_id, exchange, symbol, config, state) VALUES ($1, 'binance', 'NEW/USDT', '{}'::jsonb, '{}'::jsonb)`,
    [userId],
  );
  const [fresh] = await sql.query(`SELECT kind FROM bots WHERE symbol = 'NEW/USDT'`);
  const insertBacktest = (kind: string) =>
    sql.query(
      `INSERT INTO backtests (user_id, kind, exchange, symbol, interval, source, params, slippage_pct, budget, status)
       VALUES ($1, $2, 'binance', 'ETH/USDT', '1h', 'inline', '{}'::jsonb, 0, 1000, 'done')`,
      [userId, kind],
    );
  const oldRefused = await insertBacktest('grid_dca').then(
    () => false,
    () => true,
  );
  await insertBacktest('classic-dca');
  return { bots, backtests, defaultKind: fresh!.kind, oldRefused };
}

function expectRenamed(r: Awaited<ReturnType<typeof migrateOldRows>>) {
  expect(r.bots).toEqual([
    ['grid-dca', 'active'],
    ['grid-dca', 'stopped'],
    ['classic-dca', 'active'],
    ['classic-vnc', 'active'],
    ['grid', 'active'],
    ['arbitrage', 'stopped'],
    ['signal', 'active'],
    ['manual', 'active'],
  ]);
  expect(r.backtests).toEqual(['classic-dca', 'grid', 'grid-dca']);
  expect(r.defaultKind).toBe('grid-dca');
  expect(r.oldRefused).toBe(true);
}

describe('kind ids', () => {
  it('are the same in the engine and the contract', () => {
    expect(
      [gridBotDca, classicDca, classicVnc, gridBot, arbitrageBot, signalBot, manualOrder].map((s) => s.kind),
    ).toEqual([
      KIND_IDS.gridDca,
      KIND_IDS.classicDca,
      KIND_IDS.classicVnc,
      KIND_IDS.grid,
      KIND_IDS.arbitrage,
      KIND_IDS.signal,
      KIND_IDS.manual,
    ]);
    expect(Object.values(KIND_IDS)).toEqual([
      'grid-dca',
      'classic-dca',
      'classic-vnc',
      'grid',
      'arbitrage',
      'signal',
      'manual',
    ]);
  });

  // Every migration on a fresh database, twice over: slow on a loaded machine.
  it(
    'migration 0890 renames the stored ids and the backtests CHECK (embedded database)',
    { timeout: 240_000 },
    async () => {
      const client = new PGlite();
      await client.waitReady;
      closers.push(() => client.close());
      const sql: SqlRunner = {
        exec: async (text) => {
          await client.exec(text);
        },
        query: async (text, params) => (await client.query<Record<string, unknown>>(text, params)).rows,
      };
      expectRenamed(await migrateOldRows(sql));
    },
  );
});

if (!PG_URL) console.log(`[skip] ${PG_SKIP_REASON}`);

describe.skipIf(!PG_URL)('kind ids on PostgreSQL', () => {
  it('migration 0890 renames the stored ids and the backtests CHECK', { timeout: 240_000 }, async () => {
    const fresh = await freshPostgresUrl();
    closers.push(() => fresh.drop());
    const client = new pg.Client({ connectionString: fresh.url });
    await client.connect();
    closers.unshift(() => client.end());
    const sql: SqlRunner = {
      exec: async (text) => {
        await client.query(text);
      },
      query: async (text, params) => (await client.query<Record<string, unknown>>(text, params)).rows,
    };
    expectRenamed(await migrateOldRows(sql));
  });
});
