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

/** A balance for display: at most 4 decimals, thousands separated. */
export const formatAmount = (value: string | number, decimals = 4) => {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n)) return String(value);
  return n.toLocaleString('en-US', { maximumFractionDigits: decimals });
};
