import { z } from 'zod';

/**
 * Signal bot calls (`/signalbot`, issue 15 §2; the spec shows no screen content, so the texts are ours).
 * A signal bot trades one spot pair on one connected account on signals posted to its webhook, for
 * example by TradingView alerts: `POST /api/signalbot/webhook/{id}` with JSON
 * `{secret, action: "buy"|"sell"|"close", symbol, amount?, id?, time?}`. Every signal is logged (accepted
 * or rejected and why, with the orders it produced); an `id` seen before is answered 200 with
 * `duplicate: true` and trades nothing; a `time` more than 5 minutes from the server's clock is refused.
 * The secret is shown once (at creation and on rotation) and stored only as its SHA-256 hash.
 *
 * Every text has a stable key (the object keys below): the web page translates by key
 * (`signal.messages.<key>`, `signal.reasons.<reason>`) and fills the `{placeholders}` with `fillMessage`.
 */

/** The calls' texts (EN). Keys are stable: the web's i18n keys use them. */
export const SIGNAL_MESSAGES = {
  /** Create form. */
  noExchange: 'You must select an exchange.',
  noSymbol: 'You must select a trading pair first.',
  badSymbol: 'symbol must be a spot pair such as ETH/USDT.',
  notConnected: 'This exchange is not connected. Please connect it in Settings.',
  symbolNotListed: '{symbol} is not available on {exchange}.',
  badAmount: 'Amount per signal must be a number greater than 0.',
  badMaxPosition: 'Max position must be a number greater than 0.',
  amountTooHigh: '{field} must be at most {max}.',
  amountOverMax: 'Amount per signal ({amount}) must not exceed the max position ({max}).',
  belowMinCost:
    'Amount per signal must be at least {min} {quote}: the smallest order {symbol} accepts on {exchange} costs {min} {quote}.',
  tooManyBots: 'You already have {max} bots. Stop one before creating another.',
  alreadyActive: 'A signal bot is already active for {symbol} on {exchange}.',
  priceUnavailable: 'The price of {symbol} on {exchange} is not available right now. Try again in a moment.',
  created: 'Signal bot created. Send signals to its webhook URL.',
  createFailed: 'Failed to create the signal bot: {reason}',
  /** Bot calls. */
  notFound: 'Signal bot not found.',
  stopped: 'Signal bot stopped.',
  stoppedKeepAssets: 'Signal bot stopped; the position was kept.',
  alreadyStopped: 'This signal bot is already stopped.',
  stopping: 'The signal bot is still stopping: it is selling its position. Check again in a moment.',
  badKeepAssets: 'keep_assets must be true or false.',
  secretRotated: 'New secret generated. Update your alerts: the old secret no longer works.',
  /** The card's notice after a password change replaced the secret (issue 37 point 9). */
  secretRotatedPassword:
    "Your password was changed on {time}, so this bot's webhook secret was replaced: alerts with the old secret are rejected. Rotate the secret to get a new one and update your alerts.",
  /** Webhook answers. */
  accepted: 'Signal accepted.',
  executed: 'Signal executed.',
  skipped: 'Signal skipped: {reason}',
  duplicate: 'Signal {id} was already received; nothing was traded.',
  /** The page. */
  templateHint:
    'Paste this as the alert message in TradingView and set the webhook URL above. {{strategy.order.action}} sends buy or sell; {{timenow}} as id makes each alert unique, so a repeated alert trades once; as time, it makes the server refuse an alert more than 5 minutes old (a replay).',
  secretOnce: 'Copy this secret now: you will not see it again. Only its hash is stored.',
  secretHidden: 'Shown only once, when the bot is created or the secret is rotated.',
  rotateSecret: 'Rotate secret',
  rotateConfirm:
    'Generate a new secret? It is shown once; alerts that still use the old one will be rejected.',
  copy: 'Copy',
  copied: 'Copied',
  noSignals: 'No signal received yet.',
} as const;
export type SignalMessageKey = keyof typeof SIGNAL_MESSAGES;

/**
 * Why a signal was rejected or skipped: a stable code (`signal_events.reason`) and its EN text. The
 * rejections come from the webhook (4xx); `max_position`, `below_min_cost`, `no_position` come from the
 * strategy (the signal was recorded and fed to the bot, which traded nothing: status `skipped`).
 */
export const SIGNAL_REASONS = {
  wrong_secret: 'The secret is wrong.',
  malformed: 'The body is not valid JSON or lacks a field: {detail}',
  too_large: 'The body is larger than {max} bytes.',
  bad_action: 'Unknown action "{action}": use buy, sell or close.',
  wrong_symbol: "Symbol {symbol} is not this bot's ({expected}).",
  bad_amount: 'amount must be a number greater than 0.',
  over_max_position: 'Amount {amount} is over the max position ({max}).',
  bot_stopped: 'The bot is stopped.',
  rate_limited: 'More than {max} signals in a minute: try again in {retry} s.',
  too_many_failures:
    'More than {max} requests without the right secret from this address in a minute: try again in {retry} s.',
  bad_time:
    'time must be an ISO 8601 date with its zone (such as 2026-01-31T12:00:00Z) or epoch seconds or milliseconds.',
  stale_time:
    "The signal's time ({time}) is {age} s from the server's clock, more than {max} s: a replayed or delayed signal is refused.",
  max_position: 'The position would exceed the max position.',
  below_min_cost: 'The order would be below the minimum cost of the pair.',
  no_position: 'There is no position to sell.',
  no_price: 'The bot has no price of the pair yet: try again in a moment.',
  order_rejected: 'The exchange refused the order ({detail}).',
  outcome_unknown: 'The signal was handled but its outcome is no longer known.',
  invalid_value: 'The bot refused the signal (invalid value).',
  failed: 'The signal could not be executed: {detail}',
} as const;
export type SignalReason = keyof typeof SIGNAL_REASONS;

/**
 * Webhook limits: the body (bytes), each text field, the rate per bot (authenticated signals only), the
 * requests without the right secret per address (IPv6 per /64) and per bot and address, per minute, and
 * the time window of a signal that carries a time (seconds either side of the server's clock).
 */
export const SIGNAL_LIMITS = {
  bodyBytes: 4096,
  secretChars: 200,
  symbolChars: 40,
  idChars: 128,
  ratePerMinute: 30,
  failuresPerAddress: 60,
  failuresPerBotAddress: 20,
  timeWindowS: 300,
  /** Signals per page of the log (default and most). */
  perPage: 20,
  maxPerPage: 100,
} as const;

export const SIGNAL_ACTIONS = ['buy', 'sell', 'close'] as const;
export type SignalAction = (typeof SIGNAL_ACTIONS)[number];

export const SIGNAL_STATUSES = ['accepted', 'executed', 'skipped', 'rejected', 'duplicate'] as const;
export type SignalStatus = (typeof SIGNAL_STATUSES)[number];

/** Why a webhook secret was replaced: the owner's rotate call, or the owner's password change. */
export type SignalSecretRotation = 'user' | 'password_change';

/** Bot status on the page (the bot row's status; `error` when the runner reports a problem). */
export type SignalBotStatus = 'active' | 'stopped' | 'error';

const loose = z.union([z.number(), z.string().max(64), z.null()]).optional();

/** POST /api/signalbot/bots: amount (quote per signal) and max_position (largest position, quote). */
export const signalCreateBody = z.object({
  exchange: z.string().max(40).optional(),
  symbol: z.string().max(40).optional(),
  amount: loose,
  max_position: loose,
});
export type SignalCreateBody = z.infer<typeof signalCreateBody>;

export const signalIdParams = z.object({ id: z.uuid({ message: 'not a signal bot id' }) });

/** POST /api/signalbot/bots/{id}/stop: keep_assets true keeps the position, else it is sold at market. */
export const signalStopBody = z
  .object({
    keep_assets: z
      .union([z.boolean(), z.enum(['true', 'false', '1', '0'])], { error: SIGNAL_MESSAGES.badKeepAssets })
      .optional()
      .transform((v) => v === true || v === 'true' || v === '1'),
  })
  .optional()
  .transform((b) => b ?? { keep_assets: false });

/** GET /api/signalbot/bots/{id}/signals?page=&per_page= (page from 1). */
export const signalListQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).optional().default(1),
  per_page: z.coerce
    .number()
    .int()
    .min(1)
    .max(SIGNAL_LIMITS.maxPerPage)
    .optional()
    .default(SIGNAL_LIMITS.perPage),
});
export type SignalListQuery = z.infer<typeof signalListQuery>;

/**
 * The webhook's JSON (TradingView's alert message can send exactly this). `action` is matched without
 * case; `amount` is in the quote currency (a number or a numeric string) and defaults to the bot's
 * amount per signal; `id` (any text up to 128 chars, e.g. `{{timenow}}`) makes the signal idempotent;
 * `time` (or `timestamp`): when the signal was sent, ISO 8601 with a zone (TradingView's `{{timenow}}`)
 * or epoch seconds or milliseconds; a signal whose time is more than 5 minutes off is refused.
 * The server parses with this schema itself (not as the route's schema) so each rejection is logged.
 */
export const signalWebhookPayload = z.object({
  secret: z.string().min(1).max(SIGNAL_LIMITS.secretChars),
  action: z.string().max(40),
  symbol: z.string().min(1).max(SIGNAL_LIMITS.symbolChars),
  amount: z.union([z.number(), z.string().trim().max(64), z.null()]).optional(),
  id: z
    .union([z.string().max(SIGNAL_LIMITS.idChars), z.number()])
    .optional()
    .nullable(),
  time: z
    .union([z.string().max(64), z.number()])
    .optional()
    .nullable(),
  timestamp: z
    .union([z.string().max(64), z.number()])
    .optional()
    .nullable(),
});
export type SignalWebhookPayload = z.infer<typeof signalWebhookPayload>;

/** The TradingView alert message the page shows (secret and symbol filled in). */
export function signalTemplate(secret: string, symbol: string): string {
  return JSON.stringify({
    secret,
    action: '{{strategy.order.action}}',
    symbol,
    id: '{{timenow}}',
    time: '{{timenow}}',
  });
}

/** One signal bot (list and create). Figures in the quote currency; position from the strategy. */
export interface SignalBotView {
  id: string;
  exchange: string;
  symbol: string;
  quote: string;
  /** Quote per signal. */
  amount: number;
  /** Largest position (cost), quote. */
  max_position: number;
  status: SignalBotStatus;
  /** Problem code and text when status is error. */
  problem: string | null;
  reason: { en: string; es: string } | null;
  /** On PUBLIC_URL (never on the request's Host header). */
  webhook_url: string;
  /** When the secret was last replaced (null: never since creation) and why. */
  secret_rotated_at: string | null;
  secret_rotated_reason: SignalSecretRotation | null;
  position_qty: number;
  avg_entry: number;
  /** Last price (null when not available). */
  price: number | null;
  position_value: number;
  pnl_realized: number;
  pnl_unrealized: number;
  signals_accepted: number;
  signals_rejected: number;
  created_at: string;
  stopped_at: string | null;
}

/** One order a signal produced (from the bot's journal). */
export interface SignalOrder {
  client_order_id: string;
  side: 'buy' | 'sell';
  /** Base amount filled (or asked when not filled). */
  amount: number;
  /** Average fill price (null when not filled). */
  price: number | null;
  status: string;
}

/** One row of the signal log (newest first). */
export interface SignalRow {
  id: string;
  /** Per-bot sequence number of an accepted signal (null for rejected and duplicate rows). */
  seq: number | null;
  received_at: string;
  source_ip: string | null;
  /** The payload as received, without the secret (null when the body was not JSON). */
  payload: Record<string, unknown> | null;
  status: SignalStatus;
  /** A {@link SignalReason} code, or null. */
  reason: SignalReason | null;
  /** The reason in EN with its numbers (the page translates `reason` and may show this as detail). */
  reason_text: string | null;
  orders: SignalOrder[];
}

export interface SignalCreateResponse {
  success: true;
  message: string;
  bot: SignalBotView;
  id: string;
  webhook_url: string;
  /** The webhook secret: answered here and on rotation only, never readable afterwards. */
  secret: string;
}
export interface SignalListResponse {
  success: true;
  bots: SignalBotView[];
}
export interface SignalStopResponse {
  success: boolean;
  message: string;
}
export interface SignalSecretResponse {
  success: true;
  secret: string;
  message?: string;
}
export interface SignalLogResponse {
  success: true;
  signals: SignalRow[];
  page: number;
  per_page: number;
  pages: number;
  total: number;
}

/** Webhook answers: accepted (200), duplicate (200), rejected (4xx with `error` = reason code). */
export interface SignalWebhookResponse {
  success: boolean;
  duplicate?: boolean;
  status?: SignalStatus;
  seq?: number;
  /** A {@link SignalReason} code when rejected or skipped (`not_found` for an unknown bot). */
  error?: SignalReason | 'not_found';
  message: string;
}
