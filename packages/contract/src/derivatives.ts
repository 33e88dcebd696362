import { z } from 'zod';
import { MARKET_TYPES, type MarketType } from './catalog';
import { userIdField } from './common';
import { asciiTrim, LIMITS } from './input';

/**
 * Derivatives (issue 14): leverage per user, exchange and pair, and the messages of a bot started on a
 * Perpetual, Inverse or Margin market or in the SHORT direction. The spec's own texts are kept verbatim
 * (part 2 §2, §5); the others name what is wrong and what to do.
 */
export const DERIVATIVES_MESSAGES = {
  /** Spec part 2 §5. */
  leverageNoExchange: 'Please select an Exchange before setting leverage.',
  /** Spec part 2 §2: the dialog's 3 s toast. */
  leverageConfigured: 'Leverage configured to {leverage}x',
  leverageNotInteger: `Leverage must be a whole number from ${LIMITS.minLeverage} to ${LIMITS.maxLeverage}.`,
  leverageAboveMarket:
    'Leverage {leverage}x is above the maximum of {symbol} on {exchange} ({max}x). Choose {max}x or less.',
  shortOnSpot:
    'SHORT needs a derivatives market: choose Perpetual, Inverse or Margin. On Spot a bot can only sell what it bought.',
  noMarket: '{exchange} has no {type} market for {pair}. Choose another market type or pair.',
  unsupported: '{type} trading is not available on {exchange}: {reason}',
  oneBotPerMarket:
    'Another bot already trades {symbol} on {exchange} ({type}). The exchange keeps one position per market, so only one derivatives bot can run on it: stop that bot first.',
  insufficientMargin:
    'This bot needs {need} {currency} of margin ({amount} {quote} at {leverage}x) but the {wallet} wallet has {free} {currency} available. Lower the amount, raise the leverage or add funds.',
  inverseBotsNotYet:
    'Bots cannot trade Inverse (coin-margined) markets yet: an inverse contract is worth 1 USD while the bots size their orders in the base coin. Choose Perpetual or Margin for a derivatives bot.',
  classicLongOnly: 'The DCA bot of this screen trades LONG only. Use the Grid Bot DCA for a SHORT bot.',
} as const;

/** Leverage of the grid dialog and the DCA form (spec part 2 §9): a whole number from 1 to 200. */
export const leverageField = z.coerce
  .number({ message: 'leverage must be a number' })
  .int('leverage must be an integer')
  .min(LIMITS.minLeverage, `leverage must be at least ${LIMITS.minLeverage}`)
  .max(LIMITS.maxLeverage, `leverage must be at most ${LIMITS.maxLeverage}`);

/** POST /api/set_leverage (spec part 2 §7): user_id, exchange, leverage, symbol. */
export const setLeverageBody = z.object({
  user_id: userIdField,
  exchange: z.string().trim().max(40).optional(),
  symbol: z.string().max(40).transform(asciiTrim).optional(),
  leverage: leverageField,
});
export type SetLeverageBody = z.infer<typeof setLeverageBody>;

export interface SetLeverageResponse {
  success: true;
  leverage: number;
  /** 'Leverage configured to Nx'. */
  message: string;
  /** The market's maximum when the pair has a derivatives market on the exchange, else null. */
  max_leverage: number | null;
}

/** GET /api/set_leverage?exchange=&symbol=: the stored leverage (1 when none was set). */
export const getLeverageQuery = z.object({
  user_id: userIdField,
  exchange: z.string().trim().min(1, 'exchange is required').max(40),
  symbol: z.string().max(40).transform(asciiTrim).optional(),
});

export interface GetLeverageResponse {
  success: true;
  exchange: string;
  symbol: string;
  leverage: number;
  max_leverage: number | null;
}

/** The spec's grid values are lowercase (part 2 §3); the DCA screens send the capitalised ones. */
export function parseMarketType(v: unknown): MarketType | null {
  if (typeof v !== 'string') return null;
  const s = v.trim().toLowerCase();
  return MARKET_TYPES.find((t) => t.toLowerCase() === s) ?? null;
}
