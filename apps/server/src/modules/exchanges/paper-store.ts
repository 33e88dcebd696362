import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { paperAccounts } from '../../db/schema/index';

/** A paper account is named `<userId>:<exchange>` (a uuid holds no colon). */
export const paperAccountId = (userId: string, exchange: string) => `${userId}:${exchange}`;

export function parsePaperAccountId(accountId: string): { userId: string; exchange: string } {
  const i = accountId.indexOf(':');
  if (i <= 0 || i === accountId.length - 1) throw new Error(`Bad paper account id: ${accountId}`);
  return { userId: accountId.slice(0, i), exchange: accountId.slice(i + 1) };
}

interface Pending {
  /** The newest state asked to be saved, as JSON text (a snapshot taken at the call). */
  latest: string | null;
  /** Resolves when everything asked so far is written. */
  flushing: Promise<void> | null;
}

/**
 * PaperVenue's persistence in the database: one JSON document per account in `paper_accounts`.
 * Saves of one account are written in call order and coalesced (only the newest waiting snapshot is
 * written), so an older snapshot can never overwrite a newer one.
 */
export class DbPaperStore {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly db: Db) {}

  async load(accountId: string): Promise<unknown> {
    const { userId, exchange } = parsePaperAccountId(accountId);
    // A load waits for this account's saves in flight, so it never reads an older state.
    await this.pending.get(accountId)?.flushing;
    const [row] = await this.db
      .select({ state: paperAccounts.state })
      .from(paperAccounts)
      .where(and(eq(paperAccounts.userId, userId), eq(paperAccounts.exchange, exchange)));
    return row ? row.state : null;
  }

  save(accountId: string, state: unknown): Promise<void> {
    const snapshot = JSON.stringify(state);
    let p = this.pending.get(accountId);
    if (!p) {
      p = { latest: null, flushing: null };
      this.pending.set(accountId, p);
    }
    p.latest = snapshot;
    if (!p.flushing) {
      const entry = p;
      entry.flushing = this.flush(accountId, entry).finally(() => {
        entry.flushing = null;
        if (entry.latest === null) this.pending.delete(accountId);
      });
    }
    return p.flushing!;
  }

  /** Waits for every account's saves (app shutdown). */
  async drain(): Promise<void> {
    await Promise.all([...this.pending.values()].map((p) => p.flushing ?? Promise.resolve()));
  }

  async delete(userId: string, exchange: string): Promise<void> {
    await this.pending.get(paperAccountId(userId, exchange))?.flushing;
    await this.db
      .delete(paperAccounts)
      .where(and(eq(paperAccounts.userId, userId), eq(paperAccounts.exchange, exchange)));
  }

  private async flush(accountId: string, entry: Pending): Promise<void> {
    const { userId, exchange } = parsePaperAccountId(accountId);
    while (entry.latest !== null) {
      const state = JSON.parse(entry.latest) as unknown;
      entry.latest = null;
      await this.db
        .insert(paperAccounts)
        .values({ userId, exchange, state })
        .onConflictDoUpdate({
          target: [paperAccounts.userId, paperAccounts.exchange],
          set: { state, updatedAt: new Date() },
        });
    }
  }
}
