import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { users } from '../../db/schema/index';
import { sessionCacheFor, type SessionCache } from './session-cache';

export type UserRow = typeof users.$inferSelect;

/** Every write of a user row drops the user's cached sessions right after it (session-cache.ts). */
export class UsersRepository {
  private readonly cache: SessionCache;

  constructor(private readonly db: Db) {
    this.cache = sessionCacheFor(db);
  }

  async byEmail(email: string): Promise<UserRow | null> {
    const [row] = await this.db.select().from(users).where(eq(users.email, email.toLowerCase())).limit(1);
    return row ?? null;
  }

  async byId(id: string): Promise<UserRow | null> {
    const [row] = await this.db.select().from(users).where(eq(users.id, id)).limit(1);
    return row ?? null;
  }

  /** Null when the email is taken (unique index), so a race cannot make two accounts. */
  async create(email: string, passwordHash: string, language: string): Promise<UserRow | null> {
    const rows = await this.db
      .insert(users)
      .values({ email: email.toLowerCase(), passwordHash, language })
      .onConflictDoNothing({ target: users.email })
      .returning();
    return rows[0] ?? null;
  }

  async setPassword(id: string, passwordHash: string): Promise<void> {
    await this.db.update(users).set({ passwordHash }).where(eq(users.id, id));
    this.cache.invalidateUser(id);
  }

  /**
   * Replaces the hash only while it is still `oldHash` (a login's upgrade to the current parameters):
   * a password changed in the meantime is never overwritten. False when it was not replaced.
   */
  async rehashPassword(id: string, oldHash: string, newHash: string): Promise<boolean> {
    const rows = await this.db
      .update(users)
      .set({ passwordHash: newHash })
      .where(and(eq(users.id, id), eq(users.passwordHash, oldHash)))
      .returning({ id: users.id });
    this.cache.invalidateUser(id);
    return rows.length === 1;
  }

  async setLanguage(id: string, language: string): Promise<void> {
    await this.db.update(users).set({ language }).where(eq(users.id, id));
    // The auth plugin puts the language on the request (mails use it): re-read, not stale.
    this.cache.invalidateUser(id);
  }

  /** Deletes the user in one transaction; foreign keys cascade to everything they own. */
  async delete(id: string): Promise<boolean> {
    const deleted = await this.db.transaction(async (tx) => {
      const rows = await tx.delete(users).where(eq(users.id, id)).returning({ id: users.id });
      return rows.length === 1;
    });
    // After the commit: a read started before it is refused a place in the cache by the invalidation.
    this.cache.invalidateUser(id);
    return deleted;
  }
}
