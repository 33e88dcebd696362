import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { exchangeConnections } from '../../db/schema/index';

export type ConnectionRow = typeof exchangeConnections.$inferSelect;

/** Users' exchange connections. Key material arrives here already sealed and leaves sealed. */
export class ConnectionsRepository {
  constructor(private readonly db: Db) {}

  async list(userId: string): Promise<ConnectionRow[]> {
    return this.db
      .select()
      .from(exchangeConnections)
      .where(eq(exchangeConnections.userId, userId))
      .orderBy(asc(exchangeConnections.createdAt), asc(exchangeConnections.exchange));
  }

  async get(userId: string, exchange: string): Promise<ConnectionRow | null> {
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
        set: { ...fields, createdAt: new Date() },
      })
      .returning();
    if (!row) throw new Error('connection upsert returned nothing');
    return row;
  }

  async delete(userId: string, exchange: string): Promise<boolean> {
    const rows = await this.db
      .delete(exchangeConnections)
      .where(and(eq(exchangeConnections.userId, userId), eq(exchangeConnections.exchange, exchange)))
      .returning({ id: exchangeConnections.id });
    return rows.length > 0;
  }
}
