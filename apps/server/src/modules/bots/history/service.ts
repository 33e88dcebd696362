import {
  HISTORY_MESSAGES,
  HISTORY_USD_QUOTES,
  HISTORY_WINDOW_HOURS,
  type AllHistoryQuery,
  type AllHistoryResponse,
  type GlobalHistoryRow,
  type HistoryAggregates,
  type HistoryQuotePrice,
} from '@bytx/contract';
import type { AppContext, MarketHub } from '../../../context';
import { notFound } from '../../../lib/errors';
import type { HistoryRepository, HistoryTradeRow, PriceRow } from './repository';

/** A price the hub has not answered within this long counts as missing ('USD n/d'), not as an error. */
const PRICE_TIMEOUT_MS = 1_500;

const USD_QUOTES: ReadonlySet<string> = new Set(HISTORY_USD_QUOTES);

/** Base and quote of a stored symbol ('ETH/BTC' → ETH, BTC; 'BTC/USDT:USDT' → BTC, USDT). */
export function splitSymbol(symbol: string): { base: string; quote: string } {
  const [base = '', rest = ''] = symbol.split('/');
  return { base, quote: rest.split(':')[0] ?? '' };
}

interface QuotePrice {
  exchange: string;
  quote: string;
  usd: string | null;
}

const num = (v: string | null | undefined) => (v === null || v === undefined ? 0 : Number(v));

function rowView(r: HistoryTradeRow): GlobalHistoryRow {
  return {
    id: r.id,
    bot_id: r.botId,
    symbol: r.symbol,
    exchange: r.exchange,
    qty: Number(r.qty),
    buy_price: Number(r.buyPrice),
    sell_price: Number(r.sellPrice),
    buy_time: r.buyTime.toISOString(),
    sell_time: r.sellTime.toISOString(),
    pnl_net: Number(r.pnlNet),
  };
}

/**
 * The global history (spec part 2 §2, §7): one page of the user's sales, newest first, and on request
 * everything the page's panels show, computed in SQL. Quotes convert to USD with the server's own
 * market hub: USDT, USDC, BUSD and USD are 1; another quote Q is the last price of Q/USDT on the row's
 * exchange when the hub has it, else no price.
 */
export class HistoryService {
  constructor(
    private readonly ctx: AppContext,
    private readonly repo: HistoryRepository,
    /** The hub prices are read from (the read cache's, which notes them); default the app's. */
    private readonly market: () => MarketHub | undefined = () => ctx.services.market,
  ) {}

  async list(userId: string, q: AllHistoryQuery, now = Date.now()): Promise<AllHistoryResponse> {
    const totals = await this.repo.totals(userId);
    const pages = Math.max(1, Math.ceil(totals.total / q.per_page));
    const page = Math.min(q.page, pages);
    const [rows, aggregates] = await Promise.all([
      this.repo.page(userId, (page - 1) * q.per_page, q.per_page, totals.total),
      q.aggregates ? this.aggregates(userId, totals.markets, now) : Promise.resolve(undefined),
    ]);
    return {
      success: true,
      history: rows.map(rowView),
      page,
      pages,
      per_page: q.per_page,
      total: totals.total,
      total_pnl: Number(totals.totalPnl),
      ...(aggregates ? { aggregates } : {}),
    };
  }

  private async aggregates(
    userId: string,
    markets: { exchange: string; symbol: string }[],
    now: number,
  ): Promise<HistoryAggregates> {
    // One price per (exchange, quote), looked up side by side; each market of the user takes its quote's.
    const quotes = new Map<string, { exchange: string; quote: string }>();
    for (const m of markets) {
      const quote = splitSymbol(m.symbol).quote;
      quotes.set(`${m.exchange}\u0000${quote}`, { exchange: m.exchange, quote });
    }
    const looked = await Promise.all([...quotes.values()].map((p) => this.usdPrice(p.exchange, p.quote)));
    const usdOf = new Map(looked.map((p) => [`${p.exchange}\u0000${p.quote}`, p.usd]));
    const prices: PriceRow[] = markets.map((m) => ({
      ...m,
      usd: usdOf.get(`${m.exchange}\u0000${splitSymbol(m.symbol).quote}`) ?? null,
    }));
    const since = new Date(now - HISTORY_WINDOW_HOURS * 3_600_000);
    const a = await this.repo.aggregates(userId, since, prices);
    const tokens = a.tokens
      .map((t) => ({
        symbol: t.symbol,
        ...splitSymbol(t.symbol),
        pnl: Number(t.pnl),
        trades: t.trades,
        usd: t.usd === null ? null : Number(t.usd),
      }))
      .sort((x, y) => Math.abs(y.pnl) - Math.abs(x.pnl) || x.symbol.localeCompare(y.symbol));
    const priceViews: HistoryQuotePrice[] = looked.map((p) => ({
      exchange: p.exchange,
      quote: p.quote,
      usd: p.usd === null ? null : Number(p.usd),
    }));
    return {
      tokens,
      pnl_24h: num(a.window.pnl),
      pnl_24h_usd: num(a.window.usd),
      window_start: since.toISOString(),
      total_pnl: num(a.total.pnl),
      total_pnl_usd: num(a.total.usd),
      unpriced: [...new Set(looked.filter((p) => p.usd === null).map((p) => p.quote))].sort(),
      prices: priceViews,
      daily: a.daily.map((d) => ({
        day: d.day,
        pnl: num(d.pnl),
        pnl_usd: num(d.pnl_usd),
        cumulative: num(d.cumulative),
        cumulative_usd: num(d.cumulative_usd),
      })),
    };
  }

  /** USD per unit of `quote` on `exchange`: 1 for the USD-like quotes, else the hub's Q/USDT, else null. */
  private async usdPrice(exchange: string, quote: string): Promise<QuotePrice> {
    if (USD_QUOTES.has(quote)) return { exchange, quote, usd: '1' };
    const hub = this.market();
    if (!hub || !quote) return { exchange, quote, usd: null };
    let timer: NodeJS.Timeout | undefined;
    try {
      const ticker = await Promise.race([
        hub.ticker(exchange, `${quote}/USDT`),
        new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), PRICE_TIMEOUT_MS);
        }),
      ]);
      const last = ticker?.last;
      return {
        exchange,
        quote,
        usd: typeof last === 'number' && Number.isFinite(last) && last > 0 ? String(last) : null,
      };
    } catch {
      return { exchange, quote, usd: null }; // Not listed on that exchange, or the exchange is gone.
    } finally {
      clearTimeout(timer);
    }
  }

  async deleteOne(userId: string, id: number): Promise<{ success: true }> {
    if (!(await this.repo.softDelete(userId, id))) throw notFound(HISTORY_MESSAGES.notFound);
    return { success: true };
  }

  async deleteAll(userId: string): Promise<{ success: true; deleted: number }> {
    return { success: true, deleted: await this.repo.softDeleteAll(userId) };
  }
}
