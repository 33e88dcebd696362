import fs from 'node:fs';
import { hash, type Algorithm } from '@node-rs/argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailsTo, readLatestCode } from '../../../e2e/helpers/accounts';
import { DISABLE_2FA_CODE_NEEDED } from '@bytx/contract';
import { makeTestApp, type TestApp } from './helpers';
import { hashPassword } from '../src/modules/accounts/passwords';
import { UsersRepository } from '../src/modules/accounts/users.repository';
import {
  bearer,
  enable2fa,
  GOOD_PASSWORD,
  logIn,
  nextIp,
  post,
  signUp,
  totp,
  uniqueEmail,
} from './accounts.helpers';

const count = async (t: TestApp, sql: string, params: unknown[] = []) =>
  Number((await t.ctx.database.sql.query(sql, params))[0]?.n ?? 0);

describe('sign-up with an email code', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp();
  });
  afterAll(async () => t.close());

  it('mails a 6-digit code, creates the account with it, and the code works once only', async () => {
    const email = uniqueEmail('signup');
    const ip = nextIp();
    const sent = await post(t, '/api/enviar_codigo', { email: email.toUpperCase() }, undefined, ip);
    expect(sent.statusCode).toBe(200);
    expect(sent.json()).toMatchObject({ success: true, registrationOpen: true });
    const codigo = await readLatestCode(t.ctx.config.mailOutboxDir, email);
    expect(codigo).toMatch(/^\d{6}$/);
    expect(mailsTo(t.ctx.config.mailOutboxDir, email)[0]?.subject).toBe('Your BYTX verification code');

    const ok = await post(t, '/api/registro', { email, password: GOOD_PASSWORD, codigo }, undefined, ip);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ success: true });
    expect(await count(t, 'SELECT count(*) AS n FROM users WHERE email = $1', [email])).toBe(1);

    const again = await post(t, '/api/registro', { email, password: GOOD_PASSWORD, codigo }, undefined, ip);
    expect(again.statusCode).toBe(400);
    expect(again.json().message).toMatch(/invalid or has expired/);
    await logIn(t, email);
  });

  it('mails the code in Spanish when asked in Spanish', async () => {
    const email = uniqueEmail('es');
    await post(t, '/api/enviar_codigo', { email, language: 'es' });
    expect(mailsTo(t.ctx.config.mailOutboxDir, email)[0]?.subject).toBe('Tu código de verificación de BYTX');
  });

  it('answers an existing email exactly like a new one and mails the owner a notice without a code', async () => {
    const owner = uniqueEmail('owner');
    await signUp(t, owner);
    const fresh = uniqueEmail('fresh');
    const a = await post(t, '/api/enviar_codigo', { email: owner });
    const b = await post(t, '/api/enviar_codigo', { email: fresh });
    expect(a.statusCode).toBe(b.statusCode);
    expect(a.json()).toEqual(b.json());
    const notice = mailsTo(t.ctx.config.mailOutboxDir, owner)[0];
    expect(notice?.subject).toBe('Sign-up attempt with your email on BYTX');
    expect(notice?.text).not.toMatch(/\d{6}/);
    // No code exists for it, so no guess can take the account over.
    const res = await post(t, '/api/registro', {
      email: owner,
      password: 'another-pass-99',
      codigo: '123456',
    });
    expect(res.statusCode).toBe(400);
    await logIn(t, owner);
  });

  it('refuses a wrong code, counts it, and after 5 wrong tries refuses even the right one', async () => {
    const email = uniqueEmail('tries');
    await post(t, '/api/enviar_codigo', { email });
    const codigo = await readLatestCode(t.ctx.config.mailOutboxDir, email);
    const wrong = codigo === '000000' ? '111111' : '000000';
    for (let i = 0; i < 4; i++) {
      const r = await post(t, '/api/registro', { email, password: GOOD_PASSWORD, codigo: wrong });
      expect(r.statusCode).toBe(400);
      expect(r.json().message).toBe('The verification code is incorrect.');
    }
    const fifth = await post(t, '/api/registro', { email, password: GOOD_PASSWORD, codigo: wrong });
    expect(fifth.json().message).toMatch(/Too many wrong codes/);
    const right = await post(t, '/api/registro', { email, password: GOOD_PASSWORD, codigo });
    expect(right.statusCode).toBe(400);
    expect(right.json().message).toMatch(/Too many wrong codes/);
    expect(await count(t, 'SELECT count(*) AS n FROM users WHERE email = $1', [email])).toBe(0);
  });

  it('refuses an expired code', async () => {
    const email = uniqueEmail('expired');
    await post(t, '/api/enviar_codigo', { email });
    const codigo = await readLatestCode(t.ctx.config.mailOutboxDir, email);
    await t.ctx.database.sql.query(
      `UPDATE email_codes SET expires_at = now() - interval '1 second' WHERE email = $1`,
      [email],
    );
    const res = await post(t, '/api/registro', { email, password: GOOD_PASSWORD, codigo });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('The verification code has expired. Request a new code.');
    expect(await count(t, 'SELECT count(*) AS n FROM users WHERE email = $1', [email])).toBe(0);
  });

  it('only the newest code counts', async () => {
    const email = uniqueEmail('newest');
    await post(t, '/api/enviar_codigo', { email });
    const first = await readLatestCode(t.ctx.config.mailOutboxDir, email);
    await new Promise((r) => setTimeout(r, 20));
    await post(t, '/api/enviar_codigo', { email });
    const second = await readLatestCode(t.ctx.config.mailOutboxDir, email);
    if (first !== second) {
      const old = await post(t, '/api/registro', { email, password: GOOD_PASSWORD, codigo: first });
      expect(old.statusCode).toBe(400);
    }
    const ok = await post(t, '/api/registro', { email, password: GOOD_PASSWORD, codigo: second });
    expect(ok.statusCode).toBe(200);
  });

  it('applies the password rules before touching the code, and creates nothing', async () => {
    const email = uniqueEmail('rules');
    await post(t, '/api/enviar_codigo', { email });
    const codigo = await readLatestCode(t.ctx.config.mailOutboxDir, email);
    const cases: [string, RegExp][] = [
      ['short12', /8 to 128 characters/],
      ['x'.repeat(129), /8 to 128 characters/],
      ['Password123', /too common/],
      ['qwertyuiop', /too common/],
    ];
    for (const [password, message] of cases) {
      const r = await post(t, '/api/registro', { email, password, codigo });
      expect(r.statusCode, password).toBe(400);
      expect(r.json().message).toMatch(message);
    }
    expect(await count(t, 'SELECT count(*) AS n FROM users WHERE email = $1', [email])).toBe(0);
    expect(await count(t, 'SELECT attempts AS n FROM email_codes WHERE email = $1', [email])).toBe(0);
    const ok = await post(t, '/api/registro', { email, password: 'x'.repeat(128), codigo });
    expect(ok.statusCode).toBe(200);
  });

  it('stores the password as argon2id with 7 MiB and t=5 (an OWASP configuration)', async () => {
    const email = uniqueEmail('argon');
    await signUp(t, email);
    const [row] = await t.ctx.database.sql.query('SELECT password_hash FROM users WHERE email = $1', [email]);
    expect(String(row?.password_hash)).toMatch(/^\$argon2id\$v=19\$m=7168,t=5,p=1\$/);
  });

  it('answers malformed bodies with 400 and a clear message', async () => {
    const bad: [string, unknown][] = [
      ['/api/enviar_codigo', {}],
      ['/api/enviar_codigo', { email: 'not-an-email' }],
      ['/api/enviar_codigo', { email: 42 }],
      ['/api/enviar_codigo', { email: 'a@b.co', language: 'fr' }],
      ['/api/registro', { email: 'a@b.co', password: GOOD_PASSWORD }],
      ['/api/registro', { email: 'a@b.co', password: GOOD_PASSWORD, codigo: '12ab56' }],
      ['/api/registro', { email: 'a@b.co', password: 12345678, codigo: '123456' }],
      ['/api/login', { email: 'a@b.co' }],
      ['/api/login', []],
    ];
    for (const [url, payload] of bad) {
      const r = await post(t, url, payload);
      expect(r.statusCode, `${url} ${JSON.stringify(payload)}`).toBe(400);
      expect(r.json().message).toMatch(/^Invalid request/);
    }
    // A missing field and a field of the wrong type are told apart.
    const told: [string, unknown, string][] = [
      ['/api/login', { email: 'a@b.co' }, 'Invalid request: password: password is required'],
      [
        '/api/login',
        { email: 'a@b.co', password: 12345678 },
        'Invalid request: password: password must be text',
      ],
      ['/api/login', { email: null, password: 'x' }, 'Invalid request: email: email is required'],
      ['/api/enviar_codigo', { email: 42 }, 'Invalid request: email: email must be text'],
      [
        '/api/registro',
        { email: 'a@b.co', password: GOOD_PASSWORD, codigo: 123456 },
        'Invalid request: codigo: code must be text',
      ],
    ];
    for (const [url, payload, message] of told) {
      const r = await post(t, url, payload);
      expect(r.statusCode).toBe(400);
      expect(r.json().message, `${url} ${JSON.stringify(payload)}`).toBe(message);
    }
    const notJson = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      headers: { 'content-type': 'application/json' },
      payload: '{oops',
    });
    expect(notJson.statusCode).toBe(400);
    expect(await count(t, `SELECT count(*) AS n FROM users WHERE email = 'a@b.co'`)).toBe(0);
  });
});

describe('registration closed', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp({ REGISTRATION_OPEN: 'false' });
  });
  afterAll(async () => t.close());

  it('tells the app and refuses codes and registrations with a clear message', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/config' })).json()).toEqual({
      registrationOpen: false,
    });
    const sent = await post(t, '/api/enviar_codigo', { email: 'closed@example.com' });
    expect(sent.statusCode).toBe(403);
    expect(sent.json().message).toMatch(/registration is temporarily unavailable/i);
    const reg = await post(t, '/api/registro', {
      email: 'closed@example.com',
      password: GOOD_PASSWORD,
      codigo: '123456',
    });
    expect(reg.statusCode).toBe(403);
    expect(
      fs.existsSync(t.ctx.config.mailOutboxDir) ? fs.readdirSync(t.ctx.config.mailOutboxDir) : [],
    ).toEqual([]);
  });
});

describe('login, sessions, /api/me, logout', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp({ SUPPORT_EMAILS: 'boss@example.com', LOGO_ALLOWLIST_EMAILS: 'fan@example.com' });
  });
  afterAll(async () => t.close());

  it('is open by default: /api/config says so', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/config' })).json()).toEqual({
      registrationOpen: true,
    });
  });

  it('logs in and /api/me answers the user with roles computed on the server', async () => {
    const email = uniqueEmail('me');
    await signUp(t, email);
    const token = await logIn(t, email.toUpperCase());
    expect(token.length).toBeGreaterThanOrEqual(22);
    const me = await t.app.inject({ method: 'GET', url: '/api/me', headers: bearer(token) });
    // Serialized by the route itself (the call every page makes): JSON, exactly the schema's fields.
    expect(me.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(me.json()).toEqual({
      loggedIn: true,
      user: {
        id: expect.any(String),
        email,
        has2FA: false,
        language: 'en',
        isSupport: false,
        canTrade: false,
        canOpenLogoArea: false,
      },
    });
  });

  it('gives the same answer for an unknown email and a wrong password', async () => {
    const email = uniqueEmail('wrong');
    await signUp(t, email);
    const a = await post(t, '/api/login', { email, password: 'not-the-password' });
    const b = await post(t, '/api/login', { email: uniqueEmail('nobody'), password: 'not-the-password' });
    expect(a.statusCode).toBe(401);
    expect(b.statusCode).toBe(401);
    expect(a.json()).toEqual(b.json());
    expect(a.json()).toMatchObject({ success: false, message: 'Invalid email or password.' });
  });

  it('signs in with a hash made by the old parameters and rewrites it with the current ones', async () => {
    const email = uniqueEmail('rehash');
    await signUp(t, email);
    const hashOf = async () =>
      String(
        (await t.ctx.database.sql.query('SELECT password_hash FROM users WHERE email = $1', [email]))[0]
          ?.password_hash,
      );
    // The default before 2026-11-24: 19 MiB, 2 iterations.
    const old = await hash(GOOD_PASSWORD, {
      algorithm: 2 as Algorithm,
      memoryCost: 19456,
      timeCost: 2,
      parallelism: 1,
    });
    await t.ctx.database.sql.query('UPDATE users SET password_hash = $1 WHERE email = $2', [old, email]);

    // A wrong password rewrites nothing.
    expect((await post(t, '/api/login', { email, password: 'not-the-password' })).statusCode).toBe(401);
    expect(await hashOf()).toBe(old);

    await logIn(t, email);
    const rewritten = await hashOf();
    expect(rewritten).toMatch(/^\$argon2id\$v=19\$m=7168,t=5,p=1\$/);
    await logIn(t, email);
    expect(await hashOf()).toBe(rewritten);
  });

  it('never lets a rehash at login overwrite a password changed meanwhile', async () => {
    const email = uniqueEmail('rehash-race');
    await signUp(t, email);
    const users = new UsersRepository(t.ctx.db);
    const row = await users.byEmail(email);
    const changed = await hashPassword('a-new-password-77');
    await users.setPassword(row!.id, changed);
    // The login read `row.passwordHash` before the change; its rewrite must not land.
    expect(await users.rehashPassword(row!.id, row!.passwordHash, 'x')).toBe(false);
    expect((await users.byEmail(email))?.passwordHash).toBe(changed);
    await logIn(t, email, 'a-new-password-77');
  });

  it('answers loggedIn:false with no token, a bad token or after logout', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/api/me' });
    expect(none.statusCode).toBe(200);
    expect(none.json()).toEqual({ loggedIn: false, user: null });
    const bad = await t.app.inject({ method: 'GET', url: '/api/me', headers: bearer('nope') });
    expect(bad.json()).toEqual({ loggedIn: false, user: null });

    const email = uniqueEmail('logout');
    await signUp(t, email);
    const token = await logIn(t, email);
    const other = await logIn(t, email);
    expect((await post(t, '/api/logout', {})).statusCode).toBe(401);
    expect((await post(t, '/api/logout', {}, token)).statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/me', headers: bearer(token) })).json().loggedIn,
    ).toBe(false);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/me', headers: bearer(other) })).json().loggedIn,
    ).toBe(true);
  });

  it('ends a session after 7 idle days or 30 days in all', async () => {
    const email = uniqueEmail('idle');
    await signUp(t, email);
    const idle = await logIn(t, email);
    const old = await logIn(t, email);
    const { sha256 } = await import('../src/lib/crypto');
    await t.ctx.database.sql.query(
      `UPDATE sessions SET last_seen_at = now() - interval '8 days' WHERE token_hash = $1`,
      [sha256(idle)],
    );
    await t.ctx.database.sql.query(
      `UPDATE sessions SET expires_at = now() - interval '1 second' WHERE token_hash = $1`,
      [sha256(old)],
    );
    for (const token of [idle, old]) {
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/me', headers: bearer(token) })).json().loggedIn,
      ).toBe(false);
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/check_2fa', headers: bearer(token) })).statusCode,
      ).toBe(401);
    }
  });

  it('marks support and logo allow-list accounts, and guards the logo area on the server', async () => {
    await signUp(t, 'boss@example.com');
    await signUp(t, 'fan@example.com');
    const boss = await logIn(t, 'boss@example.com');
    const fan = await logIn(t, 'fan@example.com');
    const bossMe = (await t.app.inject({ method: 'GET', url: '/api/me', headers: bearer(boss) })).json();
    const fanMe = (await t.app.inject({ method: 'GET', url: '/api/me', headers: bearer(fan) })).json();
    expect(bossMe.user).toMatchObject({ isSupport: true, canTrade: true, canOpenLogoArea: false });
    expect(fanMe.user).toMatchObject({ isSupport: false, canTrade: false, canOpenLogoArea: true });
    const denied = await t.app.inject({
      method: 'GET',
      url: '/api/peliculas-series/access',
      headers: bearer(boss),
    });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().message).toBe('Acceso denegado. Solo usuarios autorizados.');
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/peliculas-series/access', headers: bearer(fan) }))
        .statusCode,
    ).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/peliculas-series/access' })).statusCode).toBe(401);
  });

  it('stores the language for mails', async () => {
    const email = uniqueEmail('lang');
    await signUp(t, email);
    const token = await logIn(t, email);
    expect((await post(t, '/api/language', { language: 'de' }, token)).statusCode).toBe(400);
    expect((await post(t, '/api/language', { language: 'es' }, token)).statusCode).toBe(200);
    const me = (await t.app.inject({ method: 'GET', url: '/api/me', headers: bearer(token) })).json();
    expect(me.user.language).toBe('es');
    await post(t, '/api/enviar_codigo_cambio_password', {}, token);
    expect(mailsTo(t.ctx.config.mailOutboxDir, email)[0]?.subject).toBe(
      'Código para cambiar tu contraseña de BYTX',
    );
  });

  it('refuses every account call without a bearer (401) and with another user_id (403), changing nothing', async () => {
    const email = uniqueEmail('guard');
    await signUp(t, email);
    const token = await logIn(t, email);
    const calls: [string, string, unknown][] = [
      ['GET', '/api/check_2fa', undefined],
      ['POST', '/api/generate_2fa', {}],
      ['POST', '/api/disable_2fa', { code: '123456' }],
      ['POST', '/api/verify_2fa', { code: '123456' }],
      ['POST', '/api/enviar_codigo_cambio_password', {}],
      ['POST', '/api/cambiar_password', { nueva_password: 'brand-new-pass-1', email_code: '123456' }],
      ['DELETE', '/api/delete_account', undefined],
      ['POST', '/api/language', { language: 'es' }],
      ['POST', '/api/logout', {}],
    ];
    for (const [method, url, payload] of calls) {
      const res = await t.app.inject({ method: method as 'GET', url, payload: payload as object });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
    }
    for (const [method, url, payload] of calls) {
      if (url === '/api/verify_2fa') continue; // takes no user_id: identity is only the bearer
      const res = await t.app.inject({
        method: method as 'GET',
        url: `${url}?user_id=someone-else@example.com`,
        payload: payload as object,
        headers: bearer(token),
      });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
    }
    const viaBody = await post(t, '/api/generate_2fa', { user_id: 'someone-else@example.com' }, token);
    expect(viaBody.statusCode).toBe(403);
    // Nothing changed: no 2FA setup, no code, same language, account and session alive.
    expect(await count(t, 'SELECT count(*) AS n FROM user_totp')).toBe(0);
    expect(
      await count(
        t,
        `SELECT count(*) AS n FROM email_codes WHERE email = $1 AND purpose = 'password_change'`,
        [email],
      ),
    ).toBe(0);
    const me = (await t.app.inject({ method: 'GET', url: '/api/me', headers: bearer(token) })).json();
    expect(me).toMatchObject({ loggedIn: true, user: { language: 'en', has2FA: false } });
  });
});

describe('two-factor authentication', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp();
  });
  afterAll(async () => t.close());

  it('generates a QR and secret, turns on with a code, and login then needs a code', async () => {
    const email = uniqueEmail('tfa');
    await signUp(t, email);
    const token = await logIn(t, email);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/check_2fa', headers: bearer(token) })).json(),
    ).toEqual({
      success: true,
      has2FA: false,
    });
    const gen = await post(t, '/api/generate_2fa', {}, token);
    expect(gen.statusCode).toBe(200);
    const g = gen.json<{ qr: string; secret: string; otpauth_url: string }>();
    expect(g.qr).toMatch(/^data:image\/png;base64,/);
    expect(g.secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(g.otpauth_url).toContain(`secret=${g.secret}`);
    expect(g.otpauth_url).toMatch(/^otpauth:\/\/totp\/BYTX:/);

    const wrong = await post(t, '/api/verify_2fa', { code: totp(g.secret, 5) }, token);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().message).toBe('Invalid 2FA code. Please try again.');
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/check_2fa', headers: bearer(token) })).json().has2FA,
    ).toBe(false);

    const enableCode = totp(g.secret, -1);
    const on = await post(t, '/api/verify_2fa', { code: enableCode }, token);
    expect(on.statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/check_2fa', headers: bearer(token) })).json().has2FA,
    ).toBe(true);
    expect((await post(t, '/api/generate_2fa', {}, token)).statusCode).toBe(409);

    const login = await post(t, '/api/login', { email, password: GOOD_PASSWORD });
    const body = login.json<{ success: boolean; requires2FA: boolean; tempToken: string; token?: string }>();
    expect(body).toMatchObject({ success: true, requires2FA: true });
    expect(body.token).toBeUndefined();
    // The temporary token is good only for /api/verify_2fa.
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/me', headers: bearer(body.tempToken) })).json()
        .loggedIn,
    ).toBe(false);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/check_2fa', headers: bearer(body.tempToken) }))
        .statusCode,
    ).toBe(401);

    const replay = await post(t, '/api/verify_2fa', { code: enableCode }, body.tempToken);
    expect(replay.statusCode).toBe(400);
    expect(replay.json().message).toMatch(/already used/);

    const code = totp(g.secret, 0);
    const done = await post(t, '/api/verify_2fa', { code }, body.tempToken);
    expect(done.statusCode).toBe(200);
    const session = done.json<{ token: string }>().token;
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/me', headers: bearer(session) })).json().user.has2FA,
    ).toBe(true);
    // The temporary token is used up; the same code again is a replay.
    expect((await post(t, '/api/verify_2fa', { code: totp(g.secret, 1) }, body.tempToken)).statusCode).toBe(
      401,
    );
    const again = await post(t, '/api/login', { email, password: GOOD_PASSWORD });
    const replay2 = await post(t, '/api/verify_2fa', { code }, again.json<{ tempToken: string }>().tempToken);
    expect(replay2.statusCode).toBe(400);
  });

  it('expires the temporary token after 5 minutes', async () => {
    const email = uniqueEmail('temp');
    await signUp(t, email);
    const token = await logIn(t, email);
    const secret = await enable2fa(t, token);
    const login = await post(t, '/api/login', { email, password: GOOD_PASSWORD });
    const { tempToken } = login.json<{ tempToken: string }>();
    const [row] = await t.ctx.database.sql.query(
      `SELECT extract(epoch FROM expires_at - created_at) AS s FROM sessions WHERE kind = 'pending_2fa' ORDER BY created_at DESC LIMIT 1`,
    );
    expect(Number(row?.s)).toBe(300);
    await t.ctx.database.sql.query(
      `UPDATE sessions SET expires_at = now() - interval '1 second' WHERE kind = 'pending_2fa'`,
    );
    expect((await post(t, '/api/verify_2fa', { code: totp(secret, 0) }, tempToken)).statusCode).toBe(401);
  });

  it('locks 2FA checks for 15 minutes after 5 wrong codes', async () => {
    const email = uniqueEmail('lock');
    await signUp(t, email);
    const token = await logIn(t, email);
    const secret = await enable2fa(t, token);
    const { tempToken } = (await post(t, '/api/login', { email, password: GOOD_PASSWORD })).json<{
      tempToken: string;
    }>();
    const wrong = totp(secret, 10);
    for (let i = 0; i < 4; i++) {
      expect((await post(t, '/api/verify_2fa', { code: wrong }, tempToken)).statusCode).toBe(400);
    }
    const fifth = await post(t, '/api/verify_2fa', { code: wrong }, tempToken);
    expect(fifth.statusCode).toBe(429);
    expect(fifth.json().message).toMatch(/locked for 15 minutes/);
    const right = await post(t, '/api/verify_2fa', { code: totp(secret, 0) }, tempToken);
    expect(right.statusCode).toBe(429);
    // The lock covers every 2FA check of the account, disabling included.
    expect((await post(t, '/api/disable_2fa', { code: totp(secret, 0) }, token)).statusCode).toBe(429);
    await t.ctx.database.sql.query(`UPDATE user_totp SET locked_until = now() - interval '1 second'`);
    expect((await post(t, '/api/verify_2fa', { code: totp(secret, 0) }, tempToken)).statusCode).toBe(200);
  });

  it('disables 2FA only with a current code', async () => {
    const email = uniqueEmail('off');
    await signUp(t, email);
    const token = await logIn(t, email);
    const secret = await enable2fa(t, token);
    const noCode = await post(t, '/api/disable_2fa', {}, token);
    expect(noCode.statusCode).toBe(400);
    expect(noCode.json().error).toBe(DISABLE_2FA_CODE_NEEDED);
    expect((await post(t, '/api/disable_2fa', { code: 'abcdef' }, token)).statusCode).toBe(400);
    expect((await post(t, '/api/disable_2fa', { code: totp(secret, 7) }, token)).statusCode).toBe(400);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/check_2fa', headers: bearer(token) })).json().has2FA,
    ).toBe(true);
    const off = await post(t, '/api/disable_2fa', { code: totp(secret, 0) }, token);
    expect(off.statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/check_2fa', headers: bearer(token) })).json().has2FA,
    ).toBe(false);
    expect((await post(t, '/api/login', { email, password: GOOD_PASSWORD })).json().token).toEqual(
      expect.any(String),
    );
    // 2FA is off now: the spec's body-less call has nothing to do and says so.
    const again = await t.app.inject({ method: 'POST', url: '/api/disable_2fa', headers: bearer(token) });
    expect(again.statusCode).toBe(200);
    expect(again.json().message).toMatch(/already off/);
  });

  it('refuses verify_2fa in settings with no setup in progress', async () => {
    const email = uniqueEmail('nosetup');
    await signUp(t, email);
    const token = await logIn(t, email);
    const res = await post(t, '/api/verify_2fa', { code: '123456' }, token);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/Generate a QR code first/);
  });
});

describe('password change', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp();
  });
  afterAll(async () => t.close());

  it('needs the mailed code, revokes the other sessions, and the new password works', async () => {
    const email = uniqueEmail('pw');
    await signUp(t, email);
    const token = await logIn(t, email);
    const other = await logIn(t, email);
    expect((await post(t, '/api/enviar_codigo_cambio_password', {}, token)).statusCode).toBe(200);
    const code = await readLatestCode(t.ctx.config.mailOutboxDir, email);
    const wrong = code === '000000' ? '111111' : '000000';

    const bad = await post(
      t,
      '/api/cambiar_password',
      { nueva_password: 'brand-new-pass-1', email_code: wrong },
      token,
    );
    expect(bad.statusCode).toBe(400);
    const weak = await post(
      t,
      '/api/cambiar_password',
      { nueva_password: 'password', email_code: code },
      token,
    );
    expect(weak.statusCode).toBe(400);
    expect(
      (await post(t, '/api/cambiar_password', { nueva_password: 'brand-new-pass-1' }, token)).statusCode,
    ).toBe(400);
    await logIn(t, email); // unchanged so far

    const ok = await post(
      t,
      '/api/cambiar_password',
      { nueva_password: 'brand-new-pass-1', email_code: code, twofa_code: '' },
      token,
    );
    expect(ok.statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/me', headers: bearer(token) })).json().loggedIn,
    ).toBe(true);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/me', headers: bearer(other) })).json().loggedIn,
    ).toBe(false);
    expect((await post(t, '/api/login', { email, password: GOOD_PASSWORD })).statusCode).toBe(401);
    await logIn(t, email, 'brand-new-pass-1');
    // The code was used up.
    const reuse = await post(
      t,
      '/api/cambiar_password',
      { nueva_password: 'third-pass-000', email_code: code },
      token,
    );
    expect(reuse.statusCode).toBe(400);
    expect(mailsTo(t.ctx.config.mailOutboxDir, email)[0]?.subject).toBe('Your BYTX password was changed');
  });

  it('with 2FA on needs a valid, unused TOTP code too', async () => {
    const email = uniqueEmail('pw2fa');
    await signUp(t, email);
    const token = await logIn(t, email);
    const secret = await enable2fa(t, token);
    await post(t, '/api/enviar_codigo_cambio_password', {}, token);
    const code = await readLatestCode(t.ctx.config.mailOutboxDir, email);
    const missing = await post(
      t,
      '/api/cambiar_password',
      { nueva_password: 'brand-new-pass-2', email_code: code },
      token,
    );
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toMatch(/6-digit code from your authenticator/);
    const replay = await post(
      t,
      '/api/cambiar_password',
      { nueva_password: 'brand-new-pass-2', email_code: code, twofa_code: totp(secret, -1) },
      token,
    );
    expect(replay.statusCode).toBe(400);
    const ok = await post(
      t,
      '/api/cambiar_password',
      { nueva_password: 'brand-new-pass-2', email_code: code, twofa_code: totp(secret, 0) },
      token,
    );
    expect(ok.statusCode).toBe(200);
  });
});

describe('account deletion', () => {
  let t: TestApp;
  const hookCalls: string[] = [];
  let failFor: string | null = null;
  beforeAll(async () => {
    t = await makeTestApp();
    t.ctx.hooks.beforeUserDelete.push(async (userId) => {
      hookCalls.push(userId);
      if (userId === failFor) throw new Error('venue down');
    });
  });
  afterAll(async () => t.close());

  it('runs the hooks, deletes the user with everything (sessions, codes, 2FA) and login fails after', async () => {
    const email = uniqueEmail('del');
    await signUp(t, email);
    const token = await logIn(t, email);
    const other = await logIn(t, email);
    await enable2fa(t, token);
    await post(t, '/api/enviar_codigo_cambio_password', {}, token);
    const me = (await t.app.inject({ method: 'GET', url: '/api/me', headers: bearer(token) })).json();
    const res = await t.app.inject({ method: 'DELETE', url: '/api/delete_account', headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    expect(hookCalls).toContain(me.user.id);
    for (const table of [
      'users WHERE id = $1',
      'sessions WHERE user_id = $1',
      'user_totp WHERE user_id = $1',
      'email_codes WHERE user_id = $1',
    ]) {
      expect(await count(t, `SELECT count(*) AS n FROM ${table}`, [me.user.id]), table).toBe(0);
    }
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/me', headers: bearer(other) })).json().loggedIn,
    ).toBe(false);
    expect((await post(t, '/api/login', { email, password: GOOD_PASSWORD })).statusCode).toBe(401);
  });

  it('keeps the account when a hook fails', async () => {
    const email = uniqueEmail('keep');
    await signUp(t, email);
    const token = await logIn(t, email);
    const me = (await t.app.inject({ method: 'GET', url: '/api/me', headers: bearer(token) })).json();
    failFor = me.user.id;
    const res = await t.app.inject({ method: 'DELETE', url: '/api/delete_account', headers: bearer(token) });
    expect(res.statusCode).toBe(500);
    expect(res.json().message).toMatch(/bots could not be stopped/);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/me', headers: bearer(token) })).json().loggedIn,
    ).toBe(true);
  });
});
