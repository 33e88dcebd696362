import { z } from 'zod';
import { userIdField } from './common';
import { kindIdOf } from './kinds';

/**
 * Backtest calls (issue 19, docs/backtest.md): a start form's exact params run over past candles by the
 * same strategy `step()` as live, in a worker thread; the result is kept 24 h.
 *
 * - `POST /api/backtest` → 202 `{success, id}`
 * - `GET /api/backtest/{id}` → {@link BacktestView} (status and progress while it runs, the result once done)
 * - `DELETE /api/backtest/{id}` → cancels a queued or running one; deletes a finished one
 * - `GET /api/backtest` → the user's recent backtests ({@link BacktestListItem}, no result arrays)
 *
 * The summary, trades, fills and equity keep the engine's field names (`runBacktest`, camelCase).
 */

/** The kinds a backtest runs, by their kind ids (contract kinds.ts). */
export const BACKTEST_KINDS = ['grid-dca', 'classic-dca', 'grid'] as const;
export type BacktestKind = (typeof BACKTEST_KINDS)[number];
/** The backtest kinds' ids before issue 39, still accepted in a request (read as the new ones). */
export const LEGACY_BACKTEST_KINDS = ['grid_dca', 'classic_dca'] as const;
export const BACKTEST_INTERVALS = ['1m', '5m', '15m', '1h', '4h', '1d'] as const;
export type BacktestInterval = (typeof BACKTEST_INTERVALS)[number];
export const BACKTEST_INTERVAL_MS: Record<BacktestInterval, number> = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '1h': 3_600_000,
  '4h': 14_400_000,
  '1d': 86_400_000,
};
export const BACKTEST_PERIODS = ['7d', '30d', '90d'] as const;
export type BacktestPeriod = (typeof BACKTEST_PERIODS)[number];
export const BACKTEST_STATUSES = ['queued', 'running', 'done', 'cancelled', 'failed'] as const;
export type BacktestStatus = (typeof BACKTEST_STATUSES)[number];

export const BACKTEST_LIMITS = {
  /** Candles one backtest may cover (inline, CSV or fetched). */
  maxCandles: 600_000,
  /** The largest CSV text accepted. */
  csvMaxBytes: 8 * 1024 * 1024,
  /** Default slippage of market orders, in percent. */
  defaultSlippagePct: 0.05,
  maxSlippagePct: 10,
  /** Points of the equity curve and of the chart's candles in a result (downsampled). */
  maxChartPoints: 2_000,
  /** How long a result is kept. */
  ttlMs: 24 * 3_600_000,
  /** Backtests a user may have running or queued at once. */
  runningPerUser: 1,
  /** Backtests kept per user (the newest; older finished ones are deleted). */
  keptPerUser: 20,
  /** The largest `params` object, as JSON. */
  paramsMaxBytes: 4096,
} as const;

/** The texts of the calls (EN; keys are stable for the web's i18n). */
export const BACKTEST_MESSAGES = {
  notFound: 'Backtest not found.',
  alreadyRunning:
    'A backtest of yours is already running. Wait for it to finish or cancel it before running another.',
  derivativesNotSupported:
    'Backtests run on spot markets only: choose the Spot market type to backtest this bot.',
  oneSource: 'Send one source of candles: from/to (or period), candles, or csv.',
  badRange: 'from must be before to, and both must be past times.',
  badTime: '{field} must be a time in ms or an ISO date.',
  tooManyCandles:
    'The period has {count} {interval} candles; at most {max} are allowed. Use a shorter period or a larger interval.',
  noCandles: 'No candles for {symbol} on {exchange} in this period.',
  tooFewCandles: 'At least 2 candles are needed to run a backtest.',
  badCandle:
    'Candle {index} is not valid: it must be [ts_ms, open, high, low, close, volume?] with prices > 0, low ≤ open, close ≤ high, and times ascending.',
  csvTooLarge: 'The CSV file is larger than 8 MB.',
  csvMalformed: 'The CSV file is malformed at line {line}: {reason}',
  csvNoColumns:
    'The CSV file needs the columns ts (or time / timestamp), open, high, low, close and optionally volume.',
  badBudget: 'budget must be a number greater than 0.',
  marketDataUnavailable: 'Past candles of {symbol} on {exchange} are not available right now: {reason}',
  interrupted: 'interrupted by a restart, run it again',
  cancelled: 'Backtest cancelled.',
  deleted: 'Backtest deleted.',
} as const;
export type BacktestMessageKey = keyof typeof BACKTEST_MESSAGES;

const timeField = z.union([z.number(), z.string().trim().max(40)]);
/**
 * One candle as sent inline: [ts_ms, open, high, low, close, volume?]. One check per candle (not one
 * schema per number): 600,000 candles are checked in a few tens of ms.
 */
export const backtestCandleSchema = z.custom<number[]>(
  (v) => Array.isArray(v) && v.length >= 5 && v.length <= 6 && v.every((x) => typeof x === 'number'),
  { message: 'each candle must be [ts_ms, open, high, low, close, volume?] (numbers)' },
);

export const backtestStartBody = z.object({
  user_id: userIdField,
  kind: z
    .enum([...BACKTEST_KINDS, ...LEGACY_BACKTEST_KINDS], {
      error: 'kind must be grid-dca, classic-dca or grid',
    })
    .transform((k): BacktestKind => kindIdOf(k)),
  /** Exactly what the kind's start form sends to its start call (its own checks and messages apply). */
  params: z
    .record(z.string().max(64), z.unknown())
    .refine((p) => JSON.stringify(p).length <= BACKTEST_LIMITS.paramsMaxBytes, {
      message: `params must be at most ${BACKTEST_LIMITS.paramsMaxBytes} bytes as JSON`,
    })
    .default({}),
  /** Default: the params' own exchange. */
  exchange: z.string().trim().max(40).optional(),
  /** Default: the params' own symbol (`pair` for the grid). */
  symbol: z.string().max(40).optional(),
  interval: z
    .enum(BACKTEST_INTERVALS, { error: 'interval must be one of 1m, 5m, 15m, 1h, 4h, 1d' })
    .default('1m'),
  /** ms or ISO; `to` defaults to now. */
  from: timeField.optional(),
  to: timeField.optional(),
  /** The last 7, 30 or 90 days (instead of from/to). */
  period: z.enum(BACKTEST_PERIODS, { error: 'period must be 7d, 30d or 90d' }).optional(),
  /** Inline candles `[[ts_ms, open, high, low, close, volume?], …]`. */
  candles: z
    .array(backtestCandleSchema)
    .max(BACKTEST_LIMITS.maxCandles, `at most ${BACKTEST_LIMITS.maxCandles} candles`)
    .optional(),
  /** CSV text: columns ts/time/timestamp, open, high, low, close, volume?; header optional. */
  csv: z.string().optional(),
  slippage_pct: z
    .number()
    .min(0, 'slippage_pct must be at least 0')
    .max(BACKTEST_LIMITS.maxSlippagePct, `slippage_pct must be at most ${BACKTEST_LIMITS.maxSlippagePct}`)
    .optional(),
  /** Quote the simulated account starts with (default: what the bot can commit; docs/backtest.md). */
  budget: z.union([z.number(), z.string().max(40)]).optional(),
});
export type BacktestStartBody = z.input<typeof backtestStartBody>;

export const backtestIdParams = z.object({ id: z.uuid({ message: 'not a backtest id' }) });
export const backtestGetQuery = z.object({ user_id: userIdField });
export const backtestListQuery = z.object({
  user_id: userIdField,
  limit: z.coerce.number().int().min(1).max(BACKTEST_LIMITS.keptPerUser).default(BACKTEST_LIMITS.keptPerUser),
});

export interface BacktestStartResponse {
  success: true;
  id: string;
}

export interface BacktestOpenPosition {
  qty: number;
  /** null without base held. */
  avgEntry: number | null;
  value: number;
}

/** The engine's summary (`runBacktest`): quote amounts in the pair's quote currency, times in ms. */
export interface BacktestSummary {
  from: number;
  to: number;
  candles: number;
  initialEquity: number;
  finalEquity: number;
  netPnl: number;
  returnPct: number;
  realizedPnl: number;
  maxDrawdownPct: number;
  maxDrawdownQuote: number;
  feesPaid: number;
  closedTrades: number;
  /** Closed cycles (classic DCA); null for kinds without cycles. */
  cycles: number | null;
  fills: number;
  capitalPeak: number;
  timeInMarketPct: number;
  openPosition: BacktestOpenPosition;
  buyAndHoldPct: number;
  buyAndHoldPnl: number;
  rejections: { insufficient_funds: number; min_cost: number };
  stopReason: string | null;
}

export interface BacktestTrade {
  buyTime: number;
  sellTime: number;
  qty: number;
  buyPrice: number;
  sellPrice: number;
  fees: number;
  pnlNet: number;
}

export interface BacktestFill {
  time: number;
  side: 'buy' | 'sell';
  price: number;
  qty: number;
  fee: number;
  role: string;
  orderType: 'limit' | 'market';
}

export interface BacktestEquityPoint {
  time: number;
  equity: number;
}

/** [ts_ms, open, high, low, close] (the chart's candles, downsampled to at most 2,000). */
export type BacktestChartCandle = [number, number, number, number, number];

export interface BacktestListItem {
  id: string;
  status: BacktestStatus;
  progress: number;
  error?: string | undefined;
  kind: BacktestKind;
  exchange: string;
  symbol: string;
  interval: string;
  from: number | null;
  to: number | null;
  /** Where the candles came from. */
  source: 'exchange' | 'inline' | 'csv';
  created_at: string;
  finished_at: string | null;
  /** Net PnL and return once done. */
  net_pnl: number | null;
  return_pct: number | null;
}

/** GET /api/backtest/{id}. */
export interface BacktestView extends Omit<BacktestListItem, 'net_pnl' | 'return_pct'> {
  success: true;
  params: Record<string, unknown>;
  slippage_pct: number;
  budget: number;
  summary?: BacktestSummary | undefined;
  trades?: BacktestTrade[] | undefined;
  fills?: BacktestFill[] | undefined;
  equity?: BacktestEquityPoint[] | undefined;
  candles?: BacktestChartCandle[] | undefined;
  assumptions?: string[] | undefined;
  /** Trades and fills beyond what the result keeps (the summary counts them all). */
  truncated?: { trades: boolean; fills: boolean } | undefined;
}

export interface BacktestListResponse {
  success: true;
  backtests: BacktestListItem[];
}

export interface BacktestDeleteResponse {
  success: true;
  status: 'cancelled' | 'deleted';
  message: string;
}
