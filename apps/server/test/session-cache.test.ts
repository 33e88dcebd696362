// The session cache (docs/accounts.md, "Session cache"): a cached session is refused at once after
// every write that ends it or changes what the auth plugin puts on the request, expires by its time
// as the database read did, is re-read after its TTL, and the cache stays within its cap.
// Roles are not stored (SUPPORT_EMAILS / LOGO_ALLOWLIST_EMAILS are read at start) and there is no ban,
// so no write of those exists to test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database } from '../src/db/client';
import { SessionCache, sessionCacheFor, type SessionRow } from '../src/modules/accounts/session-cache';
import {
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  SessionsRepository,
} from '../src/modules/accounts/sessions.repository';
import { readLatestCode } from '../../../e2e/helpers/accounts';
import { bearer, enable2fa, logIn, logInWith2fa, post, signUp, totp, uniqueEmail } from './accounts.helpers';
import { makeTestApp, type TestApp } from './helpers';
import { openTestDatabase } from './db-snapshot';

async function me(t: TestApp, token: string) {
  return (await t.app.inject({ method: 'GET', url: '/api/me', headers: bearer(token) })).json<{
    loggedIn: boolean;
    user: { id: string; language: string; has2FA: boolean } | null;
  }>();
}

/** An authenticated route other than /api/me (through the auth plugin): its status. */
async function check2fa(t: TestApp, token: string) {
  return (await t.app.inject({ method: 'GET', url: '/api/check_2fa', headers: bearer(token) })).statusCode;
}

/** Both paths answer for the token, which puts it in the cache. */
async function warm(t: TestApp, token: string) {
  expect((await me(t, token)).loggedIn).toBe(true);
  expect(await check2fa(t, token)).toBe(200);
}

async function refused(t: TestApp, token: string) {
  expect((await me(t, token)).loggedIn).toBe(false);
  expect(await check2fa(t, token)).toBe(401);
}

describe('a cached session is refused at once after the write that ends it', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp();
  });
  afterAll(async () => t.close());

  it('serves repeated requests from the cache (no database read)', async () => {
    const email = uniqueEmail('hit');
    await signUp(t, email);
    const token = await logIn(t, email);
    const cache = sessionCacheFor(t.ctx.db);
    await warm(t, token);
    const hits = cache.hits;
    const misses = cache.misses;
    for (let i = 0; i < 5; i++) await warm(t, token);
    expect(cache.hits - hits).toBe(10);
    expect(cache.misses).toBe(misses);
  });

  it('logout: that session only; another session of the same user stays', async () => {
    const email = uniqueEmail('out');
    await signUp(t, email);
    const a = await logIn(t, email);
    const b = await logIn(t, email);
    await warm(t, a);
    await warm(t, b);
    expect((await post(t, '/api/logout', {}, a)).statusCode).toBe(200);
    await refused(t, a);
    await warm(t, b);
  });

  it('password change: every other session of the user, not this one nor another user', async () => {
    const email = uniqueEmail('pw');
    const bystander = uniqueEmail('by');
    await signUp(t, email);
    await signUp(t, bystander);
    const a = await logIn(t, email);
    const b = await logIn(t, email);
    const c = await logIn(t, bystander);
    for (const token of [a, b, c]) await warm(t, token);
    expect((await post(t, '/api/enviar_codigo_cambio_password', {}, a)).statusCode).toBe(200);
    const code = await readLatestCode(t.ctx.config.mailOutboxDir, email);
    const changed = await post(
      t,
      '/api/cambiar_password',
      { nueva_password: 'brand-new-pass-9', email_code: code },
      a,
    );
    expect(changed.statusCode).toBe(200);
    await refused(t, b);
    await warm(t, a);
    await warm(t, c);
  });

  it('account deletion: every session of the user', async () => {
    const email = uniqueEmail('del');
    await signUp(t, email);
    const a = await logIn(t, email);
    const b = await logIn(t, email);
    await warm(t, a);
    await warm(t, b);
    const res = await t.app.inject({ method: 'DELETE', url: '/api/delete_account', headers: bearer(a) });
    expect(res.statusCode).toBe(200);
    await refused(t, a);
    await refused(t, b);
  });

  it('language and 2FA changes show at once in /api/me of every session', async () => {
    const email = uniqueEmail('lang');
    await signUp(t, email);
    const a = await logIn(t, email);
    const b = await logIn(t, email);
    await warm(t, a);
    await warm(t, b);
    expect((await me(t, b)).user).toMatchObject({ language: 'en', has2FA: false });
    expect((await post(t, '/api/language', { language: 'es' }, a)).statusCode).toBe(200);
    expect((await me(t, b)).user?.language).toBe('es');
    await warm(t, a);
    expect((await me(t, a)).user?.has2FA).toBe(false);
    const secret = await enable2fa(t, a);
    expect((await me(t, a)).user?.has2FA).toBe(true);
    // Turning 2FA on ends every other session (issue 37 point 8): the cached one at once.
    expect((await me(t, b)).loggedIn).toBe(false);
    const c = await logInWith2fa(t, email, secret);
    await warm(t, c);
    expect((await me(t, c)).user?.has2FA).toBe(true);
    const off = await post(t, '/api/disable_2fa', { code: totp(secret, 1) }, a);
    expect(off.statusCode).toBe(200);
    expect((await me(t, a)).user?.has2FA).toBe(false);
    expect((await me(t, c)).loggedIn).toBe(false);
  });

  it('ends a cached session by its time: 30 days after login, or 7 idle days', async () => {
    const email = uniqueEmail('time');
    await signUp(t, email);
    const old = await logIn(t, email);
    const idle = await logIn(t, email);
    await warm(t, old);
    await warm(t, idle);
    const repo = new SessionsRepository(t.ctx.db);
    const cache = sessionCacheFor(t.ctx.db);
    const day = 24 * 3600 * 1000;
    const misses = cache.misses;
    // Used every 6 days (never idle 7), the session still ends 30 days after login; every call is a
    // cache hit (the TTL runs on the real clock), so the cached timestamps decide.
    for (const d of [6, 12, 18, 24]) {
      expect(await repo.resolve(old, 'session', new Date(Date.now() + d * day))).not.toBeNull();
    }
    expect(await repo.resolve(old, 'session', new Date(Date.now() + SESSION_ABSOLUTE_MS + 1000))).toBeNull();
    expect(await repo.resolve(idle, 'session', new Date(Date.now() + SESSION_IDLE_MS + 1000))).toBeNull();
    expect(cache.misses).toBe(misses);
    // Both were deleted on sight, so they are refused now too.
    await refused(t, old);
    await refused(t, idle);
    const rows = await t.ctx.database.sql.query(
      `SELECT s.id FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $1`,
      [email],
    );
    expect(rows).toHaveLength(0);
  });
});

describe('bounds', () => {
  let database: Database;
  let t: TestApp;
  beforeAll(async () => {
    database = await openTestDatabase();
    // Created before the app, so the app's repositories share this small cache.
    sessionCacheFor(database.db, { maxEntries: 3, ttlMs: 1 });
    t = await makeTestApp({}, { database });
  });
  afterAll(async () => {
    await t.close();
    await database.close();
  });

  it('holds at most its cap; an evicted session is read again and still works', async () => {
    const cache = sessionCacheFor(t.ctx.db);
    const email = uniqueEmail('cap');
    await signUp(t, email);
    const tokens: string[] = [];
    for (let i = 0; i < 6; i++) tokens.push(await logIn(t, email));
    for (const token of tokens) {
      await warm(t, token);
      expect(cache.size).toBeLessThanOrEqual(3);
    }
    for (const token of tokens) await warm(t, token);
    expect(cache.size).toBe(3);
  });

  it('re-reads an entry after its TTL: a session deleted outside this process is refused then', async () => {
    const email = uniqueEmail('ttl');
    await signUp(t, email);
    const token = await logIn(t, email);
    await warm(t, token);
    const { sha256 } = await import('../src/lib/crypto');
    await t.ctx.database.sql.query('DELETE FROM sessions WHERE token_hash = $1', [sha256(token)]);
    // The TTL of this cache is 1 ms; waiting longer than that is all this needs.
    await new Promise((r) => setTimeout(r, 20));
    await refused(t, token);
  });
});

describe('SessionCache', () => {
  const row = (user: string, session: string): SessionRow => ({
    user: { id: user, email: `${user}@example.com`, language: 'en', sessionId: session },
    lastSeenAt: Date.now(),
    expiresAt: Date.now() + 60_000,
  });

  it('evicts the least recently used entry past its cap', async () => {
    const cache = new SessionCache({ maxEntries: 2 });
    await cache.load('h1', async () => row('u1', 's1'));
    await cache.load('h2', async () => row('u2', 's2'));
    // A hit moves its entry at most once a second (TOUCH_EVERY_MS): this one is a second later.
    expect(cache.get('h1', Date.now() + 1_000)).toBeDefined();
    await cache.load('h3', async () => row('u3', 's3'));
    expect(cache.size).toBe(2);
    expect(cache.get('h2')).toBeUndefined();
    expect(cache.get('h1')?.user.sessionId).toBe('s1');
    expect(cache.get('h3')?.user.sessionId).toBe('s3');
  });

  it('moves a hit entry to the recent end at most once a second', async () => {
    const cache = new SessionCache({ maxEntries: 2 });
    await cache.load('h1', async () => row('u1', 's1'));
    await cache.load('h2', async () => row('u2', 's2'));
    // Within the second of its load: still a hit, but h1 stays the oldest and goes first.
    expect(cache.get('h1', Date.now() + 500)).toBeDefined();
    await cache.load('h3', async () => row('u3', 's3'));
    expect(cache.get('h1')).toBeUndefined();
    expect(cache.get('h2')?.user.sessionId).toBe('s2');
  });

  it('misses after the TTL', async () => {
    const cache = new SessionCache({ ttlMs: 1000 });
    await cache.load('h1', async () => row('u1', 's1'));
    expect(cache.get('h1', Date.now() + 500)).toBeDefined();
    expect(cache.get('h1', Date.now() + 1500)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('does not keep a read that was under way when the session was revoked', async () => {
    const cache = new SessionCache();
    let finish!: (r: SessionRow) => void;
    const reading = cache.load('h1', () => new Promise<SessionRow>((r) => (finish = r)));
    cache.invalidateSession('s1');
    // A request arriving after the revocation does not join the old read: it reads again.
    let reads = 0;
    const again = cache.load('h1', async () => {
      reads++;
      return null;
    });
    finish(row('u1', 's1'));
    await reading;
    expect(await again).toBeNull();
    expect(reads).toBe(1);
    expect(cache.get('h1')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('shares one read between concurrent requests for a cold token', async () => {
    const cache = new SessionCache();
    let reads = 0;
    const read = async () => {
      reads++;
      return row('u1', 's1');
    };
    const all = await Promise.all([1, 2, 3, 4].map(() => cache.load('h1', read)));
    expect(reads).toBe(1);
    expect(all.every((r) => r?.user.sessionId === 's1')).toBe(true);
  });

  it('drops every session of a user together, and only theirs', async () => {
    const cache = new SessionCache();
    await cache.load('h1', async () => row('u1', 's1'));
    await cache.load('h2', async () => row('u1', 's2'));
    await cache.load('h3', async () => row('u2', 's3'));
    cache.invalidateUser('u1');
    expect(cache.get('h1')).toBeUndefined();
    expect(cache.get('h2')).toBeUndefined();
    expect(cache.get('h3')).toBeDefined();
  });
});
