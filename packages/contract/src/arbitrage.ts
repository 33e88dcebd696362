import { z } from 'zod';
import { userIdField } from './common';

/**
 * Arbitrage bot calls (`/arbitraje`, spec part 2 §2, §5, §7 and issue 15 §1): Binance ↔ Bybit on one spot
 * symbol (ETH/USDT on the page). Paths and field names are the spec's (Spanish). The amount arrives as a
 * number or a string (decimal comma allowed) and is checked by the server in the spec's order with its
 * messages, so the body schema stays lenient where the spec defines the message.
 */

/** The two venues of the page, in the bot's order: the bot row's exchange first. */
export const ARBITRAGE_EXCHANGES = ['binance', 'bybit'] as const;
export type ArbitrageExchange = (typeof ARBITRAGE_EXCHANGES)[number];
/** The page's fixed symbol (spec §2); the server accepts any spot symbol listed on both venues. */
export const ARBITRAGE_DEFAULT_SYMBOL = 'ETH/USDT';

/** The spec's arbitrage texts (part 2 §2, §5) verbatim, then ours (they name the numbers at fault). */
export const ARBITRAGE_MESSAGES = {
  notConnected: 'Both Binance and Bybit must be connected.',
  invalidAmount: 'Enter a valid amount in USDT.',
  /** The page's status line. */
  connected: '✅ Exchanges Connected',
  connectBoth: '❌ Connect both Binance and Bybit',
  /** Ours. */
  badSymbol: 'symbol must be a spot pair such as ETH/USDT.',
  symbolNotListed: '{symbol} is not available on {exchange}.',
  amountTooHigh: 'Enter at most {max} USDT.',
  belowMinimum:
    'Enter at least {min} USDT: a round trip trades a quarter of the amount on each exchange, and the smallest order {exchange} accepts on {symbol} costs {venueMin} USDT at {price}.',
  insufficientFunds:
    '{exchange} has {free} USDT available but the bot needs {need} USDT there (half of {amount} USDT on each exchange).',
  alreadyActive: 'An arbitrage bot is already active ({symbol}). Stop it before starting another one.',
  priceUnavailable: 'The price of {symbol} on {exchange} is not available right now. Try again in a moment.',
  started: 'Arbitrage bot started.',
  startFailed: 'Failed to start the arbitrage bot: {reason}',
  notActive: 'No arbitrage bot is active.',
  stopped: 'Arbitrage bot stopped.',
  stoppedKeepAssets: 'Arbitrage bot stopped; the assets were kept.',
  stopping: 'The arbitrage bot is still stopping: it is selling its inventory. Check again in a moment.',
  badKeepAssets: 'keep_assets must be true or false.',
} as const;

/** Most history rows one call returns (newest first). */
export const ARBITRAGE_HISTORY_LIMIT = 200;

const loose = z.union([z.number(), z.string().max(64), z.null()]).optional();

/** POST /api/start_arbitraje {user_id, monto_usdt, symbol?='ETH/USDT'} → {@link ArbitrageStartResponse}. */
export const arbitrageStartBody = z.object({
  user_id: userIdField,
  monto_usdt: loose,
  symbol: z.string().max(40).optional(),
});
export type ArbitrageStartBody = z.infer<typeof arbitrageStartBody>;

export interface ArbitrageStartResponse {
  success: boolean;
  message: string;
  /** The new bot's id (on success). */
  id?: string;
  error?: string;
}

/** POST /api/stop_arbitraje {user_id, keep_assets?}: stops the user's active arbitrage bot; it sells the
 *  bot's inventory at market unless `keep_assets` is true. */
export const arbitrageStopBody = z.object({
  user_id: userIdField,
  keep_assets: z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0'])], {
      error: ARBITRAGE_MESSAGES.badKeepAssets,
    })
    .optional()
    .transform((v) => v === true || v === 'true' || v === '1'),
});
export type ArbitrageStopBody = z.input<typeof arbitrageStopBody>;

export interface ArbitrageStopResponse {
  success: boolean;
  message: string;
  error?: string;
}

/** POST /api/historial_arbitraje {user_id}. */
export const arbitrageHistoryBody = z.object({ user_id: userIdField });
export type ArbitrageHistoryBody = z.infer<typeof arbitrageHistoryBody>;

/** One round trip (or one unwind: both exchanges equal) of the user's arbitrage bots. */
export interface ArbitrageHistoryRow {
  /** Buy venue. */
  exchange_compra: string;
  /** Sell venue (equal to `exchange_compra` for an unwound leg). */
  exchange_venta: string;
  /** Real average fill price of the buy. */
  precio_compra: number;
  /** Real average fill price of the sell. */
  precio_venta: number;
  /** Quantity in base (ETH). */
  monto: number;
  /** Fees of both legs, in USDT. */
  comision_total: number;
  /** Realized profit after fees, in USDT (negative when a leg slipped or was unwound). */
  ganancia: number;
  /** ISO time of the trip's close. */
  timestamp: string;
  /** Ours: the trade row's id and its bot. */
  id: string;
  bot_id: string;
  symbol: string;
}

export interface ArbitrageHistoryResponse {
  success: boolean;
  historial: ArbitrageHistoryRow[];
  error?: string;
}

/** POST /api/estado_bot_arbitraje {user_id}. */
export const arbitrageStatusBody = z.object({ user_id: userIdField });
export type ArbitrageStatusBody = z.infer<typeof arbitrageStatusBody>;

/** The executable spread of one direction at the trip size: edge = sellAvg / buyAvg − 1, vs both taker
 *  fees plus the safety margin (both percent). */
export interface ArbitrageSpreadView {
  /** null: the books are too thin for the trip size. */
  edge_pct: number | null;
  /** Both taker fees. */
  fees_pct: number;
  /** The safety margin on top of the fees: the bot trades when edge_pct > fees_pct + margin_pct. */
  margin_pct: number;
}

export interface ArbitrageBookTop {
  bid: number | null;
  ask: number | null;
}

export interface ArbitrageInventoryView {
  /** The bot's own base on that venue. */
  base: number;
  /** The bot's own quote (USDT) on that venue. */
  quote: number;
}

export interface ArbitrageBotView {
  id: string;
  symbol: string;
  monto_usdt: number;
  /** Realized profit after fees, all trips and unwinds, in USDT. */
  pnl: number;
  /** Completed round trips. */
  trips: number;
  /** Live spread of both directions (null before the first books). */
  spread: {
    binance_to_bybit: ArbitrageSpreadView | null;
    bybit_to_binance: ArbitrageSpreadView | null;
  } | null;
  /** Best bid / ask of each venue's book. */
  books: Record<string, ArbitrageBookTop>;
  /** Inventory per venue. */
  inventory: Record<string, ArbitrageInventoryView>;
  /** Why the bot does not trade right now (e.g. out of inventory on one side), else null. */
  waiting: string | null;
  /** After a trip whose leg failed the bot opens no trip until this time (ISO; 60 s, doubling for each
   *  further failure in a row, at most 1 h); null when not paused. */
  paused_until: string | null;
  /** 'active' | 'stopping' | 'stopped' | 'error' ... (the bot row's status). */
  status: string;
  /** The strategy's phase (e.g. preparing, trading, stopping). */
  phase: string | null;
  /** Last problem of the bot (e.g. the exchange refused an order), else null. */
  problem: string | null;
  started_at: string;
}

export interface ArbitrageStatusResponse {
  success: boolean;
  /** An arbitrage bot of the user is active. */
  activo: boolean;
  /** Both Binance and Bybit are connected (the page's status line). */
  connected: boolean;
  bot: ArbitrageBotView | null;
  error?: string;
}

/** GET /api/arbitraje/log?user_id=: the active (else latest) arbitrage bot's event log, newest first. */
export const arbitrageLogQuery = z.object({
  user_id: userIdField,
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

export interface ArbitrageLogEntry {
  id: string;
  ts: string;
  /** The event's code (e.g. arb_prepared, arb_opportunity, arb_round_trip, arb_leg_failed). */
  type: string;
  level: 'info' | 'warn' | 'error';
  data: unknown;
}

export interface ArbitrageLogResponse {
  success: boolean;
  bot_id: string | null;
  events: ArbitrageLogEntry[];
  error?: string;
}
