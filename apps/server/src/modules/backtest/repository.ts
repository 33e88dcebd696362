import { and, desc, eq, gte, inArray, lt, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { backtests } from '../../db/schema/index';

export type BacktestRow = typeof backtests.$inferSelect;
export type NewBacktest = typeof backtests.$inferInsert;

const ACTIVE = ['queued', 'running'];

/** The `backtests` table (migration 0700): one row per backtest, its status, progress and result. */
export class BacktestsRepository {
  constructor(private readonly db: Db) {}

  async insert(row: NewBacktest): Promise<BacktestRow> {
    const [r] = await this.db.insert(backtests).values(row).returning();
    if (!r) throw new Error('backtest insert returned nothing');
    return r;
  }

  /** One backtest of the user created at or after `since` (older ones have expired), else null. */
  async own(userId: string, id: string, since: Date): Promise<BacktestRow | null> {
    const [r] = await this.db
      .select()
      .from(backtests)
      .where(and(eq(backtests.id, id), eq(backtests.userId, userId), gte(backtests.createdAt, since)))
      .limit(1);
    return r ?? null;
  }

  /** The user's recent backtests, newest first, without their result. */
  async list(userId: string, since: Date, limit: number) {
    return this.db
      .select({
        id: backtests.id,
        kind: backtests.kind,
        exchange: backtests.exchange,
        symbol: backtests.symbol,
        interval: backtests.interval,
        fromMs: backtests.fromMs,
        toMs: backtests.toMs,
        source: backtests.source,
        status: backtests.status,
        progress: backtests.progress,
        error: backtests.error,
        summary: backtests.summary,
        createdAt: backtests.createdAt,
        finishedAt: backtests.finishedAt,
      })
      .from(backtests)
      .where(and(eq(backtests.userId, userId), gte(backtests.createdAt, since)))
      .orderBy(desc(backtests.createdAt))
      .limit(limit);
  }

  /** The user's queued or running backtest, if any. */
  async activeOf(userId: string): Promise<BacktestRow | null> {
    const [r] = await this.db
      .select()
      .from(backtests)
      .where(and(eq(backtests.userId, userId), inArray(backtests.status, ACTIVE)))
      .limit(1);
    return r ?? null;
  }

  /**
   * Updates a queued or running backtest; false when it is no longer (cancelled, deleted or expired
   * meanwhile): its runner then stops.
   */
  async updateActive(id: string, patch: Partial<NewBacktest>): Promise<boolean> {
    const rows = await this.db
      .update(backtests)
      .set(patch)
      .where(and(eq(backtests.id, id), inArray(backtests.status, ACTIVE)))
      .returning({ id: backtests.id });
    return rows.length > 0;
  }

  /** Deletes the user's finished backtests beyond the newest `keep`. */
  async keepNewest(userId: string, keep: number): Promise<void> {
    const newest = this.db
      .select({ id: backtests.id })
      .from(backtests)
      .where(eq(backtests.userId, userId))
      .orderBy(desc(backtests.createdAt))
      .limit(keep);
    await this.db
      .delete(backtests)
      .where(
        and(
          eq(backtests.userId, userId),
          notInArray(backtests.status, ACTIVE),
          notInArray(backtests.id, newest),
        ),
      );
  }

  async delete(id: string): Promise<void> {
    await this.db.delete(backtests).where(eq(backtests.id, id));
  }

  /** Deletes the backtests created before `before` (results are kept 24 h); how many. */
  async purgeCreatedBefore(before: Date): Promise<number> {
    const rows = await this.db
      .delete(backtests)
      .where(lt(backtests.createdAt, before))
      .returning({ id: backtests.id });
    return rows.length;
  }

  /**
   * Queued or running backtests no process has reported on since `staleBefore` (all of them when
   * null: a single-process database at start-up) end as failed with `error`; optionally one user's.
   */
  async failStale(staleBefore: Date | null, error: string, now: Date, userId?: string): Promise<number> {
    const conds = [inArray(backtests.status, ACTIVE)];
    if (staleBefore) conds.push(lt(backtests.heartbeatAt, staleBefore));
    if (userId) conds.push(eq(backtests.userId, userId));
    const rows = await this.db
      .update(backtests)
      .set({ status: 'failed', error, finishedAt: now })
      .where(and(...conds))
      .returning({ id: backtests.id });
    return rows.length;
  }

  /** Marks the given backtests failed (this process is shutting down while they run). */
  async failIds(ids: string[], error: string, now: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .update(backtests)
      .set({ status: 'failed', error, finishedAt: now })
      .where(and(inArray(backtests.id, ids), inArray(backtests.status, ACTIVE)));
  }

  /** How many backtests exist (tests). */
  async count(): Promise<number> {
    const [r] = await this.db.select({ n: sql<number>`count(*)::int` }).from(backtests);
    return Number(r?.n ?? 0);
  }
}
