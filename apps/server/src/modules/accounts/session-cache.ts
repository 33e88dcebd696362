import type { Db } from '../../db/client';

/**
 * The in-memory session cache (docs/accounts.md, "Session cache"). Every authenticated request used to
 * read its session with a join through drizzle and PGlite on the main thread (~1 ms of CPU, the whole
 * cost of `/api/me`); a hit here costs a hash and two Map operations.
 *
 * The database stays the source of truth:
 * - every write of this process that ends a session or changes what the auth plugin puts on the
 *   request (logout, password change, account deletion, language, 2FA) goes through the accounts
 *   repositories, which drop the affected entries right after the write commits;
 * - an entry is re-read after `ttlMs` even if nothing dropped it, which bounds how long a write made
 *   outside this process (another process on the same PostgreSQL, SQL by hand) goes unseen;
 * - expiry (idle and absolute) is checked on every hit from the cached timestamps, as the database
 *   read did.
 */

/** An entry is re-read from the database after this long (ms), whatever happened to it. */
export const SESSION_CACHE_TTL_MS = 30_000;
/** At most this many sessions (and as many 2FA flags) are held; the least recently used goes first. */
export const SESSION_CACHE_MAX_ENTRIES = 10_000;

export interface SessionUser {
  id: string;
  email: string;
  language: string;
  sessionId: string;
}

/** A session row as read from the database (kind 'session' only: the 2FA temporary token is not cached). */
export interface SessionRow {
  user: SessionUser;
  /** ms since the epoch */
  lastSeenAt: number;
  /** ms since the epoch */
  expiresAt: number;
}

interface Entry extends SessionRow {
  /** When it was read from the database (ms since the epoch), for the TTL. */
  loadedAt: number;
  /** When a hit last moved it to the recent end (ms since the epoch). */
  touchedAt: number;
}

/**
 * A hit moves its entry to the recent end at most this often (ms): a move is a Map delete and set on a
 * 64-character key, on every authenticated request; an order a second old is recent enough to choose
 * which of 10,000 entries goes first.
 */
const TOUCH_EVERY_MS = 1_000;

export interface SessionCacheOptions {
  maxEntries?: number;
  ttlMs?: number;
}

export class SessionCache {
  readonly maxEntries: number;
  readonly ttlMs: number;
  /** By token hash; Map order is recency order (a hit moves its entry to the end). */
  private readonly sessions = new Map<string, Entry>();
  private readonly hashBySession = new Map<string, string>();
  private readonly hashesByUser = new Map<string, Set<string>>();
  private readonly twofa = new Map<string, { enabled: boolean; loadedAt: number }>();
  /** Reads in progress by key, so a burst of requests with one cold token makes one query. */
  private readonly inflight = new Map<string, Promise<unknown>>();
  /**
   * Bumped by every invalidation. A read that started before one may have seen the old row, so its
   * result is not stored (it is still answered: the request raced with the write, as without a cache).
   */
  private generation = 0;
  hits = 0;
  misses = 0;

  constructor(opts: SessionCacheOptions = {}) {
    this.maxEntries = Math.max(1, opts.maxEntries ?? SESSION_CACHE_MAX_ENTRIES);
    this.ttlMs = opts.ttlMs ?? SESSION_CACHE_TTL_MS;
  }

  get size(): number {
    return this.sessions.size;
  }

  get twofaSize(): number {
    return this.twofa.size;
  }

  /** The cached session of a token hash, or undefined when absent or older than the TTL. */
  get(tokenHash: string, now = Date.now()): SessionRow | undefined {
    const entry = this.sessions.get(tokenHash);
    if (!entry) {
      this.misses++;
      return undefined;
    }
    if (now - entry.loadedAt >= this.ttlMs) {
      this.drop(tokenHash);
      this.misses++;
      return undefined;
    }
    if (now - entry.touchedAt >= TOUCH_EVERY_MS) {
      entry.touchedAt = now;
      this.sessions.delete(tokenHash);
      this.sessions.set(tokenHash, entry);
    }
    this.hits++;
    return entry;
  }

  /** Reads a session through `read` (one read per token at a time) and keeps it unless invalidated meanwhile. */
  load(tokenHash: string, read: () => Promise<SessionRow | null>): Promise<SessionRow | null> {
    const key = `s:${tokenHash}`;
    const pending = this.inflight.get(key) as Promise<SessionRow | null> | undefined;
    if (pending) return pending;
    const generation = this.generation;
    const p = read()
      .then((row) => {
        if (row && generation === this.generation) this.set(tokenHash, row);
        return row;
      })
      .finally(() => {
        if (this.inflight.get(key) === p) this.inflight.delete(key);
      });
    this.inflight.set(key, p);
    return p;
  }

  /** Whether the user has 2FA on, for `/api/me`: cached like a session, dropped by every 2FA write. */
  async twofaEnabled(userId: string, read: () => Promise<boolean>, now = Date.now()): Promise<boolean> {
    const hit = this.twofa.get(userId);
    if (hit && now - hit.loadedAt < this.ttlMs) return hit.enabled;
    const key = `t:${userId}`;
    const pending = this.inflight.get(key) as Promise<boolean> | undefined;
    if (pending) return pending;
    const generation = this.generation;
    const p = read()
      .then((enabled) => {
        if (generation === this.generation) {
          this.twofa.delete(userId);
          this.twofa.set(userId, { enabled, loadedAt: Date.now() });
          if (this.twofa.size > this.maxEntries) {
            const oldest = this.twofa.keys().next();
            if (!oldest.done) this.twofa.delete(oldest.value);
          }
        }
        return enabled;
      })
      .finally(() => {
        if (this.inflight.get(key) === p) this.inflight.delete(key);
      });
    this.inflight.set(key, p);
    return p;
  }

  /** Records a touch (last_seen_at written) so the idle check of later hits uses it. */
  touched(tokenHash: string, at: number): void {
    const entry = this.sessions.get(tokenHash);
    if (entry) entry.lastSeenAt = at;
  }

  /** One session is gone (logout, expiry, the 2FA temporary token spent). */
  invalidateSession(sessionId: string): void {
    this.bump();
    const hash = this.hashBySession.get(sessionId);
    if (hash !== undefined) this.drop(hash);
  }

  /** Every session of the user, and their 2FA flag (password change, deletion, language change). */
  invalidateUser(userId: string): void {
    this.bump();
    for (const hash of [...(this.hashesByUser.get(userId) ?? [])]) this.drop(hash);
    this.twofa.delete(userId);
  }

  /** The user's 2FA flag changed (on, off, or a refused code counted). */
  invalidateTwofa(userId: string): void {
    this.bump();
    this.twofa.delete(userId);
  }

  /** The token hash's entry, by its own key (an expired session deleted on sight). */
  drop(tokenHash: string): void {
    const entry = this.sessions.get(tokenHash);
    if (!entry) return;
    this.sessions.delete(tokenHash);
    this.hashBySession.delete(entry.user.sessionId);
    const set = this.hashesByUser.get(entry.user.id);
    set?.delete(tokenHash);
    if (set?.size === 0) this.hashesByUser.delete(entry.user.id);
  }

  private bump(): void {
    this.generation++;
    // A read already under way may have seen the old rows: later requests must not join it.
    this.inflight.clear();
  }

  private set(tokenHash: string, row: SessionRow): void {
    this.drop(tokenHash);
    // Frozen: every request of the session shares this object, so no handler may change it for the others.
    const user = Object.freeze({ ...row.user });
    const now = Date.now();
    this.sessions.set(tokenHash, { ...row, user, loadedAt: now, touchedAt: now });
    this.hashBySession.set(user.sessionId, tokenHash);
    let set = this.hashesByUser.get(user.id);
    if (!set) this.hashesByUser.set(user.id, (set = new Set()));
    set.add(tokenHash);
    while (this.sessions.size > this.maxEntries) {
      const oldest = this.sessions.keys().next();
      if (oldest.done) break;
      this.drop(oldest.value);
    }
  }
}

/**
 * One cache per database handle, shared by every repository on it (the auth plugin's, the accounts
 * service's, a test's), so a write through any of them invalidates what the others read. Two apps on
 * one database (a restart test) share it too, as they share the rows.
 */
const caches = new WeakMap<Db, SessionCache>();

/** The cache of a database handle; `opts` apply only when it is created (tests use a small one). */
export function sessionCacheFor(db: Db, opts?: SessionCacheOptions): SessionCache {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new SessionCache(opts)));
  return cache;
}
