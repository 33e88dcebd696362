import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/client';
import { users } from '../src/db/schema/index';
import { BotsRepository } from '../src/modules/bots/bots.repository';
import { freshPostgresUrl, PG_SKIP_REASON, PG_URL, tempDir } from './helpers';
import { openTestDatabase } from './db-snapshot';

/**
 * MAX_BOTS_PER_USER under starts that arrive at once: the count and the insert happen under one
 * per-user transaction lock, so on PostgreSQL (a pool of connections, READ COMMITTED) two starts cannot
 * both count one below the cap and both insert. On PGlite transactions run one at a time anyway.
 */
async function startAtOnce(database: Database, n: number, max: number) {
  const repo = new BotsRepository(database.db);
  const [user] = await database.db
    .insert(users)
    .values({ email: `cap-${randomUUID()}@example.com`, passwordHash: 'x' })
    .returning();
  const full = () => new Error('full');
  const outcomes = await Promise.allSettled(
    Array.from({ length: n }, (_, i) =>
      repo.insertBot(
        {
          userId: user!.id,
          kind: 'grid-dca',
          exchange: 'binance',
          symbol: `C${i}/USDT`,
          config: {},
          state: {},
          status: 'active',
        },
        { max, except: [], full },
      ),
    ),
  );
  return {
    inserted: outcomes.filter((o) => o.status === 'fulfilled').length,
    refused: outcomes.filter((o) => o.status === 'rejected' && (o.reason as Error).message === 'full').length,
    active: await repo.countActive(user!.id),
  };
}

describe('the bots-per-user cap against concurrent starts', () => {
  it('PGlite: exactly the cap is inserted', async () => {
    const database = await openTestDatabase();
    try {
      expect(await startAtOnce(database, 8, 3)).toEqual({ inserted: 3, refused: 5, active: 3 });
    } finally {
      await database.close();
    }
  });

  if (!PG_URL) console.log(`[skip] ${PG_SKIP_REASON}`);
  it.skipIf(!PG_URL)(
    'PostgreSQL: exactly the cap is inserted, however the pool interleaves them',
    async () => {
      const pg = await freshPostgresUrl();
      const database = await openDatabase({ databaseUrl: pg.url, dataDir: tempDir() });
      try {
        for (let round = 0; round < 5; round++) {
          expect(await startAtOnce(database, 12, 3)).toEqual({ inserted: 3, refused: 9, active: 3 });
        }
      } finally {
        await database.close();
        await pg.drop();
      }
    },
  );
});
