import { z } from 'zod';

/**
 * The spot screen (`/spot`) and the futures screen (`/futuros`), issue 16. The spec hides the
 * trade-execution call (part 1 §7: "a callback whose path and payload are not shown"); these calls are
 * ours. One order call serves both screens: a swap symbol (`BTC/USDT:USDT`) is a futures order.
 *
 * Every order placed here runs as a `manual` order in the bot runner (journal before send, reconcile
 * after a crash, the per-order event log); its TP and SL rest as one-cancels-the-other after the entry
 * fills: the take profit as a limit order on the exchange, the stop loss watched by the platform, which
 * cancels the take profit and closes at market when the price reaches it.
 *
 * Messages: the spec's texts are kept byte for byte (part 1 §5 and §8); the rest are ours, in the same
 * style. The web translates by key (`trading.messages.<key>`) and fills `{placeholders}` with `fillMessage`.
 */
export const SPOT_MESSAGES = {
  // --- the spec's texts (part 1 §5 "Order", §8 "Order") ---------------------------------------------
  noPrice: '❌ Failed to fetch market price.',
  badLimitPrice: '❌ Price must be a valid positive number for limit orders.',
  badQuantity: '❌ Quantity must be a positive number.',
  /** X and Y: a buy in the quote with 2 decimals, a sell in the base with 6 (the spec's display decimals). */
  insufficient: '❌ Insufficient balance. Required: {required}, Available: {available}',
  badTpSl: '❌ TP/SL must be valid positive numbers.',
  executeFailed: '❌ Failed to execute order.',
  tradeError: '❌ Error executing trade. Please try again.',
  // --- one message per TP/SL side violation (the spec: "Each violation has its own message") ---------
  buyTpNotAbove: '❌ For a buy, Take Profit must be above the entry price.',
  buySlNotBelow: '❌ For a buy, Stop Loss must be below the entry price.',
  sellTpNotBelow: '❌ For a sell, Take Profit must be below the entry price.',
  sellSlNotAbove: '❌ For a sell, Stop Loss must be above the entry price.',
  // --- ours --------------------------------------------------------------------------------------------
  /** The limit-order value input's minimum (spec: 6 USDT). */
  minValue: '❌ The order value must be at least {min} {quote}.',
  /** The exchange's own minimum, after rounding to its steps. */
  belowMinCost: '❌ The smallest order {symbol} accepts on {exchange} is {min} {quote}.',
  belowMinAmount: '❌ The smallest quantity {symbol} accepts on {exchange} is {min} {base}.',
  badSide: '❌ side must be buy or sell.',
  badType: '❌ type must be limit or market.',
  badExchange: '❌ You must select an exchange.',
  notConnected: '❌ This exchange is not connected. Please connect it in Settings.',
  notListed: '❌ {symbol} is not available on {exchange}.',
  reduceOnlySpot: '❌ Reduce-only is for futures orders.',
  reduceOnlyNothing: '❌ Reduce-only: there is no {side} position on {symbol} to reduce.',
  tooManyOpen: '❌ You already have {max} open orders. Cancel one before placing another.',
  orderNotFound: '❌ Order not found.',
  notCancellable: '❌ This order is already {status}: there is nothing to cancel.',
  noPosition: '❌ There is no open position on {symbol}.',
  placed: '✅ Order placed: {side} {quantity} {base} at {price} {quote}.',
  filled: '✅ Order filled: {side} {quantity} {base} at {price} {quote}.',
  cancelled: '✅ Order cancelled.',
  exitsCancelled: '✅ Take Profit and Stop Loss cancelled; the position was kept.',
  closing: '✅ Closing the position at market.',
  favoriteAdded: '⭐ {symbol} added to favourites.',
  favoriteRemoved: '{symbol} removed from favourites.',
  badFavorite: '❌ symbol must be a pair such as BTC/USDT.',
  tooManyFavorites: '❌ You can keep at most {max} favourites.',
} as const;
export type SpotMessageKey = keyof typeof SPOT_MESSAGES;

/** Business constants of the order panel (spec part 1 §9). */
export const SPOT = {
  /** The confirmation dialog's fee (0.4 %) and net factor. */
  feeRate: 0.004,
  netFactor: 0.996,
  /** Minimum limit-order value, in the quote (USDT or USDC). */
  minValue: 6,
  quantityDecimals: 6,
  valueDecimals: 2,
  /** Order book: levels per side and refresh (ms). */
  bookDepth: 10,
  bookRefreshMs: 5_000,
  /** Order panel price refresh (ms). */
  priceRefreshMs: 300_000,
  /** The chart's TP/SL toggle counter (s). */
  tpSlCounterS: 30,
  /** Open manual orders per user (all exchanges and pairs). */
  maxOpenOrders: 100,
  maxFavorites: 100,
  /** Fills answered by GET /api/spot/orders. */
  fillsLimit: 50,
  quotes: ['USDT', 'USDC'] as const,
  defaultPair: { base: 'BTC', quote: 'USDT' },
} as const;

/**
 * Loose on purpose: the service validates each field with the spec's own message (a zod message would
 * not be the spec's text). Numbers may come as strings ("0,5" is read as 0.5).
 */
const loose = z.union([z.string().max(64), z.number(), z.boolean(), z.null()]).optional();

/** POST /api/spot/order. */
export const spotOrderBody = z.object({
  exchange: loose,
  /** 'BTC/USDT' (spot) or 'BTC/USDT:USDT' (a linear perpetual: a futures order). */
  symbol: loose,
  /** 'buy' | 'sell' (on futures: long | short; 'long' and 'short' are accepted too). */
  side: loose,
  /** 'limit' | 'market' (any case: the panel sends 'Limit' / 'Market'). */
  type: loose,
  /** Limit price (quote); ignored for market orders. */
  price: loose,
  /** Base units (contracts of one base unit on a linear perpetual). */
  quantity: loose,
  /** Take profit and stop loss prices; absent, null or '' = none. */
  tp: loose,
  sl: loose,
  /** Futures only: the order only reduces the open position. */
  reduce_only: loose,
  /** True: validate and round, place nothing; the answer's `preview` is what Confirm would send. */
  dry_run: loose,
  user_id: z.string().max(320).optional(),
});
export type SpotOrderBody = z.infer<typeof spotOrderBody>;

export const SPOT_ORDER_STATUSES = [
  'pending', // journalled, not yet answered by the exchange
  'open',
  'partially_filled',
  'filled',
  'cancelled',
  'rejected',
] as const;
export type SpotOrderStatus = (typeof SPOT_ORDER_STATUSES)[number];

/** The one-cancels-the-other exits after the entry fills. */
export const SPOT_EXIT_STATES = [
  'none', // no TP or SL was given
  'waiting_entry', // the entry has not filled yet
  'active', // TP resting on the exchange and/or SL watched
  'tp_filled',
  'sl_triggered', // SL reached: TP cancelled, market close sent
  'sl_filled',
  'cancelled', // the user cancelled them (the position is kept)
  'failed', // the exit could not be placed (see `error`)
] as const;
export type SpotExitState = (typeof SPOT_EXIT_STATES)[number];

export const spotOrderView = z.object({
  /** Our id (use it for DELETE /api/spot/orders/{id}). */
  id: z.string(),
  exchange: z.string(),
  symbol: z.string(),
  /** 'spot' or 'swap' (futures). */
  market: z.enum(['spot', 'swap']),
  side: z.enum(['buy', 'sell']),
  type: z.enum(['limit', 'market']),
  /** The limit price; null for market orders. */
  price: z.number().nullable(),
  /** Rounded to the market's amount step. */
  quantity: z.number(),
  filled: z.number(),
  /** Average fill price, null before any fill. */
  average: z.number().nullable(),
  /** Quote spent or received so far. */
  cost: z.number(),
  fee: z.number(),
  fee_currency: z.string().nullable(),
  status: z.enum(SPOT_ORDER_STATUSES),
  reduce_only: z.boolean(),
  tp: z.number().nullable(),
  sl: z.number().nullable(),
  exit_state: z.enum(SPOT_EXIT_STATES),
  /** Realized PnL of the round trip once an exit filled (quote, after both fees), else null. */
  pnl: z.number().nullable(),
  /** Why the exchange refused the entry or an exit (EN text), else null. */
  error: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type SpotOrderView = z.infer<typeof spotOrderView>;

/** What Confirm would send, rounded to the market's steps (dry_run). */
export const spotOrderPreview = z.object({
  exchange: z.string(),
  symbol: z.string(),
  side: z.enum(['buy', 'sell']),
  type: z.enum(['limit', 'market']),
  /** The limit price, or the market price read now for a market order. */
  price: z.number(),
  quantity: z.number(),
  /** price × quantity (quote). */
  value: z.number(),
  /** The spec's confirmation figures: fee = value × 0.004, net = value × 0.996. */
  fee: z.number(),
  net: z.number(),
  tp: z.number().nullable(),
  sl: z.number().nullable(),
  base: z.string(),
  quote: z.string(),
});
export type SpotOrderPreview = z.infer<typeof spotOrderPreview>;

export const spotOrderResponse = z.object({
  success: z.literal(true),
  /** The placed order (absent on dry_run). */
  order: spotOrderView.optional(),
  preview: spotOrderPreview.optional(),
  message: z.string(),
});
export type SpotOrderResponse = z.infer<typeof spotOrderResponse>;

/** GET /api/spot/orders?exchange=&symbol= (symbol optional: every pair of the exchange). */
export const spotOrdersQuery = z.object({
  exchange: z.string().trim().min(1, 'exchange is required').max(40),
  symbol: z.string().trim().max(40).optional(),
});

export const SPOT_FILL_ROLES = ['entry', 'take_profit', 'stop_loss', 'close'] as const;
export const spotFill = z.object({
  /** The exchange's client order id of the filled order. */
  id: z.string(),
  order_id: z.string(),
  symbol: z.string(),
  side: z.enum(['buy', 'sell']),
  role: z.enum(SPOT_FILL_ROLES),
  price: z.number(),
  quantity: z.number(),
  value: z.number(),
  fee: z.number(),
  fee_currency: z.string().nullable(),
  /** ISO time of the fill. */
  time: z.string(),
});
export type SpotFill = z.infer<typeof spotFill>;

export const spotOrdersResponse = z.object({
  success: z.literal(true),
  /** Orders with something still open (the entry, or its TP/SL), newest first. */
  open: z.array(spotOrderView),
  /** Recently ended orders (filled, cancelled, rejected), newest first, at most 50. */
  recent: z.array(spotOrderView),
  /** The last fills, newest first, at most 50. */
  fills: z.array(spotFill),
});
export type SpotOrdersResponse = z.infer<typeof spotOrdersResponse>;

export const spotOrderIdParams = z.object({ id: z.string().trim().min(1).max(64) });
export const spotCancelResponse = z.object({
  success: z.literal(true),
  order: spotOrderView,
  message: z.string(),
});
export type SpotCancelResponse = z.infer<typeof spotCancelResponse>;

/** GET /api/spot/market?exchange=&symbol=: what the panel needs to round and check as the server does. */
export const spotMarketQuery = z.object({
  exchange: z.string().trim().min(1, 'exchange is required').max(40),
  symbol: z.string().trim().min(1, 'symbol is required').max(40),
});
export const spotMarketResponse = z.object({
  success: z.literal(true),
  exchange: z.string(),
  symbol: z.string(),
  /** False when the exchange does not list the pair (the pair list marks it). */
  listed: z.boolean(),
  base: z.string(),
  quote: z.string(),
  market: z.enum(['spot', 'swap']),
  amount_step: z.number(),
  price_step: z.number(),
  min_amount: z.number(),
  min_cost: z.number(),
  taker: z.number(),
  maker: z.number(),
  max_leverage: z.number().nullable(),
  /** The last price, null when unknown. */
  price: z.number().nullable(),
  /** Free balances of the account the order would use: spot wallet, or the swap wallet on futures. */
  base_free: z.number(),
  quote_free: z.number(),
});
export type SpotMarketResponse = z.infer<typeof spotMarketResponse>;

/** Favourites, kept per user on the server ('BTC/USDT'). */
export const spotFavoritesResponse = z.object({
  success: z.literal(true),
  favorites: z.array(z.string()),
});
export type SpotFavoritesResponse = z.infer<typeof spotFavoritesResponse>;
export const spotFavoriteBody = z.object({
  symbol: z.string().max(40).optional(),
  favorite: z.boolean({ message: 'favorite must be true or false' }),
});

/** POST /api/futures/close {exchange, symbol}: closes the whole position at market (reduce-only). */
export const futuresCloseBody = z.object({
  exchange: z.string().trim().min(1, 'exchange is required').max(40),
  symbol: z.string().trim().min(1, 'symbol is required').max(40),
});

/** GET /api/futures/funding?exchange=&symbol=: the current rate and the next funding time. */
export const futuresFundingQuery = futuresCloseBody;
export const futuresFundingResponse = z.object({
  success: z.literal(true),
  exchange: z.string(),
  symbol: z.string(),
  /** Fraction per funding interval (0.0001 = 0.01 %); longs pay shorts when positive. */
  rate: z.number(),
  /** ms since the epoch. */
  next_funding_time: z.number(),
  mark_price: z.number().nullable(),
});
export type FuturesFundingResponse = z.infer<typeof futuresFundingResponse>;
