import { eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { loginBackoff } from '../../db/schema/index';

/**
 * Per-account login backoff (issue 37 point 6; docs/accounts.md, "Login limits"). The per-address
 * limits let a spread of addresses guess one account's password without end; this one counts failed
 * logins per email across every address, in the database (a restart or a second process sees it).
 *
 * Each attempt is *reserved* before its password is checked, in one statement that also decides the
 * block, so parallel attempts cannot all pass a stale "not blocked" read: the first
 * LOGIN_BACKOFF_FREE_FAILURES attempts are free; from then on every failure blocks the email for
 * 1 s, 2 s, 4 s … up to LOGIN_BACKOFF_MAX_S. While blocked, no password is checked: even the right
 * one gets 429 + Retry-After, so the block cannot be used to probe it. A right password clears the
 * row. Unknown emails are counted the same way, so a 429 does not tell which emails have an account.
 */

/** Failures with no delay; the next failure after them blocks for 1 s. */
export const LOGIN_BACKOFF_FREE_FAILURES = 5;
/** The longest block, in seconds (15 minutes). */
export const LOGIN_BACKOFF_MAX_S = 15 * 60;
/** Failures older than this (ms, 24 hours) are forgotten: the count starts again. */
export const LOGIN_BACKOFF_MEMORY_MS = 24 * 3600_000;
/** The owner is mailed at most once per this window (ms, 24 hours), from the first blocking failure on. */
export const LOGIN_BACKOFF_NOTIFY_WINDOW_MS = 24 * 3600_000;

export type Reservation = { ok: true; failures: number } | { ok: false; retryAfterS: number };

export class LoginBackoffRepository {
  constructor(private readonly db: Db) {}

  /**
   * Counts this attempt as a failure before its password is checked (cleared by `succeeded`), or says
   * how many seconds the email is still blocked. One atomic statement.
   */
  async reserve(email: string, now = new Date()): Promise<Reservation> {
    const at = now.toISOString();
    const forgetBefore = new Date(now.getTime() - LOGIN_BACKOFF_MEMORY_MS).toISOString();
    const next = sql`(CASE WHEN ${loginBackoff.lastFailureAt} < ${forgetBefore}::timestamptz THEN 1 ELSE ${loginBackoff.failures} + 1 END)`;
    const rows = await this.db
      .insert(loginBackoff)
      .values({ email, failures: 1, lastFailureAt: now, blockedUntil: null })
      .onConflictDoUpdate({
        target: loginBackoff.email,
        set: {
          failures: next,
          lastFailureAt: now,
          // From the FREE-th failure on: 2^(n - FREE) seconds (the exponent capped so the power cannot
          // overflow), at most LOGIN_BACKOFF_MAX_S; set now, it applies to the next attempt.
          blockedUntil: sql`(CASE WHEN ${next} >= ${LOGIN_BACKOFF_FREE_FAILURES}
            THEN ${at}::timestamptz + make_interval(secs => LEAST(power(2, LEAST(${next}, 40) - ${LOGIN_BACKOFF_FREE_FAILURES}), ${LOGIN_BACKOFF_MAX_S}))
            ELSE NULL END)`,
        },
        setWhere: sql`${loginBackoff.blockedUntil} IS NULL OR ${loginBackoff.blockedUntil} <= ${at}::timestamptz`,
      })
      .returning({ failures: loginBackoff.failures });
    const row = rows[0];
    if (row) return { ok: true, failures: row.failures };
    const [blocked] = await this.db
      .select({ blockedUntil: loginBackoff.blockedUntil })
      .from(loginBackoff)
      .where(eq(loginBackoff.email, email))
      .limit(1);
    const until = blocked?.blockedUntil?.getTime() ?? now.getTime() + 1000;
    return { ok: false, retryAfterS: Math.max(1, Math.ceil((until - now.getTime()) / 1000)) };
  }

  /** The password was right: the email's failures are forgotten. */
  async succeeded(email: string): Promise<void> {
    await this.db.delete(loginBackoff).where(eq(loginBackoff.email, email));
  }

  /**
   * True once per LOGIN_BACKOFF_NOTIFY_WINDOW_MS for an email (atomically, so parallel failures mail
   * once): the caller mails the owner.
   */
  async claimNotice(email: string, now = new Date()): Promise<boolean> {
    const since = new Date(now.getTime() - LOGIN_BACKOFF_NOTIFY_WINDOW_MS).toISOString();
    const rows = await this.db
      .update(loginBackoff)
      .set({ notifiedAt: now })
      .where(
        sql`${loginBackoff.email} = ${email} AND (${loginBackoff.notifiedAt} IS NULL OR ${loginBackoff.notifiedAt} < ${since}::timestamptz)`,
      )
      .returning({ email: loginBackoff.email });
    return rows.length === 1;
  }

  /** Rows with no failure for LOGIN_BACKOFF_MEMORY_MS are of no use any more. */
  async purgeOld(now = new Date()): Promise<void> {
    await this.db
      .delete(loginBackoff)
      .where(lt(loginBackoff.lastFailureAt, new Date(now.getTime() - LOGIN_BACKOFF_MEMORY_MS)));
  }
}
