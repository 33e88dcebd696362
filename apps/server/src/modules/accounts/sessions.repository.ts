import { and, desc, eq, gt, lt, ne, or } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { sessions, users } from '../../db/schema/index';
import { randomToken, sha256 } from '../../lib/crypto';
import { sessionCacheFor, type SessionCache, type SessionRow, type SessionUser } from './session-cache';

export type { SessionUser } from './session-cache';

/** A session ends after 7 days without use, or 30 days after login, whichever comes first. */
export const SESSION_IDLE_MS = 7 * 24 * 3600 * 1000;
export const SESSION_ABSOLUTE_MS = 30 * 24 * 3600 * 1000;
/** The temporary token between password and 2FA code: 5 minutes, good only for /api/verify_2fa. */
export const PENDING_2FA_MS = 5 * 60 * 1000;
/** last_seen_at is written at most once a minute per session, to keep reads cheap. */
const TOUCH_EVERY_MS = 60 * 1000;
/** Characters kept of the client address and user agent stored with a session. */
const SESSION_CLIENT_FIELD_MAX = 300;

/** Who opened a session, as the request showed it (for the settings' session list). */
export interface SessionClient {
  ip?: string | undefined;
  userAgent?: string | undefined;
}

export interface OpenSession {
  id: string;
  createdAt: Date;
  lastSeenAt: Date;
  /** When it ends at the latest (not shown; when a kept list must be read again). */
  expiresAt: Date;
  ip: string | null;
  userAgent: string | null;
}

export class SessionsRepository {
  /** Shared by every repository on this database handle (session-cache.ts). */
  readonly cache: SessionCache;

  constructor(private readonly db: Db) {
    this.cache = sessionCacheFor(db);
  }

  /** Creates a session and returns the bearer token; only its hash is stored. */
  async create(
    userId: string,
    kind: 'session' | 'pending_2fa' = 'session',
    now = new Date(),
    client: SessionClient = {},
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
      // Shown to the user in the settings' session list only; cut to bound the row.
      ip: client.ip?.slice(0, SESSION_CLIENT_FIELD_MAX) ?? null,
      userAgent: client.userAgent?.slice(0, SESSION_CLIENT_FIELD_MAX) ?? null,
    });
    return token;
  }

  /** The user's open sessions (not the 2FA temporary token), most recently used first. */
  async listForUser(userId: string, now = new Date()): Promise<OpenSession[]> {
    const rows = await this.db
      .select({
        id: sessions.id,
        createdAt: sessions.createdAt,
        lastSeenAt: sessions.lastSeenAt,
        expiresAt: sessions.expiresAt,
        ip: sessions.ip,
        userAgent: sessions.userAgent,
      })
      .from(sessions)
      .where(
        and(
          eq(sessions.userId, userId),
          eq(sessions.kind, 'session'),
          gt(sessions.expiresAt, now),
          gt(sessions.lastSeenAt, new Date(now.getTime() - SESSION_IDLE_MS)),
        ),
      )
      .orderBy(desc(sessions.lastSeenAt));
    return rows;
  }

  /**
   * The user behind a token of the given kind, or null when unknown, expired or idle too long.
   * Sessions come from the cache when it holds them (session-cache.ts); the 2FA temporary token is
   * always read from the database (it is used once).
   */
  async resolve(
    token: string,
    kind: 'session' | 'pending_2fa',
    now = new Date(),
  ): Promise<SessionUser | null> {
    const tokenHash = sha256(token);
    if (kind === 'pending_2fa') {
      const row = await this.read(tokenHash, kind);
      return row && (await this.stillValid(tokenHash, row, kind, now)) ? row.user : null;
    }
    // The TTL runs on the real clock (how old the copy is); expiry below on `now` (the session's time).
    const row =
      this.cache.get(tokenHash) ?? (await this.cache.load(tokenHash, () => this.read(tokenHash, 'session')));
    return row && (await this.stillValid(tokenHash, row, kind, now)) ? row.user : null;
  }

  private async read(tokenHash: string, kind: 'session' | 'pending_2fa'): Promise<SessionRow | null> {
    const rows = await this.db
      .select({
        sessionId: sessions.id,
        lastSeenAt: sessions.lastSeenAt,
        expiresAt: sessions.expiresAt,
        id: users.id,
        email: users.email,
        language: users.language,
      })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(and(eq(sessions.tokenHash, tokenHash), eq(sessions.kind, kind)))
      .limit(1);
    const row = rows[0];
    if (!row) return null;
    return {
      user: { id: row.id, email: row.email, language: row.language, sessionId: row.sessionId },
      lastSeenAt: row.lastSeenAt.getTime(),
      expiresAt: row.expiresAt.getTime(),
    };
  }

  /** Expiry (deleted on sight) and the once-a-minute last_seen_at write, for cached and read rows alike. */
  private async stillValid(
    tokenHash: string,
    row: SessionRow,
    kind: 'session' | 'pending_2fa',
    now: Date,
  ): Promise<boolean> {
    const t = now.getTime();
    const idleExpired = kind === 'session' && t - row.lastSeenAt > SESSION_IDLE_MS;
    if (row.expiresAt <= t || idleExpired) {
      await this.db.delete(sessions).where(eq(sessions.id, row.user.sessionId));
      this.cache.invalidateSession(row.user.sessionId);
      this.cache.drop(tokenHash);
      return false;
    }
    if (kind === 'session' && t - row.lastSeenAt > TOUCH_EVERY_MS) {
      // Recorded before the write so the requests that arrive meanwhile do not write it again.
      this.cache.touched(tokenHash, t);
      row.lastSeenAt = t;
      await this.db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, row.user.sessionId));
    }
    return true;
  }

  async revoke(sessionId: string): Promise<void> {
    await this.db.delete(sessions).where(eq(sessions.id, sessionId));
    this.cache.invalidateSession(sessionId);
  }

  /** Revokes every session of a user, except `keepSessionId` when given. */
  async revokeAllForUser(userId: string, keepSessionId?: string): Promise<number> {
    const gone = await this.db
      .delete(sessions)
      .where(
        keepSessionId
          ? and(eq(sessions.userId, userId), ne(sessions.id, keepSessionId))
          : eq(sessions.userId, userId),
      )
      .returning({ kind: sessions.kind });
    // The kept session is dropped too and simply re-read: simpler than sparing it, and rare.
    this.cache.invalidateUser(userId);
    return gone.filter((r) => r.kind === 'session').length;
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
