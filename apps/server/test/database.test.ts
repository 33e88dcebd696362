import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase, PGLITE_CHAIN_BUDGET_MS, type OpenDatabaseOptions } from '../src/db/client';
import { runMigrations } from '../src/db/migrate';
import { users } from '../src/db/schema/index';
import { openTestDatabase } from './db-snapshot';
import { freshPostgresUrl, PG_SKIP_REASON, PG_URL, tempDir } from './helpers';

async function persistsAcrossReopen(opts: OpenDatabaseOptions) {
  const first = await openDatabase(opts);
  await first.db.insert(users).values({ email: 'keep@example.com', passwordHash: 'x' });
  await first.close();
  const second = await openDatabase(opts);
  const rows = await second.db.select().from(users).where(eq(users.email, 'keep@example.com'));
  // Re-running migrations on an up-to-date database applies nothing.
  const again = await runMigrations(second.sql);
  await second.close();
  return { rows, again };
}

describe('database (PGlite)', () => {
  it(`gives the event loop a turn when queries have run back to back for ${PGLITE_CHAIN_BUDGET_MS} ms`, async () => {
    // The snapshot (~1 s) rather than a new in-memory cluster (~4 s of initdb and every migration): the
    // budget is the client's (openDatabase's) either way.
    const database = await openTestDatabase();
    try {
      // A chain of awaited queries, each a few ms of work on this thread, and a timer due at once.
      const QUERIES = 40;
      let done = 0;
      let doneWhenTimerRan = -1;
      const timer = new Promise<void>((resolve) =>
        setTimeout(() => {
          doneWhenTimerRan = done;
          resolve();
        }, 0),
      );
      const started = performance.now();
      for (let i = 0; i < QUERIES; i++) {
        await database.sql.query('SELECT count(*) FROM generate_series(1, 20000)');
        done++;
      }
      const elapsed = performance.now() - started;
      await timer;
      // The chain ran longer than the budget, and the timer ran before its end, not after it.
      expect(elapsed).toBeGreaterThan(2 * PGLITE_CHAIN_BUDGET_MS);
      expect(doneWhenTimerRan).toBeGreaterThanOrEqual(0);
      expect(doneWhenTimerRan).toBeLessThan(QUERIES);
    } finally {
      await database.close();
    }
  });

  // One new cluster (~4 s of CPU: initdb, then every migration) serves both: it is made in place of a
  // leftover, then kept across a restart (the test of the restart had a cluster of its own).
  it('creates a new cluster in a child process, in place of a leftover of a crashed creation; keeps data in DATA_DIR across a restart and applies migrations once', async () => {
    const dataDir = tempDir();
    // What a crash during an earlier first start leaves: a half-made cluster beside the real folder.
    fs.mkdirSync(path.join(dataDir, 'pglite.init-12345'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'pglite.init-12345', 'half'), 'x');
    const before = process.memoryUsage().rss;
    const database = await openDatabase({ dataDir });
    await database.db.insert(users).values({ email: 'apart@example.com', passwordHash: 'x' });
    await database.close();
    expect(fs.existsSync(path.join(dataDir, 'pglite', 'PG_VERSION'))).toBe(true);
    expect(fs.readdirSync(dataDir).filter((f) => f.startsWith('pglite.init'))).toEqual([]);
    // The cluster was made elsewhere: this process only opened it. An in-process initdb grows the
    // process by about 450 MB (pglite-init.ts); opening and migrating, by well under 300 MB.
    expect(process.memoryUsage().rss - before).toBeLessThan(350 * 2 ** 20);
    const again = await openDatabase({ dataDir });
    const rows = await again.db.select().from(users).where(eq(users.email, 'apart@example.com'));
    // Re-running migrations on an up-to-date database applies nothing.
    const migrated = await runMigrations(again.sql);
    await again.close();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.createdAt).toBeInstanceOf(Date);
    expect(migrated).toEqual([]);
    // A new cluster is ~4 s of CPU: at load 20-25 the suite's 30 s was not enough once.
  }, 120_000);

  it('stops the creating child when the server is SIGKILLed during a first start', async () => {
    const dataDir = tempDir();
    const dir = path.join(dataDir, 'pglite');
    const init = pathToFileURL(path.resolve(import.meta.dirname, '../src/db/pglite-init.ts')).href;
    const server = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import(${JSON.stringify(init)}).then((m) => m.createClusterApart(${JSON.stringify(dir)}))`,
      ],
      { stdio: 'ignore' },
    );
    const tmp = `${dir}.init-${server.pid}`;
    // The child is at work once its folder appears.
    const started = Date.now();
    while (!fs.existsSync(tmp) && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 50));
    expect(fs.existsSync(tmp)).toBe(true);
    const creating = () => {
      try {
        return execFileSync('pgrep', ['-f', tmp]).toString().trim();
      } catch {
        return ''; // pgrep exits 1 when nothing matches
      }
    };
    expect(creating()).not.toBe('');
    server.kill('SIGKILL');
    const killed = Date.now();
    while (creating() !== '' && Date.now() - killed < 5_000) await new Promise((r) => setTimeout(r, 50));
    expect(creating()).toBe('');
    // The next start removes what the killed one left and makes the cluster.
    const database = await openDatabase({ dataDir });
    await database.close();
    expect(fs.readdirSync(dataDir).sort()).toEqual(['pglite']);
  }, 120_000);
});

if (!PG_URL) console.log(`[skip] ${PG_SKIP_REASON}`);

describe.skipIf(!PG_URL)('database (PostgreSQL)', () => {
  it('keeps data across a reconnect and applies migrations once', async () => {
    const pg = await freshPostgresUrl();
    try {
      const { rows, again } = await persistsAcrossReopen({ databaseUrl: pg.url, dataDir: tempDir() });
      expect(rows).toHaveLength(1);
      expect(again).toEqual([]);
    } finally {
      await pg.drop();
    }
  });
});
