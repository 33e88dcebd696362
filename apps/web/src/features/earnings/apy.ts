import { APY_TIERS, POOL_WARNING_TOKENS } from '@bytx/chain';
import { EARNINGS_LIMITS } from '@bytx/contract';

/**
 * The APY table of spec part 1 §9, the pool contract's own tiers (`@bytx/chain`): from the largest
 * pool down, each row's range of available tokens and its APY in percent.
 */
export const APY_TABLE = APY_TIERS.map((tier, i) => ({
  min: tier.minPoolTokens,
  max: i === 0 ? null : APY_TIERS[i - 1]!.minPoolTokens,
  apy: tier.apyPercent,
}));

/** The pool warning shows under 5M (spec §9). */
export const POOL_WARNING_BELOW = POOL_WARNING_TOKENS;
/** Pending rewards are auto-paid at 2 tokens; the display is capped there (spec §9). */
export const REWARD_DISPLAY_CAP = EARNINGS_LIMITS.rewardsDisplayCap;
/** The spec's wallet address length (§5). */
export const ADDRESS_LENGTH = EARNINGS_LIMITS.addressLength;

/** The index of the tier a pool size falls in. */
export const tierIndex = (poolTokens: number) => {
  const i = APY_TABLE.findIndex((r) => poolTokens >= r.min);
  return i < 0 ? APY_TABLE.length - 1 : i;
};

/** The spec's address rule: exactly 42 characters (and, as a wallet expects, 0x + 40 hex digits). */
export const isValidWalletAddress = (a: string) =>
  a.length === ADDRESS_LENGTH && /^0x[0-9a-fA-F]{40}$/.test(a);

/**
 * Rewards shown between two lookups: the last figure plus the rate since, never above the 2-token cap
 * (the contract pays them out at 2).
 */
export const liveRewards = (available: number, perSecond: number, secondsSince: number) =>
  Math.min(REWARD_DISPLAY_CAP, Math.max(0, available + Math.max(0, perSecond) * Math.max(0, secondsSince)));

const compact = (n: number) =>
  n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1_000 ? `${n / 1_000}K` : String(n);

/** '50M and above', '40M to 50M', 'under 1M'. */
export const tierRange = (row: (typeof APY_TABLE)[number]) =>
  row.max === null
    ? { kind: 'above' as const, from: compact(row.min) }
    : row.min === 0
      ? { kind: 'under' as const, to: compact(row.max) }
      : { kind: 'between' as const, from: compact(row.min), to: compact(row.max) };
