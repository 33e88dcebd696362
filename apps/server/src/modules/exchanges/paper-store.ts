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
import { insertRows } from '../../db/bulk';
import { GroupCommit } from '../../lib/batcher';
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
 *
 * Saves are group-committed (lib/batcher.ts): the saves made together — at 10,000 bots, the ~400
 * paper accounts a price move of one pair fills — are one transaction with one upsert of the account
 * rows and one of the order rows, and each save resolves only once that transaction has committed,
 * as a save of its own would. A batch that fails is saved again account by account.
 */
export class DbPaperStore implements PaperStore {
  private readonly batch: GroupCommit<[string, PaperStateChange]>;

  constructor(private readonly db: Db) {
    this.batch = new GroupCommit({
      commit: (items) => this.db.transaction((tx) => this.write(tx, items)),
      one: (item) => this.db.transaction((tx) => this.write(tx, [item])),
    });
  }

  async load(accountId: string): Promise<PaperAccountState | null> {
    // A venue opened again (a reconnection) reads what its predecessor's last saves wrote.
    await this.batch.barrier();
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

  save(accountId: string, change: PaperStateChange): Promise<void> {
    return this.batch.add([accountId, change]);
  }

  /**
   * The saves of a batch in one transaction. Two saves of one account in a batch (a venue closed and
   * opened again) merge as sequential saves would: the later balances, sequence and derivatives win,
   * and each order keeps its latest version.
   */
  private async write(tx: Pick<Db, 'execute'>, items: [string, PaperStateChange][]): Promise<void> {
    const accounts = new Map<string, PaperStateChange>();
    const orders = new Map<string, { userId: string; exchange: string; order: Order }>();
    for (const [accountId, change] of items) {
      const prev = accounts.get(accountId);
      accounts.set(accountId, {
        ...change,
        derivatives: change.derivatives ?? prev?.derivatives,
      });
      const { userId, exchange } = parsePaperAccountId(accountId);
      for (const o of change.orders) orders.set(`${accountId}|${o.id}`, { userId, exchange, order: o });
    }
    const now = new Date();
    // Key order, so two writers never lock rows in opposite orders.
    const accountRows = [...accounts.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([accountId, change]) => {
        const { userId, exchange } = parsePaperAccountId(accountId);
        return {
          userId,
          exchange,
          balances: change.balances,
          seq: change.seq,
          updatedAt: now,
          derivatives: change.derivatives ?? null,
        };
      });
    // One statement per table with the rows as one JSON parameter (db/bulk.ts).
    await insertRows(
      tx,
      paperAccounts,
      accountRows,
      // The derivatives part is saved whole when the venue sends it, and left as it was otherwise.
      sql`ON CONFLICT (user_id, exchange) DO UPDATE SET balances = excluded.balances, seq = excluded.seq, updated_at = excluded.updated_at, derivatives = COALESCE(excluded.derivatives, ${paperAccounts.derivatives})`,
    );
    const orderRows = [...orders.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, { userId, exchange, order: o }]) => ({
        userId,
        exchange,
        orderId: o.id,
        clientOrderId: o.clientOrderId,
        symbol: o.symbol,
        status: o.status,
        data: o,
        updatedAt: now,
      }));
    await insertRows(
      tx,
      paperOrders,
      orderRows,
      sql`ON CONFLICT (user_id, exchange, order_id) DO UPDATE SET client_order_id = excluded.client_order_id, status = excluded.status, data = excluded.data, updated_at = excluded.updated_at`,
    );
  }

  /** Deletes a paper account with its orders (close its venue first). */
  async delete(userId: string, exchange: string): Promise<void> {
    await this.batch.barrier();
    await this.db
      .delete(paperAccounts)
      .where(and(eq(paperAccounts.userId, userId), eq(paperAccounts.exchange, exchange)));
  }
}
