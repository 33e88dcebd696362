import { currentLocale, formatUpTo } from '../../shared/ui/numbers';

/** Token sale constants of spec part 1 §2 and §9. */
export const TOKEN_SALE = {
  symbol: 'BYTX',
  /** Fixed estimated price shown in the modal, in USDT per token (the sale contract's price). */
  estimatedPrice: 0.002,
  paymentMethods: ['USDT', 'USDC'] as const,
  /** Decentralized-exchange swap on Arbitrum. */
  swapUrl: 'https://app.uniswap.org/swap?chain=arbitrum',
} as const;

export type PaymentMethod = (typeof TOKEN_SALE.paymentMethods)[number];

/** The amount rule of spec part 1 §5: numeric and above 0, at most 6 decimals (the stablecoin's). */
export function isValidAmount(raw: string): boolean {
  const trimmed = raw.trim();
  if (!/^\d+(\.\d{1,6})?$|^\.\d{1,6}$/.test(trimmed)) return false;
  const n = Number(trimmed);
  return Number.isFinite(n) && n > 0;
}

/** Tokens received for an amount of stablecoin at the fixed estimated price. */
export function estimatedTokens(amount: number): number {
  return Math.round((amount / TOKEN_SALE.estimatedPrice) * 1e6) / 1e6;
}

/** The first 120 characters of a message, as the spec's purchase errors show it. */
export const first120 = (message: string) => message.slice(0, 120);

/** A balance for display: at most 4 decimals, thousands separated (the user's separators). */
export const formatAmount = (value: string | number, decimals = 4, locale = currentLocale()) => {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n)) return String(value);
  return formatUpTo(locale, n, decimals);
};

/** ethers' code for a provider whose network cannot be reached (the spec's 'could not detect network'). */
export const NETWORK_ERROR = 'NETWORK_ERROR';

/** What a provider says when the node or the server behind it does not answer (fetch, proxy, wallet). */
const NETWORK_TEXT =
  /could not detect network|failed to fetch|fetch failed|networkerror|network error|load failed|ECONNREFUSED|the chain did not answer|chain is not reachable|HTTP request failed|took too long to respond/i;

/**
 * True when `err` (or an error it wraps: viem's `cause` chain, a wallet's `data.originalError`) says the
 * provider's network could not be reached, rather than a refusal or a revert: spec part 1 §8's
 * provider error 'could not detect network' (code NETWORK_ERROR).
 */
export function isNetworkError(err: unknown): boolean {
  for (let e: unknown = err, i = 0; e && typeof e === 'object' && i < 8; i++) {
    const x = e as {
      code?: unknown;
      name?: unknown;
      message?: unknown;
      cause?: unknown;
      data?: { originalError?: unknown };
    };
    if (x.code === NETWORK_ERROR) return true;
    if (x.name === 'HttpRequestError' || x.name === 'TimeoutError') return true;
    if (typeof x.message === 'string' && NETWORK_TEXT.test(x.message)) return true;
    e = x.cause ?? x.data?.originalError;
  }
  return false;
}
