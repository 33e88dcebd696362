import type {
  Order,
  PaperAccountState,
  PaperBalance,
  PaperDerivativesState,
  PaperStateChange,
  PaperStore,
} from '@bytx/venues';
import { and, desc, eq, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { paperAccounts, paperOrders } from '../../db/schema/index';

/** A paper account is named `<userId>:<exchange>` (a uuid holds no colon). */
export const paperAccountId = (userId: string, exchange: string) => `${userId}:${exchange}`;

export function parsePaperAccountId(accountId: string): { userId: string; exchange: string } {
  const i = accountId.indexOf(':');
  if (i <= 0 || i === accountId.length - 1) throw new Error(`Bad paper account id: ${accountId}`);
  return { userId: accountId.slice(0, i), exchange: accountId.slice(i + 1) };
}

/**
 * Closed orders loaded back at start (PaperVenue keeps 5,000 in memory by default): enough for
 * client-order-id lookups of a bot's recent orders. Older ones stay in the table as history.
 */
export const PAPER_CLOSED_LOADED = 5_000;

/**
 * PaperVenue's persistence in the database. Each save writes the balance map and sequence of the
 * account and upserts only the orders that changed, in one transaction. PaperVenue never overlaps
 * two saves of one account, so a save is never overtaken by an older one.
 */
export class DbPaperStore implements PaperStore {
  constructor(private readonly db: Db) {}

  async load(accountId: string): Promise<PaperAccountState | null> {
    const { userId, exchange } = parsePaperAccountId(accountId);
    const where = and(eq(paperAccounts.userId, userId), eq(paperAccounts.exchange, exchange));
    const [account] = await this.db
      .select({
        balances: paperAccounts.balances,
        seq: paperAccounts.seq,
        derivatives: paperAccounts.derivatives,
      })
      .from(paperAccounts)
      .where(where);
    if (!account) return null;
    const ofAccount = and(eq(paperOrders.userId, userId), eq(paperOrders.exchange, exchange));
    const open = await this.db
      .select({ data: paperOrders.data })
      .from(paperOrders)
      .where(and(ofAccount, eq(paperOrders.status, 'open')));
    const closed = await this.db
      .select({ data: paperOrders.data })
      .from(paperOrders)
      .where(and(ofAccount, ne(paperOrders.status, 'open')))
      .orderBy(desc(paperOrders.updatedAt), desc(sql`(${paperOrders.orderId})::bigint`))
      .limit(PAPER_CLOSED_LOADED);
    return {
      balances: account.balances as Record<string, PaperBalance>,
      seq: account.seq,
      orders: [...open, ...closed].map((r) => r.data as Order),
      ...(account.derivatives ? { derivatives: account.derivatives as PaperDerivativesState } : {}),
    };
  }

  async save(accountId: string, change: PaperStateChange): Promise<void> {
    const { userId, exchange } = parsePaperAccountId(accountId);
    const now = new Date();
    await this.db.transaction(async (tx) => {
      // The derivatives part is saved whole when the venue sends it, and left as it was otherwise.
      const derivatives = change.derivatives ? { derivatives: change.derivatives } : {};
      await tx
        .insert(paperAccounts)
        .values({
          userId,
          exchange,
          balances: change.balances,
          seq: change.seq,
          updatedAt: now,
          ...derivatives,
        })
        .onConflictDoUpdate({
          target: [paperAccounts.userId, paperAccounts.exchange],
          set: { balances: change.balances, seq: change.seq, updatedAt: now, ...derivatives },
        });
      if (change.orders.length === 0) return;
      await tx
        .insert(paperOrders)
        .values(
          change.orders.map((o) => ({
            userId,
            exchange,
            orderId: o.id,
            clientOrderId: o.clientOrderId,
            symbol: o.symbol,
            status: o.status,
            data: o,
            updatedAt: now,
          })),
        )
        .onConflictDoUpdate({
          target: [paperOrders.userId, paperOrders.exchange, paperOrders.orderId],
          set: {
            clientOrderId: sql`excluded.client_order_id`,
            status: sql`excluded.status`,
            data: sql`excluded.data`,
            updatedAt: sql`excluded.updated_at`,
          },
        });
    });
  }

  /** Deletes a paper account with its orders (close its venue first). */
  async delete(userId: string, exchange: string): Promise<void> {
    await this.db
      .delete(paperAccounts)
      .where(and(eq(paperAccounts.userId, userId), eq(paperAccounts.exchange, exchange)));
  }
}
