import { randomBytes } from 'node:crypto';
import { and, asc, desc, eq, gt, gte, isNotNull, isNull, lt, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  chainCursors,
  chainDeployments,
  chainEvents,
  chainFaucetClaims,
  chainOwnerKeys,
  chainPaymentRefs,
  chainPlans,
  chainSnapshots,
  chainWalletNonces,
  chainWallets,
} from '../../db/schema/index';

export type DeploymentRow = typeof chainDeployments.$inferSelect;
export type ChainEventRow = typeof chainEvents.$inferSelect;
export type NewChainEvent = typeof chainEvents.$inferInsert;
export type PlanPaymentRow = typeof chainPlans.$inferSelect;

/** A unique violation (PostgreSQL 23505), whichever driver raised it. */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err, i = 0; e && i < 5; i++) {
    if (typeof e === 'object' && 'code' in e && (e as { code?: unknown }).code === '23505') return true;
    e = typeof e === 'object' && 'cause' in e ? (e as { cause?: unknown }).cause : undefined;
  }
  return false;
}

/** The chain module's tables (migration 0800, docs/chain.md). */
export class ChainRepository {
  constructor(private readonly db: Db) {}

  // --- deployments ---------------------------------------------------------------------------

  async deployment(chainId: number): Promise<DeploymentRow | null> {
    const [r] = await this.db.select().from(chainDeployments).where(eq(chainDeployments.chainId, chainId));
    return r ?? null;
  }

  async recordDeployment(row: Omit<DeploymentRow, 'deployedAt'>): Promise<void> {
    await this.db
      .insert(chainDeployments)
      .values(row)
      .onConflictDoUpdate({ target: chainDeployments.chainId, set: { ...row, deployedAt: new Date() } });
  }

  /** The new owner of a deployment whose ownership moved to the install's key (migration 0810). */
  async setDeploymentOwner(chainId: number, owner: string): Promise<void> {
    await this.db.update(chainDeployments).set({ owner }).where(eq(chainDeployments.chainId, chainId));
  }

  // --- the owner key (sealed) ---------------------------------------------------------------------

  async ownerKey(chainId: number): Promise<{ address: string; keyEnc: string } | null> {
    const [r] = await this.db
      .select({ address: chainOwnerKeys.address, keyEnc: chainOwnerKeys.keyEnc })
      .from(chainOwnerKeys)
      .where(eq(chainOwnerKeys.chainId, chainId));
    return r ?? null;
  }

  /** Stores a new key unless one exists (two processes racing keep the first); returns the kept one. */
  async keepOwnerKey(chainId: number, address: string, keyEnc: string) {
    await this.db.insert(chainOwnerKeys).values({ chainId, address, keyEnc }).onConflictDoNothing();
    const kept = await this.ownerKey(chainId);
    if (!kept) throw new Error('owner key insert returned nothing');
    return kept;
  }

  // --- sign-in nonces of the wallet link ----------------------------------------------------------

  /** Stores a nonce; drops expired ones and keeps at most `keep` outstanding per user (the newest). */
  async insertNonce(
    row: { nonce: string; userId: string; address: string; message: string; expiresAt: Date },
    keep: number,
  ): Promise<void> {
    await this.db.delete(chainWalletNonces).where(lt(chainWalletNonces.expiresAt, new Date()));
    await this.db.insert(chainWalletNonces).values(row);
    await this.db.execute(sql`
      DELETE FROM chain_wallet_nonces WHERE user_id = ${row.userId} AND nonce NOT IN (
        SELECT nonce FROM chain_wallet_nonces WHERE user_id = ${row.userId}
        ORDER BY created_at DESC, nonce LIMIT ${keep})`);
  }

  /**
   * Takes a nonce once: deleted in the same statement that reads it, so two requests with one nonce
   * cannot both pass. Null when unknown, expired, or handed out to another user or address.
   */
  async takeNonce(nonce: string, userId: string, address: string): Promise<string | null> {
    const [r] = await this.db
      .delete(chainWalletNonces)
      .where(
        and(
          eq(chainWalletNonces.nonce, nonce),
          eq(chainWalletNonces.userId, userId),
          eq(chainWalletNonces.address, address),
          gt(chainWalletNonces.expiresAt, new Date()),
        ),
      )
      .returning({ message: chainWalletNonces.message });
    return r?.message ?? null;
  }

  // --- wallets ---------------------------------------------------------------------------------

  async walletOf(userId: string): Promise<string | null> {
    const [r] = await this.db
      .select({ address: chainWallets.address })
      .from(chainWallets)
      .where(eq(chainWallets.userId, userId));
    return r?.address ?? null;
  }

  async holderOf(address: string): Promise<string | null> {
    const [r] = await this.db
      .select({ userId: chainWallets.userId })
      .from(chainWallets)
      .where(eq(chainWallets.address, address));
    return r?.userId ?? null;
  }

  /** Links (or switches) the user's wallet; a unique violation means another user took it meanwhile. */
  async link(userId: string, address: string): Promise<void> {
    await this.db
      .insert(chainWallets)
      .values({ userId, address })
      .onConflictDoUpdate({ target: chainWallets.userId, set: { address, linkedAt: new Date() } });
  }

  async unlink(userId: string): Promise<boolean> {
    const rows = await this.db
      .delete(chainWallets)
      .where(eq(chainWallets.userId, userId))
      .returning({ userId: chainWallets.userId });
    return rows.length > 0;
  }

  // --- events and cursor -------------------------------------------------------------------------

  async cursor(chainId: number, contracts: string): Promise<number | null> {
    const [r] = await this.db
      .select({ block: chainCursors.blockNumber })
      .from(chainCursors)
      .where(and(eq(chainCursors.chainId, chainId), eq(chainCursors.contracts, contracts)));
    return r?.block ?? null;
  }

  async setCursor(chainId: number, contracts: string, block: number): Promise<void> {
    await this.db
      .insert(chainCursors)
      .values({ chainId, contracts, blockNumber: block })
      .onConflictDoUpdate({
        target: [chainCursors.chainId, chainCursors.contracts],
        set: { blockNumber: block, updatedAt: new Date() },
      });
  }

  /** Stores events not yet stored (a re-read window repeats some). */
  async insertEvents(rows: NewChainEvent[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.insert(chainEvents).values(rows).onConflictDoNothing();
  }

  /** Events not yet confirmed at or below `maxBlock`, oldest first. */
  async unconfirmed(chainId: number, maxBlock?: number): Promise<ChainEventRow[]> {
    return this.db
      .select()
      .from(chainEvents)
      .where(
        and(
          eq(chainEvents.chainId, chainId),
          eq(chainEvents.confirmed, false),
          maxBlock === undefined ? undefined : lte(chainEvents.blockNumber, maxBlock),
        ),
      )
      .orderBy(asc(chainEvents.blockNumber), asc(chainEvents.logIndex));
  }

  /** Distinct (height, hash) of the stored events above `fromBlock` (a deep check after a rollback). */
  async blocksAbove(chainId: number, fromBlock: number): Promise<{ number: number; hash: string }[]> {
    const rows = await this.db
      .selectDistinct({ number: chainEvents.blockNumber, hash: chainEvents.blockHash })
      .from(chainEvents)
      .where(and(eq(chainEvents.chainId, chainId), gt(chainEvents.blockNumber, fromBlock)));
    return rows;
  }

  /** Deletes the events of blocks the chain no longer has (their plan activations go with them). */
  async deleteBlock(chainId: number, blockHash: string): Promise<number> {
    const rows = await this.db
      .delete(chainEvents)
      .where(and(eq(chainEvents.chainId, chainId), eq(chainEvents.blockHash, blockHash)))
      .returning({ tx: chainEvents.txHash });
    return rows.length;
  }

  async deleteAbove(chainId: number, block: number): Promise<number> {
    const rows = await this.db
      .delete(chainEvents)
      .where(and(eq(chainEvents.chainId, chainId), gt(chainEvents.blockNumber, block)))
      .returning({ tx: chainEvents.txHash });
    return rows.length;
  }

  async confirm(chainId: number, blockHash: string): Promise<void> {
    await this.db
      .update(chainEvents)
      .set({ confirmed: true })
      .where(and(eq(chainEvents.chainId, chainId), eq(chainEvents.blockHash, blockHash)));
  }

  /** Every address that ever staked (the keeper's candidates). */
  async stakers(chainId: number): Promise<string[]> {
    const rows = await this.db
      .selectDistinct({ account: chainEvents.account })
      .from(chainEvents)
      .where(and(eq(chainEvents.chainId, chainId), eq(chainEvents.name, 'Staked')));
    return rows.map((r) => r.account).filter((a): a is string => !!a);
  }

  /** RewardPaid events of an address, oldest first (the chart's rewards line). */
  async rewardsPaid(chainId: number, account: string): Promise<{ at: Date; amount: string }[]> {
    const rows = await this.db
      .select({ at: chainEvents.blockTime, args: chainEvents.args })
      .from(chainEvents)
      .where(
        and(
          eq(chainEvents.chainId, chainId),
          eq(chainEvents.account, account.toLowerCase()),
          eq(chainEvents.name, 'RewardPaid'),
        ),
      )
      .orderBy(asc(chainEvents.blockNumber), asc(chainEvents.logIndex));
    return rows.map((r) => {
      const amount = (r.args as { amount?: unknown }).amount;
      return { at: r.at, amount: typeof amount === 'string' ? amount : '0' };
    });
  }

  /** Unconfirmed plan payments carrying one of these refs. */
  async pendingPayments(chainId: number, ref: string): Promise<ChainEventRow[]> {
    return this.db
      .select()
      .from(chainEvents)
      .where(
        and(
          eq(chainEvents.chainId, chainId),
          eq(chainEvents.name, 'PlanPaid'),
          eq(chainEvents.confirmed, false),
          sql`${chainEvents.args}->>'ref' = ${ref}`,
        ),
      )
      .orderBy(asc(chainEvents.blockNumber));
  }

  // --- plans -------------------------------------------------------------------------------------

  /** The user's payment ref, made on first use. */
  async paymentRef(userId: string): Promise<string> {
    const [have] = await this.db
      .select({ ref: chainPaymentRefs.ref })
      .from(chainPaymentRefs)
      .where(eq(chainPaymentRefs.userId, userId));
    if (have) return have.ref;
    const ref = `0x${randomBytes(32).toString('hex')}`;
    await this.db.insert(chainPaymentRefs).values({ userId, ref }).onConflictDoNothing();
    const [r] = await this.db
      .select({ ref: chainPaymentRefs.ref })
      .from(chainPaymentRefs)
      .where(eq(chainPaymentRefs.userId, userId));
    if (!r) throw new Error('payment ref insert returned nothing');
    return r.ref;
  }

  async userOfRef(ref: string): Promise<string | null> {
    const [r] = await this.db
      .select({ userId: chainPaymentRefs.userId })
      .from(chainPaymentRefs)
      .where(eq(chainPaymentRefs.ref, ref.toLowerCase()));
    return r?.userId ?? null;
  }

  async insertPlanPayment(row: typeof chainPlans.$inferInsert): Promise<void> {
    await this.db.insert(chainPlans).values(row).onConflictDoNothing();
  }

  /** The user's confirmed plan payments on this chain, in the order they were paid (refused ones left out). */
  async planPayments(chainId: number, userId: string): Promise<PlanPaymentRow[]> {
    return this.db
      .select()
      .from(chainPlans)
      .where(and(eq(chainPlans.chainId, chainId), eq(chainPlans.userId, userId), isNull(chainPlans.refused)))
      .orderBy(asc(chainPlans.paidAt), asc(chainPlans.logIndex));
  }

  /** The user's confirmed payments that did not activate a plan (paid below the price), newest first. */
  async refusedPayments(chainId: number, userId: string): Promise<PlanPaymentRow[]> {
    return this.db
      .select()
      .from(chainPlans)
      .where(
        and(eq(chainPlans.chainId, chainId), eq(chainPlans.userId, userId), isNotNull(chainPlans.refused)),
      )
      .orderBy(desc(chainPlans.paidAt))
      .limit(20);
  }

  // --- snapshots ---------------------------------------------------------------------------------

  async lastSnapshotAt(chainId: number): Promise<Date | null> {
    const [r] = await this.db
      .select({ at: chainSnapshots.takenAt })
      .from(chainSnapshots)
      .where(eq(chainSnapshots.chainId, chainId))
      .orderBy(desc(chainSnapshots.takenAt))
      .limit(1);
    return r?.at ?? null;
  }

  async insertSnapshot(chainId: number, at: Date, poolAvailable: string, totalStaked: string): Promise<void> {
    await this.db
      .insert(chainSnapshots)
      .values({ chainId, takenAt: at, poolAvailable, totalStaked })
      .onConflictDoNothing();
  }

  async snapshots(chainId: number, since: Date) {
    return this.db
      .select({ at: chainSnapshots.takenAt, pool: chainSnapshots.poolAvailable })
      .from(chainSnapshots)
      .where(and(eq(chainSnapshots.chainId, chainId), gte(chainSnapshots.takenAt, since)))
      .orderBy(asc(chainSnapshots.takenAt));
  }

  async pruneSnapshots(before: Date): Promise<void> {
    await this.db.delete(chainSnapshots).where(lt(chainSnapshots.takenAt, before));
  }

  // --- faucet ------------------------------------------------------------------------------------

  /**
   * Takes the user's faucet turn: true when the last claim is at least `intervalMs` old (or none);
   * otherwise the time of the last claim. Atomic, so two requests at once get one turn.
   */
  async claimFaucet(
    userId: string,
    intervalMs: number,
  ): Promise<{ ok: true; previous: Date | null } | { ok: false; last: Date }> {
    const [before] = await this.db
      .select({ at: chainFaucetClaims.claimedAt })
      .from(chainFaucetClaims)
      .where(eq(chainFaucetClaims.userId, userId));
    const now = new Date();
    const cutoff = new Date(now.getTime() - intervalMs);
    const rows = await this.db
      .insert(chainFaucetClaims)
      .values({ userId, claimedAt: now })
      .onConflictDoUpdate({
        target: chainFaucetClaims.userId,
        set: { claimedAt: now },
        setWhere: lte(chainFaucetClaims.claimedAt, cutoff),
      })
      .returning({ at: chainFaucetClaims.claimedAt });
    if (rows.length > 0) return { ok: true, previous: before?.at ?? null };
    return { ok: false, last: before?.at ?? now };
  }

  /** Gives the turn back (the faucet could not send). */
  async restoreFaucet(userId: string, previous: Date | null): Promise<void> {
    if (previous) {
      await this.db
        .update(chainFaucetClaims)
        .set({ claimedAt: previous })
        .where(eq(chainFaucetClaims.userId, userId));
    } else {
      await this.db.delete(chainFaucetClaims).where(eq(chainFaucetClaims.userId, userId));
    }
  }
}
