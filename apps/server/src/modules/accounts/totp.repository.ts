import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { userTotp } from '../../db/schema/index';
import { sessionCacheFor, type SessionCache } from './session-cache';

export type TotpRow = typeof userTotp.$inferSelect;

/** Every write drops the user's cached 2FA flag right after it (session-cache.ts). */
export class TotpRepository {
  private readonly cache: SessionCache;

  constructor(private readonly db: Db) {
    this.cache = sessionCacheFor(db);
  }

  async get(userId: string): Promise<TotpRow | null> {
    const [row] = await this.db.select().from(userTotp).where(eq(userTotp.userId, userId)).limit(1);
    return row ?? null;
  }

  /** From the database: login and password change decide on it. */
  async isEnabled(userId: string): Promise<boolean> {
    return (await this.get(userId))?.enabled ?? false;
  }

  /** Through the session cache: only for showing it (`/api/me`), which every page load asks for. */
  async isEnabledCached(userId: string): Promise<boolean> {
    return this.cache.twofaEnabled(userId, () => this.isEnabled(userId));
  }

  async upsert(userId: string, values: Partial<Omit<TotpRow, 'userId'>>, now = new Date()): Promise<void> {
    await this.db
      .insert(userTotp)
      .values({ userId, ...values, updatedAt: now })
      .onConflictDoUpdate({ target: userTotp.userId, set: { ...values, updatedAt: now } });
    this.cache.invalidateTwofa(userId);
  }

  /**
   * Counts one 2FA check *before* its code is compared (issue 37 point 7), in one statement that also
   * decides the lock: the `maxFailures`-th check locks every check until `now + lockMs` (and restarts
   * the count). Null when the account is locked: that check is not made at all. So parallel wrong
   * codes check exactly `maxFailures` codes; an accepted code clears the count again (claimStep).
   * Both CASEs read the row's old failed_attempts (SQL evaluates SET against the old row).
   */
  async reserveCheck(
    userId: string,
    maxFailures: number,
    lockMs: number,
    now = new Date(),
  ): Promise<{ locked: boolean; lockedUntil: Date | null } | null> {
    const at = now.toISOString();
    const lockUntil = new Date(now.getTime() + lockMs).toISOString();
    const reaches = sql`${userTotp.failedAttempts} + 1 >= ${maxFailures}`;
    const rows = await this.db
      .update(userTotp)
      .set({
        failedAttempts: sql`CASE WHEN ${reaches} THEN 0 ELSE ${userTotp.failedAttempts} + 1 END`,
        lockedUntil: sql`CASE WHEN ${reaches} THEN ${lockUntil}::timestamptz ELSE NULL END`,
        updatedAt: now,
      })
      .where(
        sql`${userTotp.userId} = ${userId} AND (${userTotp.lockedUntil} IS NULL OR ${userTotp.lockedUntil} <= ${at}::timestamptz)`,
      )
      .returning({ lockedUntil: userTotp.lockedUntil });
    this.cache.invalidateTwofa(userId);
    const row = rows[0];
    if (!row) return null;
    return { locked: row.lockedUntil !== null, lockedUntil: row.lockedUntil };
  }

  /**
   * Records an accepted code's time step, atomically: false when that step (or a later one) was
   * already used, so two parallel requests cannot both spend one code.
   */
  async claimStep(
    userId: string,
    step: number,
    extra: Partial<Omit<TotpRow, 'userId'>> = {},
  ): Promise<boolean> {
    const rows = await this.db
      .update(userTotp)
      .set({ ...extra, lastUsedStep: step, failedAttempts: 0, lockedUntil: null, updatedAt: new Date() })
      .where(
        and(eq(userTotp.userId, userId), or(isNull(userTotp.lastUsedStep), lt(userTotp.lastUsedStep, step))),
      )
      .returning({ userId: userTotp.userId });
    this.cache.invalidateTwofa(userId);
    return rows.length === 1;
  }
}
