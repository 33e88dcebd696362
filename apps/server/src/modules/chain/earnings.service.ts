import { randomBytes } from 'node:crypto';
import {
  EARNINGS_LIMITS,
  EARNINGS_MESSAGES,
  WALLET_LINK,
  type EarningsHistoryResponse,
  type EarningsNonceResponse,
  type EarningsResponse,
  type PoolStateResponse,
} from '@bytx/contract';
import type { FastifyBaseLogger } from 'fastify';
import { getAddress, isAddress, verifyMessage, type Address, type Hex } from 'viem';
import { createSiweMessage } from 'viem/siwe';
import type { TableCache } from '../../db/table-cache';
import { HttpError } from '../../lib/errors';
import { tokens, type ChainReader } from './reader';
import { isUniqueViolation, type ChainRepository } from './repository';
import type { ChainRuntime } from './runtime';

const refuse = (status: number, message: string, code: string) => new HttpError(status, message, { code });

/** What `POST /api/earnings` carries to link a new address: the nonce and the wallet's signature. */
export interface WalletProof {
  nonce?: string;
  signature?: string;
}

/**
 * A wallet address as the spec checks it (exactly 42 characters) and as a chain needs it: 0x and 40
 * hex digits; a mixed-case address must carry a valid checksum (a typo in a checksummed address is
 * caught). Returns the checksummed form, else 400 'Invalid wallet address'.
 */
export function parseWalletAddress(raw: unknown): Address {
  const s = typeof raw === 'string' ? raw.trim() : '';
  // The zero address holds no keys: nobody can stake from it, and a token mint to it reverts.
  if (
    s.length !== EARNINGS_LIMITS.addressLength ||
    !/^0x[0-9a-fA-F]{40}$/.test(s) ||
    !isAddress(s) ||
    /^0x0{40}$/.test(s)
  ) {
    throw refuse(400, EARNINGS_MESSAGES.invalidAddress, 'invalid_address');
  }
  return getAddress(s);
}

/**
 * The earnings pool page's calls (spec part 1 §7): one wallet per user and one user per wallet, the
 * stats read from the pool contract through the shared cache (one read per address per 10 s).
 */
/** What GET /api/earnings/history reads of the database, kept (EarningsService `kept`). */
export interface HistoryRows {
  /** The snapshots taken at or after `since` (ms), oldest first. */
  since: number;
  snaps: { at: Date; pool: string }[];
  address: string | null;
  paid: { at: Date; amount: string }[];
}

export class EarningsService {
  constructor(
    private readonly runtime: ChainRuntime,
    private readonly reader: ChainReader,
    private readonly repo: ChainRepository,
    private readonly log: FastifyBaseLogger,
    /** PUBLIC_URL: the domain and URI of the sign-in message (never the request's Host). */
    private readonly publicUrl: string,
    /**
     * GET /api/earnings/history's rows by user and window, kept until the next write to the snapshots,
     * events or wallets (db/table-cache.ts): their three queries were nearly all of the call's cost.
     * The window's start moves with the clock: the kept snapshots are cut to it on every call.
     */
    private readonly kept?: TableCache<HistoryRows>,
  ) {}

  /**
   * `POST /api/earnings/nonce`: an EIP-4361 (Sign-In with Ethereum) message naming this server, the
   * address, the chain and a fresh nonce (16 random bytes), stored for this user and address, valid
   * 10 minutes and once. The wallet's `personal_sign` of it links the address (`earnings`).
   */
  async nonce(userId: string, rawAddress: unknown): Promise<EarningsNonceResponse> {
    const address = parseWalletAddress(rawAddress);
    if (this.runtime.mode === 'off') this.runtime.require();
    const nonce = randomBytes(16).toString('hex');
    const issuedAt = new Date();
    const expiresAt = new Date(issuedAt.getTime() + WALLET_LINK.nonceTtlMs);
    const url = new URL(this.publicUrl);
    const message = createSiweMessage({
      domain: url.host,
      address,
      statement: 'Link this wallet to my BYTX account for the earnings pool.',
      uri: this.publicUrl,
      version: '1',
      chainId: this.runtime.chainId,
      nonce,
      issuedAt,
      expirationTime: expiresAt,
    });
    await this.repo.insertNonce({ nonce, userId, address, message, expiresAt }, WALLET_LINK.outstanding);
    return { success: true, address, nonce, message, expires_at: expiresAt.getTime() };
  }

  /**
   * The proof that the user holds `address`: the nonce handed out to this user for this address (taken
   * once, here) and a signature of its message that recovers to the address; else 403.
   */
  private async checkProof(userId: string, address: Address, proof: WalletProof): Promise<void> {
    if (!proof.nonce || !proof.signature) {
      throw refuse(403, EARNINGS_MESSAGES.signatureRequired, 'signature_required');
    }
    const invalid = () => refuse(403, EARNINGS_MESSAGES.signatureInvalid, 'signature_invalid');
    if (!/^0x[0-9a-fA-F]{130}$/.test(proof.signature)) throw invalid();
    const message = await this.repo.takeNonce(proof.nonce, userId, address);
    if (!message) throw invalid();
    const ok = await verifyMessage({ address, message, signature: proof.signature as Hex }).catch(
      () => false,
    );
    if (!ok) throw invalid();
  }

  async earnings(
    userId: string,
    rawAddress: unknown,
    force: boolean,
    proof: WalletProof = {},
  ): Promise<EarningsResponse> {
    const address = parseWalletAddress(rawAddress);
    // CHAIN=off: 404 with its reason.
    if (this.runtime.mode === 'off') this.runtime.require();
    const current = await this.repo.walletOf(userId);
    if (current && current !== address && !force) {
      throw refuse(409, EARNINGS_MESSAGES.differentWallet, 'wallet_different');
    }
    const holder = await this.repo.holderOf(address);
    if (holder && holder !== userId) throw refuse(409, EARNINGS_MESSAGES.walletTaken, 'wallet_taken');
    // Linking a new address needs a signature from it (issue 37): nobody squats an address they do
    // not hold. Consulting the address already linked does not.
    if (current !== address) await this.checkProof(userId, address, proof);
    let account;
    let pool;
    try {
      [account, pool] = await Promise.all([this.reader.account(address), this.reader.pool('short')]);
    } catch (err) {
      if (err instanceof HttpError && err.statusCode === 404) throw err;
      this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'earnings: chain read failed');
      throw refuse(503, EARNINGS_MESSAGES.connectError, 'chain_error');
    }
    if (current !== address) {
      try {
        await this.repo.link(userId, address);
      } catch (err) {
        if (isUniqueViolation(err)) throw refuse(409, EARNINGS_MESSAGES.walletTaken, 'wallet_taken');
        throw err;
      }
    }
    const cap = BigInt(EARNINGS_LIMITS.rewardsDisplayCap) * 10n ** 18n;
    return {
      success: true,
      balance: tokens(account.staked),
      apy: pool.apyBps / 100,
      today_profit: tokens(account.today),
      total_profit: tokens(account.totalPaid + account.pending),
      available_rewards: tokens(account.pending < cap ? account.pending : cap),
      reward_per_second: tokens(account.rewardPerSecond),
      message: EARNINGS_MESSAGES.connected,
      address,
      pending_rewards: tokens(account.pending),
      balance_wei: account.staked.toString(),
      pending_wei: account.pending.toString(),
      wallet_tokens: tokens(account.walletTokens),
      wallet_tokens_wei: account.walletTokens.toString(),
      pool_available: tokens(pool.poolAvailable),
      read_at: account.readAt,
    };
  }

  async wallet(userId: string): Promise<string | null> {
    return this.repo.walletOf(userId);
  }

  async deleteWallet(userId: string): Promise<{ success: true; message: string }> {
    const had = await this.repo.unlink(userId);
    return { success: true, message: had ? EARNINGS_MESSAGES.walletDeleted : EARNINGS_MESSAGES.noWallet };
  }

  async poolState(): Promise<PoolStateResponse> {
    let pool;
    try {
      pool = await this.reader.pool('minute');
    } catch (err) {
      if (err instanceof HttpError) throw err;
      throw refuse(503, EARNINGS_MESSAGES.connectError, 'chain_error');
    }
    return {
      success: true,
      pool_available: tokens(pool.poolAvailable),
      apy: pool.apyBps / 100,
      total_staked: tokens(pool.totalStaked),
      read_at: pool.readAt,
    };
  }

  /**
   * The chart's points: the pool's size from the snapshots taken every 10 minutes, and the user's rewards
   * paid up to each point (RewardPaid events of the linked wallet); the last point is now, with what is
   * pending added. At most 1,000 points (evenly thinned).
   */
  async history(userId: string, days: number): Promise<EarningsHistoryResponse> {
    const chain = this.runtime.require();
    const load = async (): Promise<HistoryRows> => {
      const address = await this.repo.walletOf(userId);
      const since = Date.now() - days * 86_400_000;
      const snaps = await this.repo.snapshots(chain.chainId, new Date(since));
      const paid = address ? await this.repo.rewardsPaid(chain.chainId, address) : [];
      return { since, snaps, address, paid };
    };
    const rows = this.kept ? await this.kept.get(`${userId}|${days}`, load) : await load();
    const { address, paid } = rows;
    // Rows kept from an earlier call: the snapshots that left the window since are cut off.
    const since = Date.now() - days * 86_400_000;
    let first = 0;
    if (since > rows.since)
      while (first < rows.snaps.length && rows.snaps[first]!.at.getTime() < since) first++;
    const snaps = first === 0 ? rows.snaps : rows.snaps.slice(first);
    const points: EarningsHistoryResponse['points'] = [];
    let i = 0;
    let sum = 0n;
    const step = Math.max(1, Math.ceil(snaps.length / 999));
    for (const [k, s] of snaps.entries()) {
      while (i < paid.length && paid[i]!.at.getTime() <= s.at.getTime()) sum += BigInt(paid[i++]!.amount);
      if (k % step !== 0 && k !== snaps.length - 1) continue;
      points.push({ t: s.at.getTime(), pool_available: Number(s.pool), rewards: tokens(sum) });
    }
    while (i < paid.length) sum += BigInt(paid[i++]!.amount);
    try {
      const pool = await this.reader.pool('short');
      const account = address ? await this.reader.account(address as Address) : null;
      points.push({
        t: Date.now(),
        pool_available: tokens(pool.poolAvailable),
        rewards: account ? tokens(account.totalPaid + account.pending) : tokens(sum),
      });
    } catch {
      // The chain does not answer now: the recorded points alone.
    }
    return { success: true, address, points };
  }
}
