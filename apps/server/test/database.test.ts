import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabaseOptions } from '../src/db/client';
import { runMigrations } from '../src/db/migrate';
import { users } from '../src/db/schema/index';
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
  it('keeps data in DATA_DIR across a restart and applies migrations once', async () => {
    const { rows, again } = await persistsAcrossReopen({ dataDir: tempDir() });
    expect(rows).toHaveLength(1);
    expect(rows[0]?.createdAt).toBeInstanceOf(Date);
    expect(again).toEqual([]);
  });
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
