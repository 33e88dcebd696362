import { and, desc, eq, gte, isNull, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { bots, botTrades, scheduledJobs } from '../../../db/schema/index';

/** A sale of a lot (a completed pending order) with what the page shows of its bot. */
export interface CompletedRow {
  key: string;
  lotId: string;
  botId: string;
  kind: string;
  config: unknown;
  exchange: string;
  symbol: string;
  qty: string;
  buyPrice: string;
  sellPrice: string;
  pnlNet: string;
  buyTime: Date;
  sellTime: Date;
}

const completedColumns = {
  key: botTrades.lotKey,
  lotId: sql<string>`coalesce(${botTrades.lotId}, ${botTrades.lotKey})`,
  botId: botTrades.botId,
  kind: bots.kind,
  config: bots.config,
  exchange: botTrades.exchange,
  symbol: botTrades.symbol,
  qty: botTrades.qty,
  buyPrice: botTrades.buyPrice,
  sellPrice: botTrades.sellPrice,
  pnlNet: botTrades.pnlNet,
  buyTime: botTrades.buyTime,
  sellTime: botTrades.sellTime,
};

/** The pending-orders queries (open lots live in the bots' states; completed ones are trades). */
export class PendingRepository {
  constructor(private readonly db: Db) {}

  /** The user's sales since `since` (newest first, at most `limit`), optionally of one bot or pair. */
  async completed(
    userId: string,
    since: Date,
    limit: number,
    only: { botId?: string; exchange?: string; symbol?: string } = {},
  ): Promise<CompletedRow[]> {
    const where = [
      eq(botTrades.userId, userId),
      isNull(botTrades.deletedAt),
      eq(botTrades.manual, false),
      gte(botTrades.sellTime, since),
    ];
    if (only.botId) where.push(eq(botTrades.botId, only.botId));
    if (only.exchange) where.push(eq(botTrades.exchange, only.exchange));
    if (only.symbol) where.push(eq(botTrades.symbol, only.symbol));
    return this.db
      .select(completedColumns)
      .from(botTrades)
      .innerJoin(bots, eq(bots.id, botTrades.botId))
      .where(and(...where))
      .orderBy(desc(botTrades.sellTime), desc(botTrades.id))
      .limit(limit);
  }

  /** The user's sale with this key, or the last sale of the lot with this id. */
  async completedById(userId: string, id: string): Promise<CompletedRow | null> {
    const [row] = await this.db
      .select(completedColumns)
      .from(botTrades)
      .innerJoin(bots, eq(bots.id, botTrades.botId))
      .where(
        and(
          eq(botTrades.userId, userId),
          isNull(botTrades.deletedAt),
          eq(botTrades.manual, false),
          or(eq(botTrades.lotKey, id), eq(botTrades.lotId, id)),
        ),
      )
      .orderBy(desc(botTrades.sellTime), desc(botTrades.id))
      .limit(1);
    return row ?? null;
  }

  /**
   * Claims a due run of a periodic job for `holder` (one UPDATE: two processes never both get it).
   * The job's row is created on first use, due `firstDelayMs` later. Returns the run's due time.
   */
  async claimJob(
    name: string,
    holder: string,
    now: Date,
    firstDelayMs: number,
    claimMs: number,
  ): Promise<Date | null> {
    await this.db
      .insert(scheduledJobs)
      .values({ name, nextRunAt: new Date(now.getTime() + firstDelayMs) })
      .onConflictDoNothing();
    const [row] = await this.db
      .update(scheduledJobs)
      .set({ claimedBy: holder, claimedUntil: new Date(now.getTime() + claimMs) })
      .where(
        and(
          eq(scheduledJobs.name, name),
          lte(scheduledJobs.nextRunAt, now),
          or(isNull(scheduledJobs.claimedUntil), lte(scheduledJobs.claimedUntil, now)),
        ),
      )
      .returning({ nextRunAt: scheduledJobs.nextRunAt });
    return row?.nextRunAt ?? null;
  }

  /** Ends a claimed run: the next one is due at `next`. */
  async finishJob(name: string, holder: string, ranAt: Date, next: Date, result: unknown): Promise<void> {
    await this.db
      .update(scheduledJobs)
      .set({ nextRunAt: next, lastRunAt: ranAt, lastResult: result, claimedBy: null, claimedUntil: null })
      .where(and(eq(scheduledJobs.name, name), eq(scheduledJobs.claimedBy, holder)));
  }

  async job(name: string) {
    const [row] = await this.db.select().from(scheduledJobs).where(eq(scheduledJobs.name, name)).limit(1);
    return row ?? null;
  }
}
