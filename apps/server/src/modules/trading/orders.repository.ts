import { MANUAL_KIND } from '@bytx/engine';
import { and, count, desc, eq, gt, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { botOrders, bots } from '../../db/schema/index';
import type { BotOrderRow, BotRow, NewBotRow } from '../bots/bots.repository';

/** Which manual orders a list reads: the user's on one exchange, optionally one market of one pair. */
export interface ManualFilter {
  userId: string;
  exchange: string;
  /** The user's pair (BTC/USDT) and its market type (Spot or Perpetual); absent: every pair. */
  pair?: { symbol: string; marketType: 'Spot' | 'Perpetual' };
}

/** A filled (or partly filled) order of a manual order, with what the fills panel shows of its bot. */
export interface ManualFillRow {
  order: BotOrderRow;
  botId: string;
  botSymbol: string;
  marketType: string;
  config: unknown;
}

/**
 * Manual orders (bots of kind 'manual', the spot and futures screens). Index bots_manual_idx (user_id,
 * exchange, status) WHERE kind = 'manual' serves every list here.
 */
export class ManualOrdersRepository {
  constructor(private readonly db: Db) {}

  private where(f: ManualFilter) {
    return and(
      eq(bots.userId, f.userId),
      eq(bots.kind, MANUAL_KIND),
      eq(bots.exchange, f.exchange),
      f.pair ? eq(bots.symbol, f.pair.symbol) : undefined,
      f.pair ? eq(bots.marketType, f.pair.marketType) : undefined,
    );
  }

  /**
   * Inserts a manual order while the user has fewer than `max` open ones (every exchange and pair),
   * else throws `full()`: counted and inserted under a per-user transaction lock, so orders sent at
   * once cannot pass the limit together.
   */
  async insertOrder(row: NewBotRow, max: number, full: () => Error): Promise<BotRow> {
    return this.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`manual:${row.userId}`}))`);
      const [open] = await tx
        .select({ n: count() })
        .from(bots)
        .where(and(eq(bots.userId, row.userId), eq(bots.kind, MANUAL_KIND), eq(bots.status, 'active')));
      if ((open?.n ?? 0) >= max) throw full();
      const [bot] = await tx.insert(bots).values(row).returning();
      if (!bot) throw new Error('manual order insert returned nothing');
      return bot;
    });
  }

  /** Open manual orders of a user (every exchange and pair). */
  async countOpen(userId: string): Promise<number> {
    const [row] = await this.db
      .select({ n: count() })
      .from(bots)
      .where(and(eq(bots.userId, userId), eq(bots.kind, MANUAL_KIND), eq(bots.status, 'active')));
    return row?.n ?? 0;
  }

  /** Open orders (the bot still runs: entry, take profit or stop-loss watch), newest first. */
  async open(f: ManualFilter): Promise<BotRow[]> {
    return this.db
      .select()
      .from(bots)
      .where(and(this.where(f), eq(bots.status, 'active')))
      .orderBy(desc(bots.startedAt), desc(bots.id));
  }

  /** Ended orders, the last ended first, at most `limit`. */
  async ended(f: ManualFilter, limit: number): Promise<BotRow[]> {
    return this.db
      .select()
      .from(bots)
      .where(and(this.where(f), inArray(bots.status, ['stopped', 'error'])))
      .orderBy(sql`${bots.stoppedAt} DESC NULLS LAST`, desc(bots.startedAt), desc(bots.id))
      .limit(limit);
  }

  /** The orders of these manual orders that filled anything, the last changed first, at most `limit`. */
  async fills(f: ManualFilter, limit: number): Promise<ManualFillRow[]> {
    return this.db
      .select({
        order: botOrders,
        botId: bots.id,
        botSymbol: bots.symbol,
        marketType: bots.marketType,
        config: bots.config,
      })
      .from(botOrders)
      .innerJoin(bots, eq(bots.id, botOrders.botId))
      .where(and(this.where(f), gt(botOrders.filled, '0')))
      .orderBy(desc(botOrders.updatedAt), desc(botOrders.clientOrderId))
      .limit(limit);
  }
}
