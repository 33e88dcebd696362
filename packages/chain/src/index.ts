/**
 * @bytx/chain — the platform token's contracts as seen from TypeScript: ABIs and constants.
 * Browser-safe (no node imports); the server-only parts are in `@bytx/chain/node` and `src/bytecode.ts`.
 */
import type { Address } from 'viem';

export { bytxTokenAbi, testStablecoinAbi, tokenSaleAbi, earningsPoolAbi, planPaymentsAbi } from './abi';

/** The platform token's decimals (BYTX). */
export const TOKEN_DECIMALS = 18;
/** USDT and USDC decimals (the test stablecoins copy them). */
export const STABLE_DECIMALS = 6;
/** Sale price at deployment: stablecoin base units per whole token (0.002 USDT). */
export const SALE_PRICE = 2000n;
/** Pending rewards are paid automatically once they reach 2 whole tokens (token base units). */
export const AUTO_PAY_THRESHOLD = 2n * 10n ** 18n;
/** Whole tokens: the cap, all minted at deployment. */
export const TOKEN_MAX_SUPPLY = 100_000_000;

/** Plan numbers as `PlanPayments.payPlan` takes them. */
export const PLAN_IDS = { basic: 1, advanced: 2, professional: 3 } as const;
export type PlanName = keyof typeof PLAN_IDS;
export type PlanId = (typeof PLAN_IDS)[PlanName];
/** Plan prices in USD cents (the contract's `planUsdCents`). */
export const PLAN_USD_CENTS: Readonly<Record<PlanName, number>> = {
  basic: 500,
  advanced: 1500,
  professional: 3000,
};

/**
 * Token base units a plan costs at `price` (stablecoin base units per whole token), as
 * `PlanPayments.priceInTokens` computes it: cents * 1e4 (stablecoin base units) * 1e18 / price.
 */
export function planPriceInTokens(usdCents: number, price: bigint = SALE_PRICE): bigint {
  return (BigInt(usdCents) * 10_000n * 10n ** 18n) / price;
}

/** Token base units bought by `amount` stablecoin base units (the sale's `tokensFor`). */
export function tokensForStable(amount: bigint, price: bigint = SALE_PRICE): bigint {
  return (amount * 10n ** 18n) / price;
}

/**
 * APY by rewards-pool size, highest first: `minPoolTokens` in whole tokens, `apyBps` in basis points
 * (the contract's `apyBps()`), `apyPercent` = apyBps / 100. The first tier whose minimum the pool reaches
 * applies; under 1M the APY is 0.
 */
export const APY_TIERS: readonly { minPoolTokens: number; apyBps: number; apyPercent: number }[] = [
  { minPoolTokens: 50_000_000, apyBps: 12_000, apyPercent: 120 },
  { minPoolTokens: 40_000_000, apyBps: 8_000, apyPercent: 80 },
  { minPoolTokens: 30_000_000, apyBps: 5_000, apyPercent: 50 },
  { minPoolTokens: 20_000_000, apyBps: 3_500, apyPercent: 35 },
  { minPoolTokens: 10_000_000, apyBps: 2_000, apyPercent: 20 },
  { minPoolTokens: 5_000_000, apyBps: 1_000, apyPercent: 10 },
  { minPoolTokens: 2_000_000, apyBps: 500, apyPercent: 5 },
  { minPoolTokens: 1_000_000, apyBps: 300, apyPercent: 3 },
  { minPoolTokens: 0, apyBps: 0, apyPercent: 0 },
];

/** The pool warning shows under this many whole tokens. */
export const POOL_WARNING_TOKENS = 5_000_000;

/** APY percent for a pool of `poolTokens` whole tokens (fractions allowed), same tiers as the contract. */
export function apyPercentForPool(poolTokens: number): number {
  // The contract floors the pool to whole tokens before comparing; the tiers' minimums are whole numbers,
  // so comparing the fractional value gives the same tier.
  for (const tier of APY_TIERS) if (poolTokens >= tier.minPoolTokens) return tier.apyPercent;
  return 0;
}

/**
 * APY in basis points for a reserve of `reserve` token base units, exactly as the contract's `apyBps()`
 * (which floors to whole tokens first). Prefer it to `apyPercentForPool` when the value comes from the chain.
 */
export function apyBpsForReserve(reserve: bigint): number {
  const whole = reserve / 10n ** BigInt(TOKEN_DECIMALS);
  for (const tier of APY_TIERS) if (whole >= BigInt(tier.minPoolTokens)) return tier.apyBps;
  return 0;
}

/** Addresses of a deployment. `usdt`/`usdc` are the test stablecoins on the embedded chain. */
export interface ChainAddresses {
  token: Address;
  sale: Address;
  pool: Address;
  plans: Address;
  usdt: Address;
  usdc: Address;
}
