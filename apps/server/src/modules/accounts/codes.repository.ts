import { createHmac, randomInt } from 'node:crypto';
import { and, count, desc, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { emailCodes } from '../../db/schema/index';
import { safeEqual } from '../../lib/crypto';

export type CodePurpose = 'register' | 'password_change';

/** A mailed code lasts 10 minutes, is used once and allows 5 wrong tries. */
export const CODE_TTL_MS = 10 * 60 * 1000;
export const CODE_MAX_ATTEMPTS = 5;
/** Sends per email address and purpose within CODE_SEND_WINDOW_MS. */
export const CODE_SENDS_PER_EMAIL = 5;
export const CODE_SEND_WINDOW_MS = 60 * 60 * 1000;

export type CodeCheck = 'ok' | 'missing' | 'expired' | 'too_many_attempts' | 'wrong';

/** A random 6-digit code (uniform over 000000-999999, from the CSPRNG). */
export const newCode = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

export class CodesRepository {
  constructor(
    private readonly db: Db,
    /** HMAC key derived from the master key: a stolen database alone cannot test the 10^6 codes. */
    private readonly hmacKey: Buffer,
  ) {}

  private hash(purpose: CodePurpose, email: string, code: string): string {
    return createHmac('sha256', this.hmacKey).update(`${purpose}\n${email}\n${code}`).digest('hex');
  }

  async sendsSince(email: string, purpose: CodePurpose, since: Date): Promise<number> {
    const [row] = await this.db
      .select({ n: count() })
      .from(emailCodes)
      .where(
        and(eq(emailCodes.email, email), eq(emailCodes.purpose, purpose), gt(emailCodes.createdAt, since)),
      );
    return Number(row?.n ?? 0);
  }

  /**
   * Records a send. With a code, earlier unused codes of the same email and purpose stop working
   * (only the newest code counts). Without one (sign-up for an existing account) only the send is
   * counted, for the per-email limit.
   */
  async record(
    email: string,
    purpose: CodePurpose,
    code: string | null,
    userId: string | null,
    now = new Date(),
  ): Promise<void> {
    if (code) {
      await this.db
        .update(emailCodes)
        .set({ consumedAt: now })
        .where(
          and(eq(emailCodes.email, email), eq(emailCodes.purpose, purpose), isNull(emailCodes.consumedAt)),
        );
    }
    await this.db.insert(emailCodes).values({
      email,
      purpose,
      userId,
      codeHash: code ? this.hash(purpose, email, code) : null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CODE_TTL_MS),
    });
  }

  /**
   * Checks a code against the newest unused one; a wrong code counts a try. With `consume` a right
   * code is used up; without it the caller consumes it later (after its other checks passed).
   */
  async check(
    email: string,
    purpose: CodePurpose,
    code: string,
    opts: { consume: boolean; now?: Date },
  ): Promise<{ result: CodeCheck; id?: string }> {
    const now = opts.now ?? new Date();
    const [row] = await this.db
      .select()
      .from(emailCodes)
      .where(and(eq(emailCodes.email, email), eq(emailCodes.purpose, purpose), isNull(emailCodes.consumedAt)))
      .orderBy(desc(emailCodes.createdAt))
      .limit(1);
    if (!row?.codeHash) return { result: 'missing' };
    if (row.expiresAt.getTime() <= now.getTime()) return { result: 'expired' };
    if (row.attempts >= CODE_MAX_ATTEMPTS) return { result: 'too_many_attempts' };
    if (!safeEqual(row.codeHash, this.hash(purpose, email, code))) {
      // Atomic, so parallel guesses cannot get past the limit.
      const [updated] = await this.db
        .update(emailCodes)
        .set({ attempts: sql`${emailCodes.attempts} + 1` })
        .where(and(eq(emailCodes.id, row.id), lt(emailCodes.attempts, CODE_MAX_ATTEMPTS)))
        .returning({ attempts: emailCodes.attempts });
      return { result: !updated || updated.attempts >= CODE_MAX_ATTEMPTS ? 'too_many_attempts' : 'wrong' };
    }
    if (opts.consume && !(await this.consume(row.id, now))) return { result: 'missing' };
    return { result: 'ok', id: row.id };
  }

  /** Uses a code up; false when it was already used (a parallel request won). */
  async consume(id: string, now = new Date()): Promise<boolean> {
    const rows = await this.db
      .update(emailCodes)
      .set({ consumedAt: now })
      .where(and(eq(emailCodes.id, id), isNull(emailCodes.consumedAt)))
      .returning({ id: emailCodes.id });
    return rows.length === 1;
  }
}
