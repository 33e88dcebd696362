import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';
import * as schema from './schema/index';
import { runMigrations, type SqlRunner } from './migrate';
import { createClusterApart } from './pglite-init';
import { markStart } from '../lib/start-phases';

export type Schema = typeof schema;
/** The one database type every repository takes: PGlite and node-postgres share it. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type DbDriver = 'pglite' | 'postgres';

export interface Database {
  db: Db;
  driver: DbDriver;
  /** Raw SQL for migrations, LISTEN/NOTIFY and tests. */
  sql: SqlRunner;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  databaseUrl?: string | undefined;
  /** Folder for the embedded database; `memory://` keeps it in memory (tests). */
  dataDir: string;
  /**
   * In memory only: start from this dump of a data folder (PGlite's `dumpDataDir('none')`, a tar)
   * instead of an empty cluster. Creating a cluster costs about 4 s of CPU; loading a 40 MB dump, 1 s.
   * Migrations still run, so a dump from an older schema is brought up to date.
   */
  snapshot?: Blob | undefined;
}

export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  let database: Database;
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    // An idle client's network error must not crash the process; the pool replaces the client.
    pool.on('error', () => undefined);
    // NUMERIC stays a string (exact); BIGINT (int8) becomes a JS number: our int8 columns hold ms timestamps and counters.
    const types = {
      getTypeParser: (oid: number, format?: 'text' | 'binary') =>
        oid === 20
          ? (v: string) => Number(v)
          : (pg.types.getTypeParser(oid, format) as (v: string) => unknown),
    };
    const db = drizzlePg({ client: pool, schema }) as unknown as Db;
    // Migrations hold a session-level advisory lock, so they need one dedicated connection.
    const migrationClient = await pool.connect();
    markStart('database open');
    try {
      await runMigrations({
        exec: async (text) => {
          await migrationClient.query(text);
        },
        query: async (text, params) =>
          (await migrationClient.query<Record<string, unknown>>(text, params)).rows,
      });
    } finally {
      migrationClient.release();
    }
    database = {
      db,
      driver: 'postgres',
      sql: {
        exec: async (text) => {
          await pool.query({ text, types });
        },
        query: async (text, params) =>
          (await pool.query<Record<string, unknown>>({ text, values: params, types })).rows,
      },
      close: () => pool.end(),
    };
  } else {
    const memory = opts.dataDir === 'memory://';
    if (!memory) fs.mkdirSync(opts.dataDir, { recursive: true });
    if (opts.snapshot && !memory) throw new Error('a snapshot can only start an in-memory database');
    const folder = memory ? null : path.join(opts.dataDir, 'pglite');
    if (folder) await createClusterApart(folder);
    // One options object: PGlite reads a second argument only when the first is a folder's name
    // (`new PGlite(undefined, options)` ignores the options).
    const client = new PGlite({
      ...(folder ? { dataDir: folder } : {}),
      parsers: { 20: (v: string) => Number(v) },
      ...(opts.snapshot ? { loadDataDir: opts.snapshot } : {}),
    });
    await client.waitReady;
    // After a SIGKILL this includes PGlite's recovery (the WAL replayed since the last checkpoint).
    markStart('database open');
    yieldBetweenQueries(client);
    const db = drizzlePglite({ client, schema }) as unknown as Db;
    database = {
      db,
      driver: 'pglite',
      sql: {
        exec: async (text) => {
          await client.exec(text);
        },
        query: async (text, params) => (await client.query<Record<string, unknown>>(text, params)).rows,
      },
      close: () => client.close(),
    };
    await runMigrations(database.sql);
  }
  markStart('migrations');
  return database;
}

/**
 * How long (ms) PGlite's queries may run back to back before the event loop gets a turn. PGlite runs
 * each query on this thread and settles it in a microtask, so an async chain of queries (a tick's
 * bot writes, the market's save, a group commit) never gave the loop back: with 20 bots running it
 * held every request for 10–40 ms once a second at idle, and a request's p99 met it (issue 18).
 */
export const PGLITE_CHAIN_BUDGET_MS = 4;

/**
 * Makes a top-level query, exec or transaction that starts after the current chain of queries has run
 * for {@link PGLITE_CHAIN_BUDGET_MS} wait for the loop's next turn first (I/O, timers and requests
 * run in between). A chain's start is the first query of a turn; nothing waits while under budget.
 * Statements inside a transaction never wait: the transaction holds PGlite until it ends anyway.
 */
function yieldBetweenQueries(client: PGlite): void {
  let chainStart = 0;
  let inTurn = false;
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  const before = async () => {
    const now = performance.now();
    if (!inTurn) {
      inTurn = true;
      chainStart = now;
      setImmediate(() => (inTurn = false));
      return;
    }
    if (now - chainStart > PGLITE_CHAIN_BUDGET_MS) {
      await turn();
      // The loop had its turn: what follows is a new chain.
      inTurn = false;
      await before();
    }
  };
  const query = client.query.bind(client);
  const exec = client.exec.bind(client);
  const transaction = client.transaction.bind(client);
  client.query = (async (...args: Parameters<typeof query>) => {
    await before();
    return query(...args);
  }) as typeof client.query;
  client.exec = async (...args: Parameters<typeof exec>) => {
    await before();
    return exec(...args);
  };
  client.transaction = (async (...args: Parameters<typeof transaction>) => {
    await before();
    return transaction(...args);
  }) as typeof client.transaction;
}
