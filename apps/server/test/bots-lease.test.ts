/**
 * The lease heartbeat writes a bot's row only when its lease changes hands or has less than half its time
 * left (issue 37 #14: a heartbeat that rewrote every row every 10 s was ~42 MB of write-ahead log an hour
 * with 100 bots on the embedded database), and still answers every bot the runner holds.
 */
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/client';
import { bots, users } from '../src/db/schema/index';
import { BotsRepository } from '../src/modules/bots/bots.repository';
import { freshPostgresUrl, PG_SKIP_REASON, PG_URL } from './helpers';
import { openTestDatabase } from './db-snapshot';

function scenario(open: () => Promise<{ database: Database; close: () => Promise<void> }>) {
  let close: () => Promise<void> = async () => undefined;
  afterEach(async () => close());

  const setup = async () => {
    const opened = await open();
    close = opened.close;
    const { db } = opened.database;
    const repo = new BotsRepository(db);
    const [u] = await db
      .insert(users)
      .values({ email: `${randomUUID()}@example.com`, passwordHash: 'x' })
      .returning();
    const ids: string[] = [];
    for (const symbol of ['BTC/USDT', 'ETH/USDT', 'SOL/USDT']) {
      const id = randomUUID();
      await repo.insertBot({
        id,
        userId: u!.id,
        exchange: 'binance',
        symbol,
        config: {},
        state: {},
        status: 'active',
      });
      ids.push(id);
    }
    const leaseOf = async (id: string) =>
      (await db.select({ by: bots.leasedBy, until: bots.leaseUntil }).from(bots).where(eq(bots.id, id)))[0]!;
    return { repo, ids, leaseOf };
  };

  it('renews a lease only past half its time, answers every held bot, and takes no live lease of another', async () => {
    const { repo, ids, leaseOf } = await setup();
    const ttl = 60_000;
    expect((await repo.lease('runner-a', ttl, false)).sort()).toEqual([...ids].sort());
    const first = await leaseOf(ids[0]!);
    expect(first.by).toBe('runner-a');

    // A heartbeat soon after: the same bots answered, no row written (the lease time is unchanged).
    expect((await repo.lease('runner-a', ttl, false)).sort()).toEqual([...ids].sort());
    expect((await leaseOf(ids[0]!)).until!.getTime()).toBe(first.until!.getTime());

    // Less than half the lease left on one bot: that one is renewed, the others are not rewritten.
    await repo.updateBot(ids[1]!, { leaseUntil: new Date(Date.now() + ttl / 4) });
    const before2 = (await leaseOf(ids[2]!)).until!.getTime();
    expect((await repo.lease('runner-a', ttl, false)).sort()).toEqual([...ids].sort());
    expect((await leaseOf(ids[1]!)).until!.getTime()).toBeGreaterThan(Date.now() + ttl / 2);
    expect((await leaseOf(ids[2]!)).until!.getTime()).toBe(before2);

    // Another runner gets none of them while the leases live; the one whose lease lapsed.
    expect(await repo.lease('runner-b', ttl, false)).toEqual([]);
    await repo.updateBot(ids[0]!, { leaseUntil: new Date(Date.now() - 1_000) });
    expect(await repo.lease('runner-b', ttl, false)).toEqual([ids[0]]);
    expect((await leaseOf(ids[0]!)).by).toBe('runner-b');
    expect((await repo.lease('runner-a', ttl, false)).sort()).toEqual([ids[1], ids[2]].sort());
  });
}

describe('bot leases on PGlite', () => {
  scenario(async () => {
    const database = await openTestDatabase();
    return { database, close: () => database.close() };
  });
});

if (!PG_URL) console.log(`[skip] ${PG_SKIP_REASON}`);
describe.skipIf(!PG_URL)('bot leases on PostgreSQL', () => {
  scenario(async () => {
    const pg = await freshPostgresUrl();
    const database = await openDatabase({ databaseUrl: pg.url, dataDir: 'memory://' });
    return {
      database,
      close: async () => {
        await database.close();
        await pg.drop();
      },
    };
  });
});
