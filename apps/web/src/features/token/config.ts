/** Token sale constants of spec part 1 §2 and §9. */
export const TOKEN_SALE = {
  symbol: 'BYTX',
  /** Fixed estimated price shown in the modal, in USDT per token. */
  estimatedPrice: 0.002,
  paymentMethods: ['USDT', 'USDC'] as const,
  /** Arbitrum One. */
  chainId: 42161,
  chainIdHex: '0xa4b1',
  /** Decentralized-exchange swap on Arbitrum (the token address is added with the sale contract). */
  swapUrl: 'https://app.uniswap.org/swap?chain=arbitrum',
  /**
   * The sale contract's owner wallet; only that connected wallet sees Withdraw USDT. Set at build
   * time with VITE_TOKEN_OWNER_ADDRESS until the sale contract is wired in.
   */
  ownerAddress: (import.meta.env.VITE_TOKEN_OWNER_ADDRESS as string | undefined) ?? null,
} as const;

export type PaymentMethod = (typeof TOKEN_SALE.paymentMethods)[number];

/** The amount rule of spec part 1 §5: numeric and above 0. */
export function isValidAmount(raw: string): boolean {
  const trimmed = raw.trim();
  if (!/^\d+(\.\d+)?$|^\.\d+$/.test(trimmed)) return false;
  const n = Number(trimmed);
  return Number.isFinite(n) && n > 0;
}

/** Tokens received for an amount of stablecoin at the fixed estimated price. */
export function estimatedTokens(amount: number): number {
  return Math.round((amount / TOKEN_SALE.estimatedPrice) * 1e6) / 1e6;
}

export const sameAddress = (a: string | null | undefined, b: string | null | undefined) =>
  !!a && !!b && a.toLowerCase() === b.toLowerCase();
