import { z } from 'zod';
import { userIdField } from './common';

/**
 * The global history (spec part 2 §2 "Global history page", §7, §8, §9; issue 13): every closed trade
 * of every bot of the user, newest sale first, with totals, per-symbol figures in USD and a cumulative
 * PnL series computed by the server. Deleting a row hides it from every list and total (soft delete).
 */

/** The spec's texts (§2, §5, §8) and the server's own answers. */
export const HISTORY_MESSAGES = {
  title: 'Historial global — Todos tus bots',
  loadFailed: 'No se pudo cargar el historial global',
  loadError: 'Error cargando historial: ',
  deleteFailed: 'No se pudo eliminar: ',
  deleteAllFailed: 'No se pudo eliminar el historial completo: ',
  badPrice: 'Precio inválido',
  confirmDelete: '¿Eliminar este registro de historial?',
  confirmDeleteAll: 'Esto eliminará TODO tu historial. ¿Continuar?',
  empty: 'No hay registros.',
  loading: 'Cargando…',
  notFound: 'History record not found.',
} as const;

/** Rows per page of the page view (§9) and the default. */
export const HISTORY_PAGE_SIZES = [12, 24, 48, 100] as const;
export const HISTORY_PAGE_DEFAULT = 12;
/** The largest page the call serves: the spec's aggregation loop reads 600 rows a call. */
export const HISTORY_PER_PAGE_MAX = 600;
/** Symbols listed before 'Ver más (N)' (§9). */
export const HISTORY_TOKENS_SHOWN = 18;
/** The smallest bar of the token panel, percent of its width (§9). */
export const HISTORY_BAR_MIN_PCT = 4;
/** Quotes worth 1 USD for the global history's conversion (§9); any other quote Q uses Q/USDT. */
export const HISTORY_USD_QUOTES = ['USDT', 'USDC', 'BUSD', 'USD'] as const;
/** The rolling PnL window, by sell time (§9). */
export const HISTORY_WINDOW_HOURS = 24;
/** CSV export columns, in order (§9). */
export const HISTORY_CSV_COLUMNS = [
  'id',
  'bot_id',
  'symbol',
  'exchange',
  'qty',
  'buy_price',
  'sell_price',
  'buy_time',
  'sell_time',
  'pnl_net',
] as const;

/** A whole number from the query string (a JSON number or its text). */
const wholeNumber = (min: number, max: number, fallback: number) =>
  z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`)
    .default(fallback);

export const allHistoryQuery = z.object({
  user_id: userIdField,
  page: wholeNumber(1, 1_000_000, 1),
  per_page: wholeNumber(1, HISTORY_PER_PAGE_MAX, HISTORY_PAGE_DEFAULT),
  /** 1 / true: the answer also carries `aggregates` (what the page's panels and chart show). */
  aggregates: z
    .union([z.boolean(), z.enum(['1', '0', 'true', 'false'])], { error: 'must be 1, 0, true or false' })
    .optional()
    .transform((v) => v === true || v === '1' || v === 'true'),
});
export type AllHistoryQuery = z.infer<typeof allHistoryQuery>;

/** A history row's id (bot_trades.id). */
export const historyIdParams = z.object({
  id: z
    .string({ error: 'is required' })
    .regex(/^[1-9]\d{0,14}$/, 'must be a history record id (a positive whole number)')
    .transform(Number),
});
export const historyDeleteQuery = z.object({ user_id: userIdField });

/** One closed trade (one sale) of the global history; pnl_net is net of both estimated fees. */
export interface GlobalHistoryRow {
  id: number;
  bot_id: string;
  symbol: string;
  exchange: string;
  qty: number;
  buy_price: number;
  sell_price: number;
  buy_time: string;
  sell_time: string;
  pnl_net: number;
}

/** Net PnL of one symbol over all its exchanges, in its quote; `usd` null when a quote has no price. */
export interface HistoryTokenTotal {
  symbol: string;
  base: string;
  quote: string;
  pnl: number;
  trades: number;
  usd: number | null;
}

/** The price used to convert a quote on an exchange to USD (null: the market hub has no Q/USDT). */
export interface HistoryQuotePrice {
  exchange: string;
  quote: string;
  usd: number | null;
}

/** One UTC day with sales: its PnL and the running total up to and including it. */
export interface HistoryDailyPoint {
  day: string;
  pnl: number;
  pnl_usd: number;
  cumulative: number;
  cumulative_usd: number;
}

/** Everything the page's panels and chart show, computed by the server in one call. */
export interface HistoryAggregates {
  /** Every symbol, largest absolute PnL first. */
  tokens: HistoryTokenTotal[];
  /** Sum of pnl_net of the sales since `window_start` (quotes not converted) and its USD equivalent. */
  pnl_24h: number;
  pnl_24h_usd: number;
  window_start: string;
  /** Sum of pnl_net of every row (not converted) and its USD equivalent. */
  total_pnl: number;
  total_pnl_usd: number;
  /** Quotes without a USD price (their PnL is left out of every `_usd` figure). */
  unpriced: string[];
  prices: HistoryQuotePrice[];
  /** Cumulative PnL by UTC day of the sale, oldest first (the chart). */
  daily: HistoryDailyPoint[];
}

export interface AllHistoryResponse {
  success: true;
  history: GlobalHistoryRow[];
  page: number;
  pages: number;
  per_page: number;
  total: number;
  total_pnl: number;
  aggregates?: HistoryAggregates;
}

export interface HistoryDeleteResponse {
  success: true;
}

export interface HistoryDeleteAllResponse {
  success: true;
  deleted: number;
}
