import type { SignalSecretRotation } from '@bytx/contract';
import { and, asc, count, desc, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../../../db/client';
import {
  botEvents,
  botOrders,
  bots,
  signalBots,
  signalEvents,
  type SignalEventOrder,
  type SignalEventStatus,
} from '../../../../db/schema/index';
import { readCacheFor, type ReadCache } from '../../read-cache';
import { strategyIdOf } from '../../strategy-id';

export type SignalEventRow = typeof signalEvents.$inferSelect;
export type NewSignalEventRow = typeof signalEvents.$inferInsert;
export type SignalBotRow = typeof signalBots.$inferSelect;

/** What a webhook request left to log (the fields of a rejected or duplicate row). */
export type SignalLogEntry = Omit<NewSignalEventRow, 'id' | 'seq' | 'status'> & {
  status: Extract<SignalEventStatus, 'rejected' | 'duplicate'>;
};

/** The outcome of recording an accepted signal: its row and seq, or a duplicate of an earlier id. */
export type RecordOutcome = { duplicate: false; id: number; seq: number } | { duplicate: true };

const isUniqueViolation = (err: unknown) => {
  const e = err as { code?: string; cause?: { code?: string } };
  return String(e.cause?.code ?? e.code) === '23505';
};

/** Code of the bot event written when a secret is replaced (`bot_events.code`; params `{reason}`). */
export const SIGNAL_SECRET_EVENT = 'signal_secret_rotated';

/**
 * signal_bots and signal_events (migrations 0308, 0830). Every write here drops the bots read cache
 * of the bot's user after it completes (read-cache.ts: the Signal bot's list and log are answered from
 * it); a write to these tables made elsewhere drops every user's.
 */
export class SignalRepository {
  private readonly reads: ReadCache;

  constructor(private readonly db: Db) {
    this.reads = readCacheFor(db, strategyIdOf);
  }

  /** Runs a write of these bots' rows, then drops their users' cached answers (also when it failed). */
  private async forBots<T>(botIds: string[], fn: () => PromiseLike<T>): Promise<T> {
    try {
      return await this.reads.attributed(fn);
    } finally {
      for (const id of botIds) this.reads.touchBot(id);
    }
  }

  /** A new bot's webhook row with the hash of its secret (secrets.ts). */
  async insertBot(botId: string, secretHash: string): Promise<void> {
    await this.forBots([botId], () => this.db.insert(signalBots).values({ botId, secretHash }));
  }

  /** The webhook rows of these bots (the list shows when and why each secret was replaced). */
  async bots(botIds: string[]): Promise<Map<string, SignalBotRow>> {
    if (botIds.length === 0) return new Map();
    const rows = await this.db.select().from(signalBots).where(inArray(signalBots.botId, botIds));
    return new Map(rows.map((r) => [r.botId, r]));
  }

  async bot(botId: string): Promise<SignalBotRow | null> {
    const [row] = await this.db.select().from(signalBots).where(eq(signalBots.botId, botId)).limit(1);
    return row ?? null;
  }

  /**
   * Replaces secrets by new hashes (the old secrets stop working at once), each with a `warn` event in
   * the bot's event log naming the reason, in one transaction.
   */
  async replaceSecrets(rows: { botId: string; hash: string }[], reason: SignalSecretRotation): Promise<void> {
    if (rows.length === 0) return;
    const at = new Date();
    const ids = rows.map((r) => r.botId);
    await this.forBots(ids, () =>
      this.db.transaction(async (tx) => {
        for (const r of rows) {
          await tx
            .update(signalBots)
            .set({ secretHash: r.hash, secretEnc: null, secretRotatedAt: at, secretRotatedReason: reason })
            .where(eq(signalBots.botId, r.botId));
        }
        await tx.insert(botEvents).values(
          rows.map((r) => ({
            botId: r.botId,
            ts: at,
            level: 'warn' as const,
            code: SIGNAL_SECRET_EVENT,
            params: { reason },
          })),
        );
      }),
    );
  }

  /** The user's Signal bots (any status) with their webhook rows. */
  async botsOfUser(userId: string): Promise<{ botId: string; exchange: string; symbol: string }[]> {
    return this.db
      .select({ botId: signalBots.botId, exchange: bots.exchange, symbol: bots.symbol })
      .from(signalBots)
      .innerJoin(bots, eq(bots.id, signalBots.botId))
      .where(eq(bots.userId, userId))
      .orderBy(asc(bots.startedAt));
  }

  /** Webhook rows whose secret is still sealed (created before migration 0830). */
  async sealedSecrets(): Promise<{ botId: string; secretEnc: string }[]> {
    const rows = await this.db
      .select({ botId: signalBots.botId, secretEnc: signalBots.secretEnc })
      .from(signalBots)
      .where(and(isNull(signalBots.secretHash), isNotNull(signalBots.secretEnc)));
    return rows.flatMap((r) => (r.secretEnc === null ? [] : [{ botId: r.botId, secretEnc: r.secretEnc }]));
  }

  /** Stores the hash of a sealed secret and clears the sealed value (unless it changed meanwhile). */
  async convertSealed(botId: string, secretEnc: string, secretHash: string): Promise<boolean> {
    const rows = await this.forBots([botId], () =>
      this.db
        .update(signalBots)
        .set({ secretHash, secretEnc: null })
        .where(
          and(
            eq(signalBots.botId, botId),
            eq(signalBots.secretEnc, secretEnc),
            isNull(signalBots.secretHash),
          ),
        )
        .returning({ botId: signalBots.botId }),
    );
    return rows.length > 0;
  }

  /** Logs a signal that was not recorded for execution (rejected, or a duplicate of an accepted id). */
  async log(entry: SignalLogEntry): Promise<void> {
    await this.forBots([entry.botId], () => this.db.insert(signalEvents).values({ ...entry, seq: null }));
  }

  /**
   * Records an accepted signal: in one transaction, the bot's webhook row is locked, the id is looked
   * up among the accepted signals (a duplicate records nothing), the next seq is taken and the row
   * inserted with status `accepted`. Concurrent duplicates wait on the lock and then see the first;
   * the unique index (bot_id, signal_key) decides in any case (its violation is a duplicate too).
   */
  async record(
    entry: Omit<NewSignalEventRow, 'id' | 'seq' | 'status' | 'reason' | 'reasonText'>,
  ): Promise<RecordOutcome> {
    const botId = entry.botId;
    const key = entry.signalKey ?? null;
    try {
      return await this.forBots([botId], () =>
        this.db.transaction(async (tx): Promise<RecordOutcome> => {
          await tx
            .select({ seq: signalBots.lastSeq })
            .from(signalBots)
            .where(eq(signalBots.botId, botId))
            .for('update');
          if (key !== null) {
            const [dup] = await tx
              .select({ id: signalEvents.id })
              .from(signalEvents)
              .where(
                and(
                  eq(signalEvents.botId, botId),
                  eq(signalEvents.signalKey, key),
                  isNotNull(signalEvents.seq),
                ),
              )
              .limit(1);
            if (dup) return { duplicate: true };
          }
          const [b] = await tx
            .update(signalBots)
            .set({ lastSeq: sql`${signalBots.lastSeq} + 1` })
            .where(eq(signalBots.botId, botId))
            .returning({ seq: signalBots.lastSeq });
          if (!b) throw new Error(`signal bot ${botId} has no webhook row`);
          const [row] = await tx
            .insert(signalEvents)
            .values({ ...entry, seq: b.seq, status: 'accepted' })
            .returning({ id: signalEvents.id });
          if (!row) throw new Error('signal insert returned nothing');
          return { duplicate: false, id: row.id, seq: b.seq };
        }),
      );
    } catch (err) {
      if (isUniqueViolation(err)) return { duplicate: true };
      throw err;
    }
  }

  /** The bot's signals recorded but not yet executed, in seq order. */
  async accepted(botId: string): Promise<SignalEventRow[]> {
    return this.db
      .select()
      .from(signalEvents)
      .where(and(eq(signalEvents.botId, botId), eq(signalEvents.status, 'accepted')))
      .orderBy(asc(signalEvents.seq));
  }

  /** Every bot with a signal recorded but not yet executed (the start re-feeds them). */
  async botsWithAccepted(): Promise<string[]> {
    const rows = await this.db
      .selectDistinct({ botId: signalEvents.botId })
      .from(signalEvents)
      .where(eq(signalEvents.status, 'accepted'));
    return rows.map((r) => r.botId);
  }

  async byId(id: number): Promise<SignalEventRow | null> {
    const [row] = await this.db.select().from(signalEvents).where(eq(signalEvents.id, id)).limit(1);
    return row ?? null;
  }

  /** An accepted signal's outcome (only while it is still `accepted`: a second feed changes nothing). */
  async settle(
    event: { id: number; botId: string },
    patch: {
      status: 'executed' | 'skipped';
      reason: string | null;
      reasonText: string | null;
      orders: SignalEventOrder[];
    },
  ): Promise<void> {
    await this.forBots([event.botId], () =>
      this.db
        .update(signalEvents)
        .set({ ...patch, executedAt: new Date() })
        .where(and(eq(signalEvents.id, event.id), eq(signalEvents.status, 'accepted'))),
    );
  }

  /** One page of the bot's log, newest first (index signal_events_bot_idx). */
  async page(
    botId: string,
    page: number,
    perPage: number,
  ): Promise<{ rows: SignalEventRow[]; total: number }> {
    const [c] = await this.db.select({ n: count() }).from(signalEvents).where(eq(signalEvents.botId, botId));
    const total = c?.n ?? 0;
    const rows = await this.db
      .select()
      .from(signalEvents)
      .where(eq(signalEvents.botId, botId))
      .orderBy(desc(signalEvents.id))
      .limit(perPage)
      .offset((page - 1) * perPage);
    return { rows, total };
  }

  /** Accepted (recorded: accepted, executed, skipped) and rejected signals per bot. */
  async counts(botIds: string[]): Promise<Map<string, { accepted: number; rejected: number }>> {
    const out = new Map<string, { accepted: number; rejected: number }>();
    if (botIds.length === 0) return out;
    const rows = await this.db
      .select({
        botId: signalEvents.botId,
        accepted: sql<number>`count(*) FILTER (WHERE ${signalEvents.seq} IS NOT NULL)`.mapWith(Number),
        rejected: sql<number>`count(*) FILTER (WHERE ${signalEvents.status} = 'rejected')`.mapWith(Number),
      })
      .from(signalEvents)
      .where(inArray(signalEvents.botId, botIds))
      .groupBy(signalEvents.botId);
    for (const r of rows) out.set(r.botId, { accepted: r.accepted, rejected: r.rejected });
    return out;
  }

  /** The bot's journal rows of these client order ids. */
  async orders(botId: string, clientOrderIds: string[]) {
    if (clientOrderIds.length === 0) return [];
    return this.db
      .select()
      .from(botOrders)
      .where(and(eq(botOrders.botId, botId), inArray(botOrders.clientOrderId, clientOrderIds)));
  }
}
