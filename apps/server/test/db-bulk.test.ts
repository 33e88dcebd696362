import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertRows, updateRows } from '../src/db/bulk';
import { openDatabase, type Database } from '../src/db/client';
import { botEvents, botOrders, bots, users } from '../src/db/schema/index';
import { openTestDatabase } from './db-snapshot';
import { freshPostgresUrl, PG_SKIP_REASON, PG_URL } from './helpers';

// db/bulk.ts: many rows in one statement with the rows as one JSON parameter. It must write exactly
// what drizzle's insert and update would: defaults for fields left out, explicit nulls, JSON as JSON,
// exact numerics, timestamps, and serial ids in the rows' order.
function suite(
  name: string,
  open: () => Promise<{ database: Database; close: () => Promise<void> }>,
  skip = false,
) {
  describe.skipIf(skip)(`bulk statements with one JSON parameter (${name})`, () => {
    let database: Database;
    let close: () => Promise<void>;
    let botId: string;
    beforeAll(async () => {
      ({ database, close } = await open());
      const [u] = await database.db
        .insert(users)
        .values({ email: `bulk-${Date.now()}@example.com`, passwordHash: 'x' })
        .returning();
      const [b] = await database.db
        .insert(bots)
        .values({ userId: u!.id, exchange: 'binance', symbol: 'BTC/USDT', config: {}, state: { a: 1 } })
        .returning();
      botId = b!.id;
    });
    afterAll(async () => close());

    it('inserts in order with defaults, nulls, JSON and exact numbers, and skips conflicts when asked', async () => {
      const rows = Array.from({ length: 5 }, (_, i) => ({
        clientOrderId: `bulk-${name}-${i}`,
        botId,
        exchange: i === 0 ? 'kraken' : null,
        symbol: 'BTC/USDT',
        side: 'buy' as const,
        type: 'limit' as const,
        price: i === 1 ? undefined : '94000.123456789012',
        amount: '0.00000001',
        role: 'ladder',
        // Left out on the first row: the column default (pending_submit) applies.
        ...(i === 0 ? {} : { status: 'open' as const }),
      }));
      await insertRows(database.db, botOrders, rows, sql`ON CONFLICT DO NOTHING`);
      // Again: every row conflicts and nothing changes.
      await insertRows(database.db, botOrders, rows, sql`ON CONFLICT DO NOTHING`);
      const got = await database.db
        .select()
        .from(botOrders)
        .where(eq(botOrders.botId, botId))
        .orderBy(asc(botOrders.clientOrderId));
      expect(got).toHaveLength(5);
      expect(got[0]).toMatchObject({ exchange: 'kraken', status: 'pending_submit', filled: '0', fee: '0' });
      expect(got[1]).toMatchObject({ exchange: null, price: null, status: 'open' });
      expect(got[2]!.price).toBe('94000.123456789012');
      expect(got[2]!.amount).toBe('0.00000001');
      expect(got[2]!.createdAt).toBeInstanceOf(Date);

      const events = Array.from({ length: 30 }, (_, i) => ({
        botId,
        code: `e${i}`,
        params: i % 2 ? { n: i, nested: { s: 'x"y', list: [1, null] } } : undefined,
        level: i === 3 ? ('warn' as const) : undefined,
      }));
      await insertRows(database.db, botEvents, events);
      const stored = await database.db
        .select()
        .from(botEvents)
        .where(eq(botEvents.botId, botId))
        .orderBy(asc(botEvents.id));
      // Serial ids follow the rows' order, across the two shapes of rows.
      expect(stored.map((e) => e.code)).toEqual(events.map((e) => e.code));
      expect(stored[1]!.params).toEqual({ n: 1, nested: { s: 'x"y', list: [1, null] } });
      expect(stored[0]!.params).toEqual({});
      expect(stored[3]!.level).toBe('warn');
      expect(stored[2]!.level).toBe('info');
    });

    it('updates many rows per shape, with nulls, JSON and a touched timestamp', async () => {
      const [before] = await database.db.select().from(bots).where(eq(bots.id, botId));
      const stoppedAt = new Date('2026-01-02T03:04:05.678Z');
      await updateRows(
        database.db,
        bots,
        'id',
        new Map([
          [botId, { state: { lots: [{ qty: 0.1 }], s: 'a\\b' }, pnl: '-1.5', stoppedAt, stopReason: null }],
        ]),
        'updatedAt',
      );
      await updateRows(
        database.db,
        botOrders,
        'clientOrderId',
        new Map([
          [`bulk-${name}-0`, { status: 'filled', filled: '0.5' }],
          [`bulk-${name}-1`, { status: 'cancelled' }],
          [`bulk-${name}-missing`, { status: 'cancelled' }],
        ]),
        'updatedAt',
      );
      const [after] = await database.db.select().from(bots).where(eq(bots.id, botId));
      expect(after!.state).toEqual({ lots: [{ qty: 0.1 }], s: 'a\\b' });
      expect(after!.pnl).toBe('-1.5');
      expect(after!.stoppedAt?.toISOString()).toBe(stoppedAt.toISOString());
      expect(after!.stopReason).toBeNull();
      expect(after!.config).toEqual({});
      expect(after!.updatedAt.getTime()).toBeGreaterThanOrEqual(before!.updatedAt.getTime());
      const orders = await database.db
        .select()
        .from(botOrders)
        .where(eq(botOrders.botId, botId))
        .orderBy(asc(botOrders.clientOrderId));
      expect(orders.map((o) => [o.status, o.filled])).toEqual([
        ['filled', '0.5'],
        ['cancelled', '0'],
        ['open', '0'],
        ['open', '0'],
        ['open', '0'],
      ]);
    });
  });
}

suite('PGlite', async () => {
  const database = await openTestDatabase();
  return { database, close: () => database.close() };
});

if (!PG_URL) console.log(`[skip] ${PG_SKIP_REASON}`);
suite(
  'PostgreSQL',
  async () => {
    const fresh = await freshPostgresUrl();
    const database = await openDatabase({ dataDir: 'unused', databaseUrl: fresh.url });
    return {
      database,
      close: async () => {
        await database.close();
        await fresh.drop();
      },
    };
  },
  !PG_URL,
);
