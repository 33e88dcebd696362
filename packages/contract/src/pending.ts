import { z } from 'zod';
import { textField, userIdField } from './common';

/**
 * Pending orders (open lots) and their actions, the global pending-orders page (spec part 2 §2, §7,
 * §8, §9; issue 13). A pending order is an open lot of a bot (Grid Bot DCA lots, the classic DCA
 * bot's position); a completed one is a sale of a lot (a row of the history).
 */

/** The spec's texts (§5, §8) and the server's own refusals. */
export const PENDING_MESSAGES = {
  badAmount: 'Ingresa un monto válido (hasta 4 dígitos).',
  sold: 'Orden vendida (IOC) ✅',
  sellFailed: 'No se pudo vender',
  deleted: 'Orden eliminada de la base de datos ✅',
  alreadyDeleted: 'Orden ya no existía (limpieza) ✅',
  fundsAdded: 'Fondos añadidos correctamente ✅',
  autoFundOn: 'ON activado ✅',
  autoFundOff: 'OFF desactivado ✅',
  autoFundFailed: 'No se pudo guardar el estado ON/OFF',
  loadFailed: 'No se pudieron cargar las órdenes pendientes.',
  drawdownFailed: 'No se pudo actualizar drawdowns: {msg}',
  empty: 'Sin órdenes pendientes.',
  notFound: 'Pending order not found.',
  completed: 'This order is completed: it cannot be sold, funded or deleted.',
  busy: 'Another action on this order is still in progress; try again in a moment.',
  botNotRunning: 'The bot of this order is not running (stopped, stopping or paused).',
} as const;

/** Validation texts the spec gives word for word: a request refused for one of them answers with the
 *  text alone (no 'Invalid request: field:' prefix), as the spec's clients show it. */
export const VERBATIM_VALIDATION_MESSAGES: ReadonlySet<string> = new Set([PENDING_MESSAGES.badAmount]);

/** The assumed take profit (percent) of an order whose bot is unknown (§9). */
export const PENDING_ASSUMED_TP_PCT = 2;
/** Drawdown colours of the global page (percent, §9): yellow at −6 % or worse, red at −10 % or worse. */
export const DRAWDOWN_WARN_PCT = -6;
export const DRAWDOWN_ALERT_PCT = -10;
/** Global pending table sizes (§9) and the per-call fetch size. */
export const PENDING_PAGE_SIZES = [10, 20, 30, 50] as const;
export const PENDING_PAGE_DEFAULT = 20;
export const PENDING_FETCH_SIZE = 200;
/** The global page's splash lasts at most this long (ms); it ends early once the data has loaded. */
export const PENDING_SPLASH_MS = 10_000;
/** Completed orders listed with the open ones: sales of the last 7 days, at most 1,000 (the rest is in
 *  the global history). */
export const PENDING_COMPLETED_DAYS = 7;
export const PENDING_COMPLETED_MAX = 1000;

/** Dust auto-close (§9): every 20 min, open lots older than 1 min worth under 7 USD, at most 10 a run. */
export const DUST = {
  everyMs: 20 * 60_000,
  minAgeMs: 60_000,
  maxUsd: 7,
  maxPerRun: 10,
  stablecoins: ['USD', 'USDT', 'USDC', 'BUSD', 'TUSD', 'USDD', 'FDUSD'],
} as const;

/** A pending order's id: a lot id (`b…-12`, `b…-c3`) or a sale's key (`b…-12#b…-15`). */
export const pendingIdField = textField()
  .trim()
  .min(1, 'is required')
  .max(120, 'is too long')
  // `*`, not `+`: an empty id is told 'is required' once, not twice.
  .regex(/^[A-Za-z0-9_#:.-]*$/, 'is not a pending order id');

/** add funds: digits only, at most 4, above 0 (§5). */
export const amountQuoteField = z
  .union([z.number(), z.string()], { error: PENDING_MESSAGES.badAmount })
  .transform((v, ctx) => {
    const text = typeof v === 'number' ? (Number.isInteger(v) ? String(v) : 'x') : v.trim();
    if (!/^\d{1,4}$/.test(text) || Number(text) <= 0) {
      ctx.addIssue({ code: 'custom', message: PENDING_MESSAGES.badAmount });
      return z.NEVER;
    }
    return Number(text);
  });

const flag = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'on', 'off'])], {
    error: 'must be true or false',
  })
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'on');

export const pendingAddFundsBody = z.object({
  user_id: userIdField,
  id: pendingIdField,
  amount_quote: amountQuoteField,
});
export const pendingSellBody = z.object({ user_id: userIdField, id: pendingIdField });
export const pendingDeleteParams = z.object({ id: pendingIdField });
export const pendingUserQuery = z.object({ user_id: userIdField });
export const drawdownsRefreshBody = z.object({
  user_id: userIdField,
  ids: z.array(pendingIdField, { error: 'must be a list of pending order ids' }).max(5000, 'at most 5000'),
});
export const autoFundToggleBody = z.object({ user_id: userIdField, id: pendingIdField, enabled: flag });

/** One pending order. Prices in quote; amount_quote is what the lot cost (fees excluded). */
export interface PendingOrderView {
  id: string;
  bot_id: string;
  /** The bot's kind id ('grid-dca' Grid Bot DCA, 'classic-dca'; contract kinds.ts). */
  kind: string;
  created_at: string;
  exchange: string;
  symbol: string;
  entry_price: number;
  /** The take-profit limit (open) or the price it sold at (completed). */
  limit_price: number;
  amount_quote: number;
  amount_base: number;
  qty: number;
  quote: string;
  status: 'open' | 'completed';
  /** The bot's take profit in percent (null: unknown bot, the page assumes PENDING_ASSUMED_TP_PCT). */
  tp_pct: number | null;
  /** Open: (price − entry) × qty at the current price, fees excluded; completed: its net PnL. Quote. */
  result: number | null;
  /** Open: (price − entry) ÷ entry in percent at the current price; completed: null. */
  drawdown_pct: number | null;
  auto_fund: boolean;
  auto_fund_steps: number;
  /** An action in flight on it (a buy being merged, a sale, a delete waiting for its TP cancel). */
  busy: 'adding' | 'selling' | 'deleting' | null;
  /** Completed: when it sold and at what price. */
  closed_at: string | null;
  sell_price: number | null;
}

export interface DrawdownRecord {
  /** Percent (−12.5 = 12.5 % below entry); null while the pair has no price yet. */
  pct: number | null;
  enabled: boolean;
}
