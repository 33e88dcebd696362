import { and, eq, gt, lt, ne, or } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { sessions, users } from '../../db/schema/index';
import { randomToken, sha256 } from '../../lib/crypto';

/** A session ends after 7 days without use, or 30 days after login, whichever comes first. */
export const SESSION_IDLE_MS = 7 * 24 * 3600 * 1000;
export const SESSION_ABSOLUTE_MS = 30 * 24 * 3600 * 1000;
/** The temporary token between password and 2FA code: 5 minutes, good only for /api/verify_2fa. */
export const PENDING_2FA_MS = 5 * 60 * 1000;
/** last_seen_at is written at most once a minute per session, to keep reads cheap. */
const TOUCH_EVERY_MS = 60 * 1000;

export interface SessionUser {
  id: string;
  email: string;
  language: string;
  sessionId: string;
}

export class SessionsRepository {
  constructor(private readonly db: Db) {}

  /** Creates a session and returns the bearer token; only its hash is stored. */
  async create(
    userId: string,
    kind: 'session' | 'pending_2fa' = 'session',
    now = new Date(),
  ): Promise<string> {
    const token = randomToken();
    const ttl = kind === 'session' ? SESSION_ABSOLUTE_MS : PENDING_2FA_MS;
    await this.db.insert(sessions).values({
      tokenHash: sha256(token),
      userId,
      kind,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + ttl),
    });
    return token;
  }

  /** The user behind a token of the given kind, or null when unknown, expired or idle too long. */
  async resolve(
    token: string,
    kind: 'session' | 'pending_2fa',
    now = new Date(),
  ): Promise<SessionUser | null> {
    const rows = await this.db
      .select({
        sessionId: sessions.id,
        kind: sessions.kind,
        lastSeenAt: sessions.lastSeenAt,
        expiresAt: sessions.expiresAt,
        id: users.id,
        email: users.email,
        language: users.language,
      })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(and(eq(sessions.tokenHash, sha256(token)), eq(sessions.kind, kind)))
      .limit(1);
    const row = rows[0];
    if (!row) return null;
    const idleExpired = kind === 'session' && now.getTime() - row.lastSeenAt.getTime() > SESSION_IDLE_MS;
    if (row.expiresAt.getTime() <= now.getTime() || idleExpired) {
      await this.db.delete(sessions).where(eq(sessions.id, row.sessionId));
      return null;
    }
    if (kind === 'session' && now.getTime() - row.lastSeenAt.getTime() > TOUCH_EVERY_MS) {
      await this.db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, row.sessionId));
    }
    return { id: row.id, email: row.email, language: row.language, sessionId: row.sessionId };
  }

  async revoke(sessionId: string): Promise<void> {
    await this.db.delete(sessions).where(eq(sessions.id, sessionId));
  }

  /** Revokes every session of a user, except `keepSessionId` when given. */
  async revokeAllForUser(userId: string, keepSessionId?: string): Promise<void> {
    await this.db
      .delete(sessions)
      .where(
        keepSessionId
          ? and(eq(sessions.userId, userId), ne(sessions.id, keepSessionId))
          : eq(sessions.userId, userId),
      );
  }

  async purgeExpired(now = new Date()): Promise<void> {
    await this.db
      .delete(sessions)
      .where(
        or(
          lt(sessions.expiresAt, now),
          and(
            eq(sessions.kind, 'session'),
            lt(sessions.lastSeenAt, new Date(now.getTime() - SESSION_IDLE_MS)),
          ),
        ),
      );
  }

  async countActive(userId: string, now = new Date()): Promise<number> {
    const rows = await this.db
      .select({ id: sessions.id })
      .from(sessions)
      .where(and(eq(sessions.userId, userId), gt(sessions.expiresAt, now)));
    return rows.length;
  }
}
