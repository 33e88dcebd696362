import { z } from 'zod';
import {
  directionSchema,
  marketTypeSchema,
  pairBody,
  stopModeSchema,
  symbolField,
  type BotProblem,
} from './bots';
import { leverageField } from './derivatives';
import { userIdField } from './common';

/**
 * Classic DCA bot calls (`/dashboard`, the spot-bot screen; spec part 2 §7). Numeric form fields are
 * accepted as numbers or strings (decimal commas allowed) and checked by the server with the spec's
 * own messages, as for the Grid Bot DCA.
 */

const exchangeField = z.string().trim().max(40);
const looseNumber = z.union([z.number(), z.string().max(40)], {
  error: (iss) => (iss.input === undefined ? 'is required' : 'must be a number'),
});
const looseBool = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'on', 'off'])], {
    error: 'must be true or false',
  })
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'on');

/** The TP VNC choices in percent (spec part 2 §9); default 0.5. */
export const TP_VNC_OPTIONS = [0.05, 0.1, 0.2, 0.5, 1, 2, 3, 5, 10, 20, 50, 100] as const;
export const TP_VNC_DEFAULT = 0.5;

/** The landing page's promises, options of this bot (on by default). */
export const CLASSIC_DCA_OPTIONS = {
  /** Simple moving average period of the trend rule, in 1-minute candles. */
  maPeriod: 70,
  /** Quote bought at market per confirmed reversal candle below the average entry. */
  smartAmount: 10,
  candleMinutes: 1,
} as const;

export const CLASSIC_DCA_MESSAGES = {
  /** Add funds answer shown for 2 s (spec §2). */
  fundsSent: 'Compra enviada',
  /** Add funds with a bad amount (spec §5). */
  badFunds: 'Cantidad inválida',
  botStarted: 'Bot started successfully',
  botStopped: 'Bot stopped successfully',
  noActiveBot: 'There is no active DCA bot for {symbol} on {exchange}.',
  alreadyActive: 'A DCA bot is already running for {symbol} on {exchange}.',
  badTpVnc: 'TP VNC must be one of 0.05, 0.1, 0.2, 0.5, 1, 2, 3, 5, 10, 20, 50, 100 (%).',
  oneField: 'Send one of sl, tp_plus, r or r_os.',
  notInPosition: 'The bot holds no position yet: funds are added to an open position only.',
} as const;

export const startBotBody = z.object({
  symbol: z.string().max(40).optional(),
  amount: looseNumber.optional(),
  tp: looseNumber.optional(),
  separacion: looseNumber.optional(),
  os: looseNumber.optional(),
  exchange: z.string().max(40).optional(),
  user_id: userIdField,
  r: looseBool.optional(),
  r_os: looseBool.optional(),
  apartado: marketTypeSchema.optional(),
  /** LONG only for this bot (a SHORT is refused with DERIVATIVES_MESSAGES.classicLongOnly). */
  direction: directionSchema.optional(),
  /** Leverage of a derivatives bot (default: the stored one, else 1). */
  leverage: leverageField.optional(),
  /** The 70-period moving-average trend rule for new cycles (default on). */
  trend_filter: looseBool.optional(),
  /** 10 USDT at market per confirmed reversal candle below the average entry (default on). */
  smart_averaging: looseBool.optional(),
  tp_vnc: looseNumber.optional(),
});
export type StartBotBody = z.infer<typeof startBotBody>;

/** The spot-bot stop has no mode in the spec's table; the dialog's choice is sent as `mode` (default: keep assets). */
export const stopBotBody = pairBody.extend({ mode: stopModeSchema.default('cancel_only') });

export const actualizarBotBody = pairBody.extend({
  sl: looseNumber.nullable().optional(),
  tp_plus: looseNumber.nullable().optional(),
  r: looseBool.optional(),
  r_os: looseBool.optional(),
});

export const updateTpVncBody = pairBody.extend({ tp_vnc: looseNumber });

export const anadirFondosBody = pairBody.extend({ amount: looseNumber.optional() });

const botRef = z.object({ symbol: symbolField, exchange: exchangeField });

export const vncsActualesBody = z.object({
  user_id: userIdField,
  bots: z.array(botRef).max(500).optional(),
});

export const dcasActualesBody = z.object({
  user_id: userIdField,
  bots: z.array(botRef).max(500).optional(),
});

/** One active classic DCA bot (spec part 2 §3 "Active bot (spot screen)" plus what the row shows). */
export interface ClassicBotView {
  id: string;
  exchange: string;
  symbol: string;
  monto: number;
  tp_pct: number;
  sep_pct: number;
  os: number;
  /** Average entry (quote spent incl. fees ÷ base held); null before the base order fills. */
  dca: number | null;
  /** Unrealized PnL of the open position at the current price + realized PnL of closed cycles. */
  pnl: number;
  /** The current price. */
  precio: number | null;
  /** Seconds in the current trade (since the cycle's first fill); 0 while waiting. */
  ttr: number;
  r: boolean;
  r_os: boolean;
  sl: number | null;
  tp_plus: number | null;
  tp_vnc: number;
  /** VNC quantity of the pair (base left by stopped cycles, resting at its own TP). */
  qty: number;
  /** Base held in the current cycle. */
  position_qty: number;
  tp_price: number | null;
  /** The next safety level's price, for the chart; null when none rests. */
  next_safety: number | null;
  safety_filled: number;
  cycles: number;
  realized_pnl: number;
  phase: 'waiting' | 'in_position' | 'stopping' | 'stopped';
  /** What the bot waits for before its next base order ('trend'), else null. */
  waiting_for: string | null;
  trend_filter: boolean;
  smart_averaging: boolean;
  status: 'active' | 'stopped' | 'error';
  problem: BotProblem | null;
  reason: { en: string; es: string } | null;
  started_at: string;
}

export interface VncView {
  exchange: string;
  symbol: string;
  qty: number;
  /** Average cost of the VNC (quote per base, fees included) and where its sell rests. */
  cost_price: number | null;
  sell_price: number | null;
  tp_vnc: number;
}
