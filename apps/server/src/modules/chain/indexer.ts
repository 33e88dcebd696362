import { AUTO_PAY_THRESHOLD, earningsPoolAbi, planPaymentsAbi, tokenSaleAbi } from '@bytx/chain';
import { EARNINGS_LIMITS, PLAN_CATALOG, PLAN_IDS } from '@bytx/contract';
import type { FastifyBaseLogger } from 'fastify';
import { decodeEventLog, formatUnits, getAddress, type Address, type Hash, type Log } from 'viem';
import type { ChainReader } from './reader';
import type { ChainRepository, ChainEventRow, NewChainEvent } from './repository';
import type { ChainRuntime, ReadyChain } from './runtime';

/** The contracts whose events the platform keeps. */
export const INDEXED = { sale: tokenSaleAbi, pool: earningsPoolAbi, plans: planPaymentsAbi } as const;
type Indexed = keyof typeof INDEXED;

/** The argument naming the user of each event (lowercased into `chain_events.account`). */
const ACCOUNT_ARG: Record<string, string> = {
  TokensPurchased: 'buyer',
  Staked: 'user',
  Unstaked: 'user',
  RewardPaid: 'user',
  Funded: 'from',
  PlanPaid: 'payer',
  Withdrawn: 'to',
};

/** JSON of decoded event arguments: integers as decimal strings, hex lowercased. */
export function jsonArgs(args: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!args || typeof args !== 'object') return out;
  for (const [k, v] of Object.entries(args as Record<string, unknown>)) {
    if (typeof v === 'bigint') out[k] = v.toString();
    else if (typeof v === 'string' && /^0x[0-9a-fA-F]*$/.test(v))
      out[k] = v.length === 42 ? getAddress(v) : v.toLowerCase();
    else if (Array.isArray(v)) out[k] = v.map((x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
    else out[k] = v;
  }
  return out;
}

export interface IndexerOptions {
  /** Between two reads of new blocks: 2 s embedded, 15 s on a real chain. */
  intervalMs: number;
  /** The embedded keeper's payout round (a minute); 0: no keeper. */
  keeperMs: number;
  /** The pool's snapshot for the chart (10 minutes). */
  snapshotMs: number;
  /** Blocks read by one eth_getLogs at most. */
  range?: number;
}

/**
 * Builds `chain_events` from the sale's, pool's and plan payments' logs (docs/chain.md):
 * - each round reads the blocks after the cursor, and again the last CHAIN_CONFIRMATIONS + 3 blocks (a
 *   reorg there brings new blocks whose events are stored beside the old ones);
 * - an event with CHAIN_CONFIRMATIONS blocks on it is checked against the chain's block at its height:
 *   the same hash confirms it (a PlanPaid with a known ref then activates its plan); another hash means
 *   a reorg replaced its block, and the event is deleted;
 * - a chain that went back (lower head than the cursor; the embedded node restarted from a state saved
 *   a second before a hard kill) deletes every event above its head, plan activations included; and each
 *   round checks the stored blocks of the last 64 heights (1,000 after a start) against the chain's, so a
 *   chain that went back and grew again is caught too.
 * Also the embedded keeper (pays every staker whose pending reached 2 tokens) and the pool's snapshots.
 */
export class ChainIndexer {
  /** The chain's latest block as last read. */
  head: bigint | null = null;
  private timers: NodeJS.Timeout[] = [];
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  private checkedSinceStart = false;
  private readonly blockTimes = new Map<string, Date>();
  private lastWarn = new Map<string, number>();

  constructor(
    private readonly runtime: ChainRuntime,
    private readonly repo: ChainRepository,
    private readonly reader: ChainReader,
    private readonly log: FastifyBaseLogger,
    readonly opts: IndexerOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.loop('index', this.opts.intervalMs, () => this.round().then(() => this.mineConfirmations()));
    if (this.opts.keeperMs > 0) this.loop('keeper', this.opts.keeperMs, () => this.payout());
    this.loop('snapshot', Math.min(this.opts.snapshotMs, 60_000), () => this.record(false));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
    await this.running.catch(() => undefined);
  }

  /** Runs `fn` now and every `ms` after each run ends; one job at a time for the whole indexer. */
  private loop(name: string, ms: number, fn: () => Promise<unknown>) {
    const run = async () => {
      if (this.stopped) return;
      await this.serial(fn).catch((err: unknown) => this.warn(name, err));
      if (this.stopped) return;
      const t = setTimeout(() => void run(), ms);
      t.unref();
      this.timers.push(t);
      if (this.timers.length > 16) this.timers = this.timers.slice(-8);
    };
    const t = setTimeout(() => void run(), 0);
    t.unref();
    this.timers.push(t);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.running.catch(() => undefined).then(fn);
    this.running = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  private warn(name: string, err: unknown) {
    const now = Date.now();
    if ((this.lastWarn.get(name) ?? 0) > now - 60_000) return;
    this.lastWarn.set(name, now);
    this.log.warn({ err: err instanceof Error ? err.message : String(err) }, `chain ${name} round failed`);
  }

  private contractsKey(chain: ReadyChain): string {
    const a = chain.addresses;
    return [a.sale, a.pool, a.plans].map((x) => x.toLowerCase()).join(':');
  }

  /** One indexing round now, after any round in progress (tests call it to index at once). */
  tick(): Promise<void> {
    return this.serial(() => this.round());
  }

  /** One keeper round now (see `payout`). */
  keep(): Promise<Address[]> {
    return this.serial(() => this.payout());
  }

  /** A snapshot of the pool now if the last is 10 minutes old (or `force`). */
  snapshot(force = false): Promise<boolean> {
    return this.serial(() => this.record(force));
  }

  private async round(): Promise<void> {
    if (!this.runtime.ready) return;
    const chain = this.runtime.require();
    const { client, chainId } = chain;
    const key = this.contractsKey(chain);
    const latest = await client.getBlockNumber({ cacheTime: 0 });
    this.head = latest;
    const stored = await this.repo.cursor(chainId, key);
    let cursor = stored ?? Number(await this.startBlock(chain, latest)) - 1;
    if (latest < BigInt(cursor)) {
      const n = await this.repo.deleteAbove(chainId, Number(latest));
      this.log.warn(
        { head: Number(latest), cursor, deleted: n },
        'the chain went back: events above its head deleted',
      );
      cursor = Number(latest);
      await this.repo.setCursor(chainId, key, cursor);
    }
    // Stored blocks the chain no longer has (a restart from an older state that then grew again): the
    // last 1,000 heights once after a start, the last 64 every round.
    const replaced = await this.recheck(chain, cursor - (this.checkedSinceStart ? 64 : 1_000), latest);
    this.checkedSinceStart = true;
    if (replaced !== null) cursor = Math.min(cursor, replaced - 1);
    const depth = this.runtime.config.confirmations + 3;
    let from = Math.max(0, Math.min(cursor + 1, Number(latest) - depth));
    const range = this.opts.range ?? 2_000;
    while (from <= Number(latest) && !this.stopped) {
      const to = Math.min(Number(latest), from + range - 1);
      const logs = await client.getLogs({
        address: [chain.addresses.sale, chain.addresses.pool, chain.addresses.plans],
        fromBlock: BigInt(from),
        toBlock: BigInt(to),
      });
      await this.repo.insertEvents(await this.decode(chain, logs));
      if (to > cursor) {
        await this.repo.setCursor(chainId, key, to);
        cursor = to;
      }
      from = to + 1;
    }
    await this.confirmPass(chain, latest);
  }

  /**
   * Embedded chain (automine: no block without a transaction): mines the blocks that the newest
   * unconfirmed event still waits for, then indexes again, so a plan payment activates within a round
   * as on a real chain, and no empty block is ever mined otherwise.
   */
  private async mineConfirmations(): Promise<void> {
    if (!this.runtime.ready || !this.runtime.mineOnDemand) return;
    const chain = this.runtime.require();
    if (chain.mode !== 'embedded' || this.head === null) return;
    const rows = await this.repo.unconfirmed(chain.chainId);
    if (rows.length === 0) return;
    const newest = rows[rows.length - 1]!.blockNumber;
    const missing = newest + this.runtime.config.confirmations - 1 - Number(this.head);
    if (missing <= 0) return;
    await this.runtime.test().mine({ blocks: missing });
    await this.round();
  }

  /** Where a new cursor starts: block 0 on the embedded chain; the plans contract's deployment block elsewhere. */
  private async startBlock(chain: ReadyChain, latest: bigint): Promise<bigint> {
    if (chain.mode === 'embedded') return 0n;
    try {
      const has = async (n: bigint) => {
        const code = await chain.client.getCode({ address: chain.addresses.plans, blockNumber: n });
        return code !== undefined && code !== '0x';
      };
      let lo = 0n;
      let hi = latest;
      while (lo < hi) {
        const mid = (lo + hi) / 2n;
        if (await has(mid)) hi = mid;
        else lo = mid + 1n;
      }
      return lo;
    } catch {
      // Not an archive node: the last 200,000 blocks (about 14 hours on Arbitrum One).
      return latest > 200_000n ? latest - 200_000n : 0n;
    }
  }

  /** Deletes stored events whose block the chain no longer has, above `fromBlock`; the lowest such height. */
  private async recheck(chain: ReadyChain, fromBlock: number, latest: bigint): Promise<number | null> {
    const blocks = await this.repo.blocksAbove(chain.chainId, Math.max(-1, fromBlock));
    let lowest: number | null = null;
    const canonical = new Map<number, string | null>();
    for (const b of blocks) {
      if (!canonical.has(b.number)) {
        canonical.set(
          b.number,
          BigInt(b.number) > latest
            ? null
            : ((await chain.client.getBlock({ blockNumber: BigInt(b.number) })).hash ?? null),
        );
      }
      if (canonical.get(b.number) !== b.hash) {
        const n = await this.repo.deleteBlock(chain.chainId, b.hash);
        this.log.warn(
          { block: b.number, hash: b.hash, deleted: n },
          'a stored block is no longer on the chain',
        );
        lowest = lowest === null ? b.number : Math.min(lowest, b.number);
      }
    }
    return lowest;
  }

  private async decode(chain: ReadyChain, logs: Log[]): Promise<NewChainEvent[]> {
    const byAddress = new Map<string, Indexed>(
      (Object.keys(INDEXED) as Indexed[]).map((k) => [chain.addresses[k].toLowerCase(), k]),
    );
    const rows: NewChainEvent[] = [];
    for (const log of logs) {
      if (
        log.removed ||
        !log.blockHash ||
        log.blockNumber === null ||
        log.logIndex === null ||
        !log.transactionHash
      )
        continue;
      const contract = byAddress.get(log.address.toLowerCase());
      if (!contract) continue;
      let decoded;
      try {
        decoded = decodeEventLog({ abi: INDEXED[contract], data: log.data, topics: log.topics });
      } catch {
        continue;
      }
      const name = decoded.eventName;
      if (name === 'OwnershipTransferred' && contract === 'sale') this.reader.forgetOwner();
      const args = jsonArgs(decoded.args);
      const who = ACCOUNT_ARG[name] ? args[ACCOUNT_ARG[name]] : undefined;
      rows.push({
        chainId: chain.chainId,
        blockHash: log.blockHash,
        logIndex: log.logIndex,
        blockNumber: Number(log.blockNumber),
        blockTime: await this.blockTime(chain, log.blockHash),
        txHash: log.transactionHash,
        contract,
        name,
        args,
        account: typeof who === 'string' ? who.toLowerCase() : null,
      });
    }
    return rows;
  }

  private async blockTime(chain: ReadyChain, hash: Hash): Promise<Date> {
    const known = this.blockTimes.get(hash);
    if (known) return known;
    const block = await chain.client.getBlock({ blockHash: hash });
    const at = new Date(Number(block.timestamp) * 1000);
    if (this.blockTimes.size > 2_000) this.blockTimes.clear();
    this.blockTimes.set(hash, at);
    return at;
  }

  /** Confirms (or, after a reorg, deletes) the events with enough blocks on them; activates plans. */
  private async confirmPass(chain: ReadyChain, latest: bigint): Promise<void> {
    const maxBlock = Number(latest) - this.runtime.config.confirmations + 1;
    if (maxBlock < 0) return;
    const rows = await this.repo.unconfirmed(chain.chainId, maxBlock);
    const byBlock = new Map<string, ChainEventRow[]>();
    for (const r of rows) byBlock.set(r.blockHash, [...(byBlock.get(r.blockHash) ?? []), r]);
    const canonical = new Map<number, string | null>();
    for (const [hash, events] of byBlock) {
      const height = events[0]!.blockNumber;
      if (!canonical.has(height)) {
        const block = await chain.client.getBlock({ blockNumber: BigInt(height) }).catch(() => null);
        canonical.set(height, block?.hash ?? null);
      }
      if (canonical.get(height) !== hash) {
        const n = await this.repo.deleteBlock(chain.chainId, hash);
        this.log.warn({ block: height, hash, deleted: n }, 'reorg: events of a replaced block deleted');
        continue;
      }
      for (const e of events)
        if (e.contract === 'plans' && e.name === 'PlanPaid') await this.activate(chain, e);
      await this.repo.confirm(chain.chainId, hash);
    }
  }

  /**
   * A confirmed PlanPaid with a known ref becomes a `chain_plans` row: active when it paid at least the
   * plan's price in tokens at its block's sale price (and the plan's own USD price), else kept as
   * refused with the reason (issue 37: a price moved to 1e30 made a plan cost 0 tokens).
   */
  private async activate(chain: ReadyChain, e: ChainEventRow): Promise<void> {
    const args = e.args as { ref?: unknown; plan?: unknown; tokens?: unknown; usdCents?: unknown };
    if (typeof args.ref !== 'string') return;
    const userId = await this.repo.userOfRef(args.ref);
    const plan = Number(args.plan);
    if (!userId || ![1, 2, 3].includes(plan)) return;
    const tokens = typeof args.tokens === 'string' && /^\d+$/.test(args.tokens) ? BigInt(args.tokens) : 0n;
    const usdCents = Number(args.usdCents ?? 0);
    const refused = await this.underpaid(chain, e.blockNumber, plan, tokens, usdCents);
    await this.repo.insertPlanPayment({
      chainId: e.chainId,
      blockHash: e.blockHash,
      logIndex: e.logIndex,
      userId,
      plan,
      txHash: e.txHash,
      tokens: tokens.toString(),
      usdCents,
      paidAt: e.blockTime,
      refused,
    });
    if (refused) this.log.warn({ userId, plan, tx: e.txHash, refused }, 'plan payment refused');
    else this.log.info({ userId, plan, tx: e.txHash }, 'plan payment confirmed');
  }

  /**
   * Why a payment does not pay for its plan, or null when it does: the event's USD price must be the
   * plan's, and its tokens at least `usdCents × 1e4 × 1e18 / price` (the contract's own formula) with
   * the sale's price read at the payment's block, and never 0. A node that no longer has that block's
   * state (the embedded node after a restart keeps only the latest) is read at the latest block.
   */
  async underpaid(
    chain: ReadyChain,
    blockNumber: number,
    plan: number,
    tokens: bigint,
    usdCents: number,
  ): Promise<string | null> {
    const id = PLAN_IDS.find((p) => PLAN_CATALOG[p].plan === plan);
    if (!id) return `unknown plan ${plan}`;
    const cents = PLAN_CATALOG[id].usdCents;
    if (usdCents !== cents) return `the payment names ${usdCents} US cents; the ${id} plan costs ${cents}`;
    const read = (blockNumber?: bigint) =>
      chain.client.readContract({
        address: chain.addresses.sale,
        abi: tokenSaleAbi,
        functionName: 'price',
        ...(blockNumber === undefined ? {} : { blockNumber }),
      });
    const price = await read(BigInt(blockNumber)).catch(() => read());
    if (price <= 0n) return `the sale price at block ${blockNumber} is 0`;
    const due = (BigInt(cents) * 10_000n * 10n ** 18n) / price;
    if (tokens === 0n || tokens < due) {
      return `paid ${formatUnits(tokens, 18)} tokens; the ${id} plan costs ${formatUnits(due, 18)} tokens at the sale price of block ${blockNumber}`;
    }
    return null;
  }

  /**
   * The embedded keeper: `payout` for every staker whose pending rewards reached 2 tokens (the spec's
   * "auto-paid on reaching 2 tokens"; the contract also pays at each stake, unstake and claim). Returns
   * the addresses paid.
   */
  private async payout(): Promise<Address[]> {
    if (this.runtime.mode !== 'embedded' || !this.runtime.ready) return [];
    const chain = this.runtime.requireEmbedded();
    const stakers = (await this.repo.stakers(chain.chainId)).map((a) => getAddress(a));
    const due: Address[] = [];
    for (let i = 0; i < stakers.length; i += 50) {
      const part = stakers.slice(i, i + 50);
      const pending = await Promise.all(
        part.map((user) =>
          chain.client.readContract({
            address: chain.addresses.pool,
            abi: earningsPoolAbi,
            functionName: 'pendingRewards',
            args: [user],
            // The pending block: on the automined chain the latest may be hours old.
            blockTag: 'pending',
          }),
        ),
      );
      part.forEach((user, k) => {
        if ((pending[k] ?? 0n) >= AUTO_PAY_THRESHOLD) due.push(user);
      });
    }
    if (due.length === 0) return [];
    const wallet = this.runtime.ownerWallet();
    for (let i = 0; i < due.length; i += 100) {
      const hash = await wallet.writeContract({
        address: chain.addresses.pool,
        abi: earningsPoolAbi,
        functionName: 'payout',
        args: [due.slice(i, i + 100)],
        account: wallet.account,
        chain: null,
      });
      await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 250, timeout: 30_000 });
    }
    for (const a of due) this.reader.accounts.delete(a.toLowerCase());
    this.log.info({ paid: due.length }, 'keeper: rewards paid out');
    return due;
  }

  /** Records the pool's size when the last record is 10 minutes old (the chart); keeps 90 days. */
  private async record(force: boolean): Promise<boolean> {
    if (!this.runtime.ready) return false;
    const chain = this.runtime.require();
    const last = await this.repo.lastSnapshotAt(chain.chainId);
    const now = Date.now();
    if (!force && last && now - last.getTime() < EARNINGS_LIMITS.snapshotEveryMs - 5_000) return false;
    const pool = await this.reader.pool('short');
    await this.repo.insertSnapshot(
      chain.chainId,
      new Date(now),
      formatUnits(pool.poolAvailable, 18),
      formatUnits(pool.totalStaked, 18),
    );
    await this.repo.pruneSnapshots(new Date(now - 90 * 86_400_000));
    return true;
  }
}
