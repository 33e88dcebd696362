import { z } from 'zod';
import { userIdField } from './common';

/**
 * Grid Bot calls (`/grid-bot`, spec part 2 §2, §5, §7 and issue 14 §3). Numeric form fields arrive as
 * numbers or strings (decimal commas allowed) and are checked by the server in the spec's order with
 * its messages, so the schemas stay lenient where the spec defines the message. Answers carry `ok`
 * (the spec's field) and, on failure, `error`.
 */

/** The spec's grid messages (part 2 §5, §8) verbatim, then ours (they name the numbers at fault). */
export const GRID_MESSAGES = {
  noSession: '⚠️ Your session is not loaded. Please refresh or re-login.',
  noExchange: 'You must select an exchange.',
  noPair: 'You must select a trading pair first.',
  incomplete: 'Please complete all fields before starting the bot.',
  lowNotBelowHigh: 'Low Price must be less than High Price.',
  stepNotPositive: 'Step % must be greater than 0.',
  notConnected: 'This exchange is not connected. Please connect it in Settings.',
  /** Client alerts (spec §8): a failed answer without text, a network failure. */
  startError: 'Error starting bot.',
  startFailed: 'Failed to start bot.',
  /** Ours. */
  pairNotAvailable: '⚠️ This pair is not available on {exchange}.',
  notANumber: '{field} must be a number greater than 0.',
  tooHigh: '{field} must be at most {max}.',
  stepTooHigh: 'Step % must be at most {max}.',
  badMarketType: 'Market type must be spot, perpetual, inverse or margin.',
  badProfitCurrency: 'Profit currency must be quote or base.',
  badPosition: 'Position must be long, short or neutral.',
  positionNeedsDerivatives:
    'A {position} grid needs a derivatives market (perpetual, inverse or margin): on spot a grid can only be long.',
  noLevels:
    'No grid level fits between {low} and {high} at {step}% steps. Widen the range or use a smaller step.',
  tooManyLevels:
    'This grid has {levels} levels between {low} and {high} at {step}% steps; at most {max} are allowed. Use a larger step or a narrower range.',
  belowMinCost:
    'Amount per level must be at least {min} {quote}: the smallest order {symbol} accepts at level {price} costs {min} {quote}.',
  insufficientFunds:
    'This grid needs {need} {currency} ({detail}) but the account has {free} {currency} available. Lower the amount per level or the number of levels.',
  alreadyActive: 'A Grid Bot is already active for {symbol} on {exchange}.',
  notFound: 'Grid bot not found.',
  started: 'Grid bot started.',
  stopped: 'Grid bot stopped.',
  stopping: 'The grid bot is still stopping: its orders are being cancelled. Check again in a moment.',
  startFailedReason: 'Failed to start the grid bot: {reason}',
} as const;

/** Most levels one grid may have (each is a resting order on the exchange). */
export const GRID_MAX_LEVELS = 200;
/** Largest step between two levels, in percent. */
export const GRID_MAX_STEP_PCT = 100;
/** Spec part 2 §9: picking a pair fills high = price + 5 %, low = price − 5 %, step 0.5 %. */
export const GRID_DEFAULTS = { rangePct: 5, stepPct: 0.5 } as const;

export const GRID_POSITIONS = ['long', 'short', 'neutral'] as const;
export type GridPosition = (typeof GRID_POSITIONS)[number];
export const GRID_PROFIT_CURRENCIES = ['quote', 'base'] as const;
export type GridProfitCurrency = (typeof GRID_PROFIT_CURRENCIES)[number];
/** The spec's lowercase grid market types (part 2 §3); the server maps them to Spot, Perpetual, Inverse, Margin. */
export const GRID_MARKET_TYPES = ['spot', 'perpetual', 'inverse', 'margin'] as const;
export type GridMarketType = (typeof GRID_MARKET_TYPES)[number];

const loose = z.union([z.number(), z.string().max(64), z.null()]).optional();
const text = z.string().max(64).optional();

/** POST /api/gridbot/niveles: the levels of a range (no order is placed). */
export const gridNivelesBody = z.object({
  user_id: userIdField,
  user: userIdField,
  exchange: z.string().max(40).optional(),
  pair: z.string().max(40).optional(),
  /** The current price; absent, the server reads it. */
  price: loose,
  highPrice: loose,
  lowPrice: loose,
  stepPercentage: loose,
  /** Which market's rules round the levels (default spot). */
  marketType: text,
});
export type GridNivelesBody = z.infer<typeof gridNivelesBody>;

export interface GridNivelesResponse {
  ok: boolean;
  /** Level prices below the price (buys), high to low. */
  buyLevels: number[];
  /** Level prices above the price (sells), low to high. */
  sellLevels: number[];
  /** Every level low to high (the one nearest the price included, left empty). */
  levels: number[];
  price: number;
  error?: string;
}

/** POST /api/gridbot/start (spec §7 plus `position` and `leverage`, issue 14 §3). */
export const gridStartBody = z.object({
  user: userIdField,
  user_id: userIdField,
  exchange: z.string().max(40).optional(),
  pair: z.string().max(40).optional(),
  marketType: text,
  highPrice: loose,
  lowPrice: loose,
  amountPerLevel: loose,
  stepPercentage: loose,
  profitCurrency: text,
  position: text,
  leverage: loose,
});
export type GridStartBody = z.infer<typeof gridStartBody>;

export const gridActivosBody = z.object({ user_id: userIdField, user: userIdField });

/** POST /api/gridbot/detener: `vender` true sells everything at market ('Sell All to Market & Close'),
 *  false (default) keeps the assets ('Keep Assets & Close'); 'vender' / 'mantener' are accepted too. */
export const gridDetenerBody = z.object({
  user_id: userIdField,
  user: userIdField,
  grid_id: z.uuid({ message: 'grid_id must be a grid bot id' }),
  vender: z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'vender', 'mantener'])], {
      error: 'vender must be true or false',
    })
    .optional()
    .transform((v) => v === true || v === 'true' || v === '1' || v === 'vender'),
});

export const gridHistorialBody = gridActivosBody;
export const gridIdParams = z.object({ id: z.uuid({ message: 'not a grid bot id' }) });

/** One active grid bot (Active Bots tab: symbol, market type, PNL in quote, Stop). */
export interface GridBotView {
  id: string;
  exchange: string;
  symbol: string;
  /** The spec's lowercase value: spot, perpetual, inverse, margin. */
  market_type: GridMarketType;
  /** The exchange's symbol traded (BTC/USDT:USDT for a perpetual). */
  market_symbol: string;
  /** Realized PnL of the closed rounds, in the quote currency. */
  pnl_quote: number;
  quote: string;
  position: GridPosition;
  profit_currency: GridProfitCurrency;
  low_price: number;
  high_price: number;
  step_percentage: number;
  amount_per_level: number;
  leverage: number;
  /** Number of levels. */
  levels: number;
  open_buys: number;
  open_sells: number;
  /** Base held by the grid (negative for a short). */
  base_held: number;
  /** Completed rounds (one history row each). */
  rounds: number;
  status: 'active' | 'stopped' | 'error';
  problem: string | null;
  reason: { en: string; es: string } | null;
  started_at: string;
}

/** GET /api/gridbot/{id}: what the chart draws. */
export interface GridBotDetail extends GridBotView {
  /** Every level price, low to high. */
  level_prices: number[];
  orders: { side: 'buy' | 'sell'; price: number; amount: number }[];
  price: number | null;
  stopped_at: string | null;
  stop_reason: string | null;
}

/** One closed grid (History tab). */
export interface GridHistoryView {
  id: string;
  exchange: string;
  symbol: string;
  market_type: GridMarketType;
  position: GridPosition;
  started_at: string;
  stopped_at: string | null;
  stop_reason: string | null;
  pnl_quote: number;
  rounds: number;
}
