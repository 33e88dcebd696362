import { z } from 'zod';
import { WALLET_COINS } from './catalog';
import { CONNECTION_MODES, exchangeField } from './exchanges';
import { textField, userIdField } from './common';

/** Wallet calls of spec part 1 §7: balances and deposit addresses of the user's chosen connection. */

export const walletQuery = z.object({
  user_id: userIdField,
  /** Which connection to read; default: the first live one, else the first paper one. */
  exchange: exchangeField.optional(),
});

export const walletResponse = z.object({
  /** Coin -> total balance; all 26 wallet coins present (0 when none), plus any other held coin. */
  balances: z.record(z.string(), z.number()),
  /** The connection read, null when the user has none. */
  exchange: z.string().nullable(),
  mode: z.enum(CONNECTION_MODES).nullable(),
});
export type WalletResponse = z.infer<typeof walletResponse>;

export const addressQuery = z.object({
  user_id: userIdField,
  exchange: exchangeField.optional(),
});

/** Symbol -> deposit address, for the coins whose address is known. */
export const addressMapResponse = z.record(z.string(), z.string());
export type AddressMapResponse = z.infer<typeof addressMapResponse>;

export const walletCoinField = textField('symbol')
  .trim()
  .min(1, 'symbol is required')
  .max(16)
  .transform((v, ctx) => {
    const s = v.toUpperCase();
    if (!(WALLET_COINS as readonly string[]).includes(s)) {
      ctx.addIssue({ code: 'custom', message: `Unsupported coin: ${v}` });
      return z.NEVER;
    }
    return s;
  });

export const addressBody = z.object({
  symbol: walletCoinField,
  exchange: exchangeField.optional(),
  /**
   * Optional (additive): the chain to deposit on, as ccxt's unified network code (TRC20, ERC20, BSC...);
   * absent, the exchange's default (MEXC: the first network taking deposits). The answer names it.
   */
  network: textField('network')
    .trim()
    .regex(/^[A-Za-z0-9_-]{1,32}$/, 'network must be a network code such as TRC20 (letters, digits, _ or -)')
    .optional(),
  user_id: userIdField,
});

export const addressResponse = z.object({
  address: z.string(),
  tag: z.string().nullable().optional(),
  network: z.string().nullable().optional(),
  /** True for a paper account's address: simulated, nobody holds its keys (issue 37 point 17). */
  simulated: z.boolean().optional(),
});
export type AddressResponse = z.infer<typeof addressResponse>;

/**
 * Every deposit address of a paper account starts with this prefix (docs/exchanges.md "Wallet"): the
 * address behind it is valid in its chain's format but derived from a hash, so nobody holds its keys.
 * With the prefix no wallet or exchange accepts it as a destination (a hyphen and capitals are in no
 * chain's address alphabet), so a copied paper address cannot receive real funds by mistake.
 */
export const PAPER_ADDRESS_PREFIX = 'PAPER-';

/** A paper account's address as shown and copied: prefixed once (idempotent). */
export const markPaperAddress = (address: string) =>
  address.startsWith(PAPER_ADDRESS_PREFIX) ? address : `${PAPER_ADDRESS_PREFIX}${address}`;

/** The balances a paper account is seeded with, and reset to (DESIGN.md "Venues"). */
export const PAPER_SEED_USDT = 10_000;

/** POST /api/wallet/reset: a paper account's balances back to the seed (paper only). */
export const walletResetBody = z.object({
  exchange: exchangeField,
  user_id: userIdField,
});
export const walletResetResponse = z.object({
  success: z.literal(true),
  exchange: z.string(),
  message: z.string(),
  balances: z.record(z.string(), z.number()),
});
export type WalletResetResponse = z.infer<typeof walletResetResponse>;

/** The refusals of a reset (the web shows its own text for each `code`, in both languages). */
export const WALLET_RESET_MESSAGES = {
  live: 'Only a paper account can be reset: a live account holds real funds on the exchange.',
  botsRunning:
    'Stop the {n} bot(s) and open orders running on this paper account first ({kinds}): a reset would pull the balances from under them.',
  done: 'Paper account reset: {usdt} USDT, no other coin, no position.',
} as const;

/** GET /api/wallet/derivatives: the derivatives wallet and open positions of the chosen connection. */
export const derivativesPositionView = z.object({
  symbol: z.string(),
  market_type: z.enum(['Perpetual', 'Inverse', 'Margin']),
  side: z.enum(['long', 'short']),
  /** Base units (Perpetual, Margin) or 1-USD contracts (Inverse). */
  contracts: z.number(),
  entry_price: z.number(),
  mark_price: z.number(),
  leverage: z.number(),
  /** Isolated margin posted, in `settle`. */
  margin: z.number(),
  settle: z.string(),
  liquidation_price: z.number().nullable(),
  unrealized_pnl: z.number(),
  /** Funding paid so far in `settle` (negative: received). */
  funding_paid: z.number(),
  /** Swaps: the current funding rate (fraction per 8 h) and the next funding time (ms); null on Margin. */
  funding_rate: z.number().nullable(),
  next_funding_time: z.number().nullable(),
});
export const derivativesWalletResponse = z.object({
  success: z.literal(true),
  exchange: z.string().nullable(),
  mode: z.enum(CONNECTION_MODES).nullable(),
  /** False when the venue has no derivatives (then wallet and positions are empty). */
  supported: z.boolean(),
  /** Coin -> total of the derivatives (swap) wallet. */
  wallet: z.record(z.string(), z.number()),
  positions: z.array(derivativesPositionView),
});
export type DerivativesWalletResponse = z.infer<typeof derivativesWalletResponse>;
export type DerivativesPositionView = z.infer<typeof derivativesPositionView>;
