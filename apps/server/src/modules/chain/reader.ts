import { bytxTokenAbi, earningsPoolAbi, planPaymentsAbi, planPriceInTokens, tokenSaleAbi } from '@bytx/chain';
import { PLAN_CATALOG, PLAN_IDS } from '@bytx/contract';
import { formatUnits, type Address } from 'viem';
import { SharedCache } from './cache';
import type { ChainRuntime, ReadyChain } from './runtime';

/** Whole tokens of an 18-decimals amount, as a display number. */
export const tokens = (wei: bigint): number => Number(formatUnits(wei, 18));

export interface PoolRead {
  poolAvailable: bigint;
  totalStaked: bigint;
  apyBps: number;
  readAt: number;
}

export interface AccountRead {
  staked: bigint;
  pending: bigint;
  rewardPerSecond: bigint;
  totalPaid: bigint;
  walletTokens: bigint;
  /** Rewards earned (paid + pending) since 00:00 UTC of the chain's current day. */
  today: bigint;
  /** The chain's time of the read (s). */
  chainTime: number;
  readAt: number;
}

const DAY_S = 86_400;

/** Reads shared across requests: one read per key and interval, whatever the number of requests. */
export class ChainReader {
  /** Per address, 10 s (spec §9: the earnings page asks every 10 s). */
  readonly accounts = new SharedCache<AccountRead>(10_000);
  /** The pool for the earnings answers (10 s) and for GET /api/pool_state (one read a minute). */
  readonly pool10 = new SharedCache<PoolRead>(10_000);
  readonly pool60 = new SharedCache<PoolRead>(60_000);
  /** Earned-at-midnight per (day, address), and the day's first block (found once a day). */
  private readonly baselines = new SharedCache<bigint | null>(DAY_S * 1000, { maxEntries: 50_000 });
  private readonly dayBlocks = new SharedCache<bigint | null>(DAY_S * 1000, { maxEntries: 10 });
  private readonly slow = new SharedCache<unknown>(60_000);

  constructor(private readonly runtime: ChainRuntime) {}

  pool(maxAge: 'short' | 'minute' = 'short'): Promise<PoolRead> {
    const chain = this.runtime.require();
    const cache = maxAge === 'minute' ? this.pool60 : this.pool10;
    return cache.get(chain.addresses.pool, () => readPool(chain));
  }

  account(address: Address): Promise<AccountRead> {
    const chain = this.runtime.require();
    return this.accounts.get(address.toLowerCase(), () => this.readAccount(chain, address));
  }

  /** Token base units per plan from the contract (one read a minute); the sale price's when unreachable. */
  async planPrices(): Promise<Record<1 | 2 | 3, bigint>> {
    const fallback = () =>
      Object.fromEntries(
        PLAN_IDS.map((id) => [PLAN_CATALOG[id].plan, planPriceInTokens(PLAN_CATALOG[id].usdCents)]),
      ) as Record<1 | 2 | 3, bigint>;
    if (!this.runtime.ready) return fallback();
    const chain = this.runtime.require();
    try {
      return (await this.slow.get(`plans:${chain.addresses.plans}`, async () => {
        const [a, b, c] = await Promise.all(
          ([1, 2, 3] as const).map((plan) =>
            chain.client.readContract({
              address: chain.addresses.plans,
              abi: planPaymentsAbi,
              functionName: 'priceInTokens',
              args: [plan],
            }),
          ),
        );
        return { 1: a!, 2: b!, 3: c! };
      })) as Record<1 | 2 | 3, bigint>;
    } catch {
      return fallback();
    }
  }

  /** Forgets the cached sale owner (an OwnershipTransferred event was indexed). */
  forgetOwner(): void {
    if (this.runtime.ready) this.slow.delete(`owner:${this.runtime.require().addresses.sale}`);
  }

  /** The sale's owner (Withdraw USDT shows for it), read a minute at most. */
  async saleOwner(): Promise<Address | null> {
    if (!this.runtime.ready) return null;
    const chain = this.runtime.require();
    try {
      return (await this.slow.get(`owner:${chain.addresses.sale}`, () =>
        chain.client.readContract({
          address: chain.addresses.sale,
          abi: tokenSaleAbi,
          functionName: 'owner',
        }),
      )) as Address;
    } catch {
      return null;
    }
  }

  private async readAccount(chain: ReadyChain, address: Address): Promise<AccountRead> {
    const { client, addresses } = chain;
    const pool = addresses.pool;
    const blockTag = this.runtime.readTag;
    const [staked, pending, rewardPerSecond, totalPaid, walletTokens, block] = await Promise.all([
      client.readContract({
        address: pool,
        abi: earningsPoolAbi,
        functionName: 'stakedOf',
        args: [address],
        blockTag,
      }),
      client.readContract({
        address: pool,
        abi: earningsPoolAbi,
        functionName: 'pendingRewards',
        args: [address],
        blockTag,
      }),
      client.readContract({
        address: pool,
        abi: earningsPoolAbi,
        functionName: 'rewardPerSecond',
        args: [address],
        blockTag,
      }),
      client.readContract({
        address: pool,
        abi: earningsPoolAbi,
        functionName: 'totalPaid',
        args: [address],
        blockTag,
      }),
      client.readContract({
        address: addresses.token,
        abi: bytxTokenAbi,
        functionName: 'balanceOf',
        args: [address],
        blockTag,
      }),
      client.getBlock({ blockTag }),
    ]);
    const now = Number(block.timestamp);
    const midnight = now - (now % DAY_S);
    const earned = totalPaid + pending;
    let today: bigint;
    try {
      const baseline = await this.baselines.get(`${midnight}:${address.toLowerCase()}`, () =>
        this.earnedAtDayStart(chain, address, midnight, block.number ?? 0n),
      );
      today = baseline === null ? 0n : earned > baseline ? earned - baseline : 0n;
    } catch {
      // A node without history (not an archive node): the day's rewards at the current rate.
      const estimate = rewardPerSecond * BigInt(now - midnight);
      today = estimate < earned ? estimate : earned;
    }
    return {
      staked,
      pending,
      rewardPerSecond,
      totalPaid,
      walletTokens,
      today,
      chainTime: now,
      readAt: Date.now(),
    };
  }

  /**
   * paid + pending of `address` at 00:00 UTC: read at the last block at or before midnight and carried to
   * midnight at that block's reward rate (between two blocks nothing changes the rate, so this is exact
   * however sparse the blocks are); null when the chain has no block before midnight.
   */
  private async earnedAtDayStart(
    chain: ReadyChain,
    address: Address,
    midnight: number,
    latest: bigint,
  ): Promise<bigint | null> {
    const after = await this.dayBlocks.get(String(midnight), () =>
      firstBlockAtOrAfter(chain, midnight, latest),
    );
    const blockNumber = after === null ? latest : after - 1n;
    if (blockNumber < 0n) return null;
    const { client, addresses } = chain;
    const read = (functionName: 'totalPaid' | 'pendingRewards' | 'rewardPerSecond') =>
      client.readContract({
        address: addresses.pool,
        abi: earningsPoolAbi,
        functionName,
        args: [address],
        blockNumber,
      });
    const [paid, pending, rate, block] = await Promise.all([
      read('totalPaid'),
      read('pendingRewards'),
      read('rewardPerSecond'),
      client.getBlock({ blockNumber }),
    ]);
    const gap = BigInt(Math.max(0, midnight - Number(block.timestamp)));
    return paid + pending + rate * gap;
  }

  /** Forget every kept read (a test that moves the chain's time, a redeployment). */
  clear() {
    this.accounts.clear();
    this.pool10.clear();
    this.pool60.clear();
    this.baselines.clear();
    this.dayBlocks.clear();
    this.slow.clear();
  }
}

async function readPool(chain: ReadyChain): Promise<PoolRead> {
  const { client, addresses } = chain;
  const blockTag = chain.mode === 'embedded' ? 'pending' : 'latest';
  const read = (functionName: 'poolAvailable' | 'totalStaked' | 'apyBps') =>
    client.readContract({ address: addresses.pool, abi: earningsPoolAbi, functionName, blockTag });
  const [poolAvailable, totalStaked, apyBps] = await Promise.all([
    read('poolAvailable'),
    read('totalStaked'),
    read('apyBps'),
  ]);
  return { poolAvailable, totalStaked, apyBps: Number(apyBps), readAt: Date.now() };
}

/** The first block whose timestamp is at or after `ts` (binary search), null if none yet. */
async function firstBlockAtOrAfter(chain: ReadyChain, ts: number, latest: bigint): Promise<bigint | null> {
  const time = async (n: bigint) => Number((await chain.client.getBlock({ blockNumber: n })).timestamp);
  if ((await time(latest)) < ts) return null;
  let lo = 0n;
  let hi = latest;
  while (lo < hi) {
    const mid = (lo + hi) / 2n;
    if ((await time(mid)) >= ts) hi = mid;
    else lo = mid + 1n;
  }
  return lo;
}
