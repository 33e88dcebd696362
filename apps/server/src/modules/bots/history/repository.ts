import { and, asc, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { botTrades } from '../../../db/schema/index';

export type HistoryTradeRow = typeof botTrades.$inferSelect;

/** Totals of the user's live rows, and the (exchange, symbol) pairs whose PnL needs a USD price. */
export interface HistoryTotals {
  total: number;
  totalPnl: string;
  markets: { exchange: string; symbol: string }[];
}

/** USD per unit of the quote of `symbol` on `exchange`, a decimal string; null: no price (left out). */
export interface PriceRow {
  exchange: string;
  symbol: string;
  usd: string | null;
}

export interface AggregateRows {
  tokens: { symbol: string; pnl: string; trades: number; usd: string | null }[];
  total: { pnl: string; usd: string };
  window: { pnl: string; usd: string };
  daily: { day: string; pnl: string; pnl_usd: string; cumulative: string; cumulative_usd: string }[];
}

/** The quote of a stored symbol ('ETH/BTC' → 'BTC', 'BTC/USDT:USDT' → 'USDT'), as bot_trade_quote() in SQL. */
export const quoteOf = (symbol: string) => (symbol.split('/')[1] ?? '').split(':')[0] ?? '';

const rowsOf = <T>(result: unknown): T[] =>
  (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as T[];

/**
 * The global history's reads and deletes (docs/bots/history.md). Rows come from bot_trades
 * through its partial index (user_id, sell_time DESC, id DESC) WHERE deleted_at IS NULL AND NOT manual
 * (manual orders' trades are not bots'; migration 0309); totals,
 * per-symbol figures and the daily series come from bot_trade_symbols and bot_trade_daily (migration
 * 0305), which triggers on bot_trades keep exact, so no call sums a user's whole history.
 */
export class HistoryRepository {
  constructor(private readonly db: Db) {}

  /** Count and PnL of the user's live rows, with the (exchange, symbol) pairs they hold, from the rollup. */
  async totals(userId: string): Promise<HistoryTotals> {
    const rows = rowsOf<{
      exchange: string | null;
      symbol: string | null;
      pnl: string;
      n: number;
      g: number;
    }>(
      await this.db.execute(sql`
        SELECT s.exchange, s.symbol, sum(s.pnl)::text AS pnl, sum(s.trades)::int AS n, GROUPING(s.exchange) AS g
        FROM bot_trade_symbols s
        WHERE s.user_id = ${userId} AND s.trades > 0
        GROUP BY GROUPING SETS ((s.exchange, s.symbol), ())`),
    );
    const grand = rows.find((r) => Number(r.g) === 1);
    return {
      total: Number(grand?.n ?? 0),
      totalPnl: grand?.pnl ?? '0',
      markets: rows
        .filter((r) => Number(r.g) === 0 && Number(r.n) > 0)
        .map((r) => ({ exchange: r.exchange ?? '', symbol: r.symbol ?? '' })),
    };
  }

  /**
   * One page, newest sale first. A page in the older half is read from the other end of the index
   * (oldest first, then reversed), so the last page costs what the first does.
   */
  async page(userId: string, offset: number, limit: number, total: number): Promise<HistoryTradeRow[]> {
    // Manual orders' trades (the spot and futures screens) are not a bot's: never in the history.
    const live = and(eq(botTrades.userId, userId), isNull(botTrades.deletedAt), eq(botTrades.manual, false));
    const remaining = total - offset;
    if (remaining <= 0) return [];
    if (offset > remaining - limit) {
      const rows = await this.db
        .select()
        .from(botTrades)
        .where(live)
        .orderBy(asc(botTrades.sellTime), asc(botTrades.id))
        .limit(Math.min(limit, remaining))
        .offset(Math.max(0, remaining - limit));
      return rows.reverse();
    }
    return this.db
      .select()
      .from(botTrades)
      .where(live)
      .orderBy(desc(botTrades.sellTime), desc(botTrades.id))
      .limit(limit)
      .offset(offset);
  }

  /**
   * The page's panels in SQL, with the USD prices passed in (`prices`: one row per market of the user):
   * per-symbol totals (USD only when every exchange's quote of the symbol has a price) and the grand
   * total from bot_trade_symbols; the PnL by UTC day and its running total (window function) from
   * bot_trade_daily; the rolling window by sell time from bot_trades through its partial index.
   */
  async aggregates(userId: string, since: Date, prices: PriceRow[]): Promise<AggregateRows> {
    const px = sql`px AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(prices)}::jsonb) AS p(exchange text, symbol text, usd numeric)
    )`;
    const tokenRows = rowsOf<{
      symbol: string | null;
      pnl: string;
      trades: number;
      usd: string | null;
      priced: string;
      g: number;
    }>(
      await this.db.execute(sql`
        WITH ${px}
        SELECT s.symbol, sum(s.pnl)::text AS pnl, sum(s.trades)::int AS trades,
          (CASE WHEN bool_and(px.usd IS NOT NULL) THEN sum(s.pnl * px.usd) END)::text AS usd,
          coalesce(sum(s.pnl * px.usd), 0)::text AS priced,
          GROUPING(s.symbol) AS g
        FROM bot_trade_symbols s
        LEFT JOIN px ON px.exchange = s.exchange AND px.symbol = s.symbol
        WHERE s.user_id = ${userId} AND s.trades > 0
        GROUP BY GROUPING SETS ((s.symbol), ())`),
    );
    const [window] = rowsOf<{ pnl: string; usd: string }>(
      await this.db.execute(sql`
        WITH ${px}
        SELECT coalesce(sum(t.pnl_net), 0)::text AS pnl, coalesce(sum(t.pnl_net * px.usd), 0)::text AS usd
        FROM bot_trades t
        LEFT JOIN px ON px.exchange = t.exchange AND px.symbol = t.symbol
        WHERE t.user_id = ${userId} AND t.deleted_at IS NULL AND NOT t.manual
          AND t.sell_time >= ${since.toISOString()}::timestamptz`),
    );
    // The daily table is keyed by quote: one USD price per (exchange, quote).
    const quotePrices = [
      ...new Map(
        prices.map((p) => [
          `${p.exchange}\u0000${quoteOf(p.symbol)}`,
          { exchange: p.exchange, quote: quoteOf(p.symbol), usd: p.usd },
        ]),
      ).values(),
    ];
    const daily = rowsOf<AggregateRows['daily'][number]>(
      await this.db.execute(sql`
        WITH qx AS (
          SELECT * FROM jsonb_to_recordset(${JSON.stringify(quotePrices)}::jsonb) AS p(exchange text, quote text, usd numeric)
        ),
        d AS (
          SELECT r.day, sum(r.pnl) AS pnl, coalesce(sum(r.pnl * qx.usd), 0) AS pnl_usd
          FROM bot_trade_daily r
          LEFT JOIN qx ON qx.exchange = r.exchange AND qx.quote = r.quote
          WHERE r.user_id = ${userId} AND r.trades > 0
          GROUP BY r.day
        )
        SELECT to_char(d.day, 'YYYY-MM-DD') AS day, d.pnl::text AS pnl, d.pnl_usd::text AS pnl_usd,
          (sum(d.pnl) OVER w)::text AS cumulative, (sum(d.pnl_usd) OVER w)::text AS cumulative_usd
        FROM d
        WINDOW w AS (ORDER BY d.day)
        ORDER BY d.day`),
    );
    const grand = tokenRows.find((r) => Number(r.g) === 1);
    return {
      tokens: tokenRows
        .filter((r) => Number(r.g) === 0)
        .map((r) => ({ symbol: r.symbol ?? '', pnl: r.pnl, trades: Number(r.trades), usd: r.usd })),
      total: { pnl: grand?.pnl ?? '0', usd: grand?.priced ?? '0' },
      window: { pnl: window?.pnl ?? '0', usd: window?.usd ?? '0' },
      daily,
    };
  }

  /** Hides one of the user's live rows; false when there is none with that id (unknown, deleted, another user's). */
  async softDelete(userId: string, id: number): Promise<boolean> {
    const rows = await this.db
      .update(botTrades)
      .set({ deletedAt: new Date() })
      .where(
        and(
          eq(botTrades.id, id),
          eq(botTrades.userId, userId),
          isNull(botTrades.deletedAt),
          eq(botTrades.manual, false),
        ),
      )
      .returning({ id: botTrades.id });
    return rows.length > 0;
  }

  /** Hides every live row of the user; answers how many. */
  async softDeleteAll(userId: string): Promise<number> {
    const [row] = rowsOf<{ n: number }>(
      await this.db.execute(sql`
        WITH u AS (
          UPDATE bot_trades SET deleted_at = now()
          WHERE user_id = ${userId} AND deleted_at IS NULL AND NOT manual
          RETURNING 1
        )
        SELECT count(*)::int AS n FROM u`),
    );
    return Number(row?.n ?? 0);
  }
}
