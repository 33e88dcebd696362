import { z } from 'zod';
import { MARKET_TYPES } from './catalog';
import { textField, userIdField } from './common';
import { asciiTrim, LIMITS } from './input';
import { kindIdOf } from './kinds';

/**
 * Grid Bot DCA calls (spec part 2 §7). Numeric form fields are accepted as numbers or strings
 * (decimal commas allowed) and checked by the server with the spec's own messages, so the schemas
 * here stay lenient where the spec defines the message.
 */

/** The spec's messages the server answers with (part 2 §5, §8). */
export const DCA_MESSAGES = {
  minPct:
    'Separation (%) and Take Profit (%) must be greater than 0.5% to ensure proper bot performance and cover exchange fees.',
  noExchange: '⚠️ Debes seleccionar un exchange antes de iniciar el bot.',
  notConnected: '⚠️ Este exchange no está conectado. Conéctalo en Settings antes de iniciar el bot.',
  noPair: 'Por favor, completa el campo de Par (ej: BTC/USDT)',
  pairNotAvailable: '⚠️ This pair is not available on {exchange}.',
  badAmount: 'El monto ingresado no es un número válido.',
  belowMinCost: 'Monto insuficiente. El mínimo para {pair} es ≈ {x} USDT ({n} unidades a precio {p})',
  leverageNoExchange: 'Please select an Exchange before setting leverage.',
  alreadyActive: 'A Grid Bot DCA is already active for {symbol} on {exchange}.',
  noActiveBot: 'No active Grid Bot DCA for {symbol} on {exchange}.',
  botStarted: 'Bot started successfully',
  botStopped: 'Bot stopped successfully',
  relocated: '✅ Reubicado. La malla se rearmó con la misma config desde el precio actual.',
  delistedStopKeepsAssets:
    'This pair is delisted by the exchange: nothing can be sold on it. Stop the bot keeping its assets (cancel only).',
  startFailed: 'Failed to start the Bot: {reason}',
  tpTooHigh: `Take Profit (%) must be at most ${LIMITS.maxTpPct}%.`,
  sepTooHigh: `Separation (%) must be at most ${LIMITS.maxSepPct}%: the ladder's levels must stay above zero.`,
  amountTooHigh: `The amount must be at most ${LIMITS.maxAmount.toLocaleString('en-US')} USDT.`,
  tooManyBots:
    'You have {max} active bots, the most one account can run. Stop a bot before starting another.',
  slAbovePrice:
    'The SL must be below the current price ({price}): it sells when the price falls to it. Leave it empty to clear it.',
  slBelowPrice:
    'The SL of a SHORT bot must be above the current price ({price}): it buys back when the price rises to it.',
  tpPlusBelowPrice:
    'TP+ must be above the current price ({price}): it sells when the price rises to it. Leave it empty to clear it.',
  tpPlusAbovePrice:
    'TP+ of a SHORT bot must be below the current price ({price}): it buys back when the price falls to it.',
} as const;

/**
 * Why an active bot cannot trade right now (the bot row's `problem`), in both languages. The bot keeps
 * its lots and resumes when the problem is gone; the user can always stop it keeping assets.
 */
export const BOT_PROBLEMS = {
  pair_delisted: {
    en: 'Pair delisted by the exchange: the bot places no orders and keeps its lots. Stop it keeping assets, or it resumes when the pair is listed again.',
    es: 'Par retirado por el exchange: el bot no coloca órdenes y conserva sus lotes. Deténlo conservando los activos, o se reanuda cuando el par vuelva a listarse.',
  },
  auth_failed: {
    en: 'The exchange refuses the API key: the bot is paused and resumes by itself when the key works again. Check the key in Settings.',
    es: 'El exchange rechaza la API key: el bot está en pausa y se reanuda solo cuando la clave vuelva a funcionar. Revisa la clave en Settings.',
  },
  key_can_withdraw: {
    en: 'The API key can now withdraw funds: the bot is paused. Create a trade-only key (withdrawals disabled) and connect it again in Settings.',
    es: 'La API key ahora puede retirar fondos: el bot está en pausa. Crea una clave solo de trading (sin retiros) y vuelve a conectarla en Settings.',
  },
  cannot_run: {
    en: 'This bot cannot run ({detail}). Stop it keeping assets.',
    es: 'Este bot no puede ejecutarse ({detail}). Deténlo conservando los activos.',
  },
} as const;
export type BotProblem = keyof typeof BOT_PROBLEMS;

export const MIN_TP_SEP_PCT = 0.5;
export const DCA_DEFAULTS = { tp: 1, amount: 20, os: 3, separacion: 1, leverage: 1 } as const;
export const DCA_PAGE = { bots: 2, pendingOrders: 6, history: 25, pageButtons: 7 } as const;

/** Fills `{name}` placeholders of a spec message. */
export function fillMessage(template: string, params: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => (k in params ? String(params[k]) : m));
}

const looseOptional = z.union([z.number(), z.string().max(64), z.null()]).optional();
const exchangeField = z.string().trim().max(40);
/** A symbol is matched exactly against the exchange's list; only ASCII whitespace is trimmed (asciiTrim). */
export const symbolField = z.string().max(40).transform(asciiTrim);
const requiredSymbol = textField('symbol')
  .max(40)
  .transform(asciiTrim)
  .pipe(z.string().min(1, 'symbol is required'));

export const marketTypeSchema = z.enum(MARKET_TYPES);
export const directionSchema = z.enum(['LONG', 'SHORT']);

export const botsActivosQuery = z.object({ user_id: userIdField });
export const userOnlyBody = z.object({ user_id: userIdField }).loose();

export const startBotDcaBody = z.object({
  symbol: z.string().max(40).optional(),
  amount: looseOptional,
  tp: looseOptional,
  separacion: looseOptional,
  os: looseOptional,
  exchange: z.string().max(40).optional(),
  user_id: userIdField,
  apartado: marketTypeSchema.optional(),
  /** Leverage of a derivatives bot (default: the stored one for the pair, else 1). */
  leverage: z.coerce
    .number({ message: 'leverage must be a number' })
    .int('leverage must be an integer')
    .min(LIMITS.minLeverage, `leverage must be at least ${LIMITS.minLeverage}`)
    .max(LIMITS.maxLeverage, `leverage must be at most ${LIMITS.maxLeverage}`)
    .optional(),
  /** LONG (default) or SHORT (derivatives market types only). */
  direction: directionSchema.optional(),
});
export type StartBotDcaBody = z.infer<typeof startBotDcaBody>;

export const pairBody = z.object({
  user_id: userIdField,
  exchange: exchangeField.min(1, 'exchange is required'),
  symbol: requiredSymbol,
});

export const stopModeSchema = z.enum(['close_market', 'cancel_only']);
export const stopBotDcaBody = pairBody.extend({ mode: stopModeSchema.default('cancel_only') });

export const actualizarBotDcaBody = pairBody.extend({ sl: looseOptional, tp_plus: looseOptional });
export const updateSlBody = pairBody.extend({ sl: looseOptional });
export const updateTpPlusBody = pairBody.extend({ tp_plus: looseOptional });

export const minCostBody = z.object({
  user_id: userIdField,
  exchange: exchangeField.min(1, 'exchange is required'),
  symbol: requiredSymbol,
});
export const minCostResponse = z.object({
  success: z.boolean(),
  min_cost: z.number(),
  min_amount: z.number(),
  price: z.number(),
  error: z.string().optional(),
});

export const raToggleBody = pairBody.extend({ enabled: z.boolean() });
export const relocateBody = pairBody;

export const pendingOrdersQuery = z.object({
  user_id: userIdField,
  exchange: exchangeField.optional(),
  symbol: symbolField.optional(),
  bot_id: z.uuid().optional(),
  page: z.coerce.number().int().min(1).max(100000).default(1),
  per_page: z.coerce.number().int().min(1).max(200).default(DCA_PAGE.pendingOrders),
  /** open (default): the open lots; completed: recent sales; all: both (the global page). */
  status: z
    .enum(['open', 'completed', 'all'], { error: 'status must be open, completed or all' })
    .default('open'),
});

export const historyQuery = z.object({
  user_id: userIdField,
  bot_id: z.uuid({ message: 'bot_id must be a bot id' }),
  page: z.coerce.number().int().min(1).max(100000).default(1),
  per_page: z.coerce.number().int().min(1).max(200).default(DCA_PAGE.history),
});

export const apartadoBody = z.object({ user_id: userIdField, apartado: marketTypeSchema });

export const pnlsActualesBody = z.object({
  user_id: userIdField,
  bots: z
    .array(z.object({ symbol: symbolField, exchange: exchangeField }))
    .max(500)
    .optional(),
});

export const botEventsParams = z.object({ id: z.uuid({ message: 'not a bot id' }) });
export const botEventsQuery = z.object({
  user_id: userIdField,
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export const okResponse = z
  .object({ success: z.boolean(), message: z.string().optional(), error: z.string().optional() })
  .loose();

export interface DcaBotView {
  id: string;
  exchange: string;
  symbol: string;
  monto: number;
  tp_pct: number;
  os: number;
  sep_pct: number;
  /** Entry price (the anchor P0). */
  precio: number;
  sl: number | null;
  tp_plus: number | null;
  ra_enabled: boolean;
  apartado: string;
  leverage: number;
  direction: 'LONG' | 'SHORT';
  /** 'error' while the bot has a problem (it is still active and holds its lots). */
  status: 'active' | 'stopped' | 'error';
  problem: BotProblem | null;
  /** The problem in both languages, for the row. */
  reason: { en: string; es: string } | null;
  pnl: number;
  open_lots: number;
  waiting_buys: number;
  range_low: number;
  range_high: number;
  started_at: string;
  stop_reason: string | null;
}

export interface DcaTradeView {
  id: number;
  buy_time: string;
  sell_time: string;
  qty: number;
  buy_price: number;
  sell_price: number;
  pnl_net: number;
}

export interface ClosedBotView {
  id: string;
  exchange: string;
  symbol: string;
  amount: number;
  tp: number;
  os: number;
  r: boolean;
  r_os: boolean;
  datetime_inicio: string;
  datetime_cierre: string | null;
  pnl: number;
}

export interface BotEventView {
  id: number;
  ts: string;
  level: 'info' | 'warn' | 'error';
  code: string;
  params: Record<string, unknown>;
}

/**
 * GET /api/historial: the bot history modal of one screen (`grid-dca`: /bot-dca, `classic-dca`:
 * /dashboard). The ids before issue 39 (`dca`, `classic_dca`) are still accepted, read as the new ones.
 */
export const historialQuery = z.object({
  kind: z
    .enum(['grid-dca', 'classic-dca', 'dca', 'classic_dca'])
    .default('grid-dca')
    .transform((k) => kindIdOf(k)),
});
