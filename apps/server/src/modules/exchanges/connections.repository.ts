import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { exchangeConnections } from '../../db/schema/index';
import { connectionRowsFor } from './connections-cache';

export type ConnectionRow = typeof exchangeConnections.$inferSelect;

/**
 * Users' exchange connections. Key material arrives here already sealed and leaves sealed. On the
 * embedded database a user's rows are kept in memory until the next write to the table
 * (connections-cache.ts): every wallet, balance and venue call reads them.
 */
export class ConnectionsRepository {
  private readonly cache;

  constructor(private readonly db: Db) {
    this.cache = connectionRowsFor(db);
  }

  /** The user's connections, oldest first. Shared, frozen rows: read them, never change them. */
  async list(userId: string): Promise<readonly ConnectionRow[]> {
    return this.cache.rows(userId, () =>
      this.db
        .select()
        .from(exchangeConnections)
        .where(eq(exchangeConnections.userId, userId))
        .orderBy(asc(exchangeConnections.createdAt), asc(exchangeConnections.exchange)),
    );
  }

  async get(userId: string, exchange: string): Promise<ConnectionRow | null> {
    if (this.cache.enabled) return (await this.list(userId)).find((r) => r.exchange === exchange) ?? null;
    const [row] = await this.db
      .select()
      .from(exchangeConnections)
      .where(and(eq(exchangeConnections.userId, userId), eq(exchangeConnections.exchange, exchange)));
    return row ?? null;
  }

  /** Creates or replaces the user's connection to that exchange (a reconnect replaces mode and keys). */
  async upsert(
    userId: string,
    exchange: string,
    value:
      | { mode: 'paper' }
      | { mode: 'live'; apiKeyEnc: string; apiSecretEnc: string; apiPasswordEnc: string | null },
  ): Promise<ConnectionRow> {
    const fields =
      value.mode === 'paper'
        ? { mode: 'paper' as const, apiKeyEnc: null, apiSecretEnc: null, apiPasswordEnc: null }
        : {
            mode: 'live' as const,
            apiKeyEnc: value.apiKeyEnc,
            apiSecretEnc: value.apiSecretEnc,
            apiPasswordEnc: value.apiPasswordEnc,
          };
    const [row] = await this.db
      .insert(exchangeConnections)
      .values({ userId, exchange, ...fields })
      .onConflictDoUpdate({
        target: [exchangeConnections.userId, exchangeConnections.exchange],
        // New keys were checked on connect: what a re-check found about the old ones no longer holds.
        set: { ...fields, createdAt: new Date(), keyProblem: null, keyCheckedAt: null },
      })
      .returning();
    this.cache.touch();
    if (!row) throw new Error('connection upsert returned nothing');
    return row;
  }

  /** Every live connection (the daily key re-check), oldest check first so a cut-short run resumes fairly. */
  async listLive(): Promise<ConnectionRow[]> {
    return this.db
      .select()
      .from(exchangeConnections)
      .where(eq(exchangeConnections.mode, 'live'))
      .orderBy(sql`${exchangeConnections.keyCheckedAt} ASC NULLS FIRST`, asc(exchangeConnections.createdAt));
  }

  /**
   * Stores what a key re-check found, only on the key that was checked: a reconnect meanwhile (other sealed
   * key) is not marked with the old key's result. True when the row was marked.
   */
  async markKeyCheck(
    checked: Pick<ConnectionRow, 'id' | 'apiKeyEnc'>,
    keyProblem: 'revoked' | 'can_withdraw' | null,
    at: Date,
  ): Promise<boolean> {
    const rows = await this.db
      .update(exchangeConnections)
      .set({ keyProblem, keyCheckedAt: at })
      .where(
        and(
          eq(exchangeConnections.id, checked.id),
          eq(exchangeConnections.mode, 'live'),
          eq(exchangeConnections.apiKeyEnc, checked.apiKeyEnc ?? ''),
        ),
      )
      .returning({ id: exchangeConnections.id });
    this.cache.touch();
    return rows.length > 0;
  }

  async delete(userId: string, exchange: string): Promise<boolean> {
    const rows = await this.db
      .delete(exchangeConnections)
      .where(and(eq(exchangeConnections.userId, userId), eq(exchangeConnections.exchange, exchange)))
      .returning({ id: exchangeConnections.id });
    this.cache.touch();
    return rows.length > 0;
  }
}
