import fs from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLatestCode } from '../../../e2e/helpers/accounts';
import { sealContext } from '../src/lib/crypto';
import { requireSupport } from '../src/modules/accounts/index';
import { makeTestApp, type TestApp } from './helpers';
import { GOOD_PASSWORD, logIn, nextIp, post, signUp, totp, uniqueEmail } from './accounts.helpers';

describe('secrets at rest', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp();
  });
  afterAll(async () => t.close());

  it('stores no session token, temporary token, email code or 2FA secret in plain text anywhere', async () => {
    const email = uniqueEmail('rest');
    await post(t, '/api/enviar_codigo', { email });
    const signupCode = await readLatestCode(t.ctx.config.mailOutboxDir, email);
    await post(t, '/api/registro', { email, password: GOOD_PASSWORD, codigo: signupCode });
    const token = await logIn(t, email);
    const gen = (await post(t, '/api/generate_2fa', {}, token)).json<{ secret: string }>();
    // A pending (not yet confirmed) secret, then the enabled one.
    const secret = gen.secret;
    expect((await post(t, '/api/verify_2fa', { code: totp(secret, -1) }, token)).statusCode).toBe(200);
    const { tempToken } = (await post(t, '/api/login', { email, password: GOOD_PASSWORD })).json<{
      tempToken: string;
    }>();
    await post(t, '/api/enviar_codigo_cambio_password', {}, token);
    const pwCode = await readLatestCode(t.ctx.config.mailOutboxDir, email);

    const needles = { token, tempToken, secret, signupCode, pwCode, password: GOOD_PASSWORD };
    const columns = await t.ctx.database.sql.query(
      `SELECT table_name, column_name FROM information_schema.columns
       WHERE table_schema = 'public' AND data_type IN ('text', 'character varying', 'jsonb', 'json', 'character')`,
    );
    expect(columns.length).toBeGreaterThan(5);
    const found: string[] = [];
    for (const { table_name, column_name } of columns) {
      for (const [name, value] of Object.entries(needles)) {
        // A 6-digit email code is searched as a whole number: the simulated market's snapshot
        // (sim_state) holds thousands of prices, and any 6 digits turn up inside one of them by
        // chance (it failed CI once: pwCode "in" sim_state.state). A plain code is still found,
        // alone in a text column or as a JSON string or number.
        const numeric = /^\d+$/.test(value);
        const rows = await t.ctx.database.sql.query(
          `SELECT count(*) AS n FROM "${String(table_name)}" WHERE "${String(column_name)}"::text ${
            numeric ? '~ $1' : 'LIKE $1'
          }`,
          [numeric ? `(^|[^0-9.])${value}([^0-9.]|$)` : `%${value}%`],
        );
        if (Number(rows[0]?.n) > 0) found.push(`${name} in ${String(table_name)}.${String(column_name)}`);
      }
    }
    expect(found).toEqual([]);
    // And the sealed secret really is there (the search would have found a plain one).
    const [row] = await t.ctx.database.sql.query('SELECT user_id::text AS u, secret_enc FROM user_totp');
    expect(String(row?.secret_enc)).toMatch(/^v2:/);
    expect(t.ctx.secretBox.open(String(row?.secret_enc), sealContext.totp(String(row?.u)))).toBe(secret);
  });
});

describe('rate limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp();
  });
  afterAll(async () => t.close());

  it('limits code sends per email (5 an hour) with a clear 429, the same for existing accounts', async () => {
    const email = uniqueEmail('perEmail');
    for (let i = 0; i < 5; i++) expect((await post(t, '/api/enviar_codigo', { email })).statusCode).toBe(200);
    const sixth = await post(t, '/api/enviar_codigo', { email });
    expect(sixth.statusCode).toBe(429);
    expect(sixth.json().message).toMatch(/Too many codes were requested for this email/);
  });

  it('limits code sends per address (20 in 10 minutes)', async () => {
    const ip = nextIp();
    for (let i = 0; i < 20; i++) {
      expect(
        (await post(t, '/api/enviar_codigo', { email: uniqueEmail(`ip${i}`) }, undefined, ip)).statusCode,
      ).toBe(200);
    }
    const res = await post(t, '/api/enviar_codigo', { email: uniqueEmail('ip-last') }, undefined, ip);
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({ success: false, message: expect.stringMatching(/Too many requests/) });
    // Another address is not affected.
    expect((await post(t, '/api/enviar_codigo', { email: uniqueEmail('ip-other') })).statusCode).toBe(200);
  });

  it('limits login attempts per address and email', async () => {
    const email = uniqueEmail('brute');
    await signUp(t, email);
    const ip = nextIp();
    for (let i = 0; i < 10; i++) {
      expect(
        (await post(t, '/api/login', { email, password: `wrong-${i}-pass` }, undefined, ip)).statusCode,
      ).toBe(401);
      // The per-account backoff (accounts-backoff.test.ts) is cleared: this test is about the route's limit.
      await t.ctx.database.sql.query('DELETE FROM login_backoff');
    }
    const limited = await post(t, '/api/login', { email, password: GOOD_PASSWORD }, undefined, ip);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().message).toMatch(/Too many requests/);
  });

  it('limits 2FA checks per address', async () => {
    const ip = nextIp();
    let last = 0;
    for (let i = 0; i < 21; i++) {
      last = (await post(t, '/api/verify_2fa', { code: '123456' }, 'no-such-token', ip)).statusCode;
    }
    expect(last).toBe(429);
  });
});

describe('mail', () => {
  it('writes every mail to the outbox and answers 502 when SMTP cannot take it', async () => {
    // A port that refuses connections: bind, note the port, close.
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const t = await makeTestApp({ SMTP_URL: `smtp://127.0.0.1:${port}` });
    try {
      const email = uniqueEmail('smtp');
      const res = await post(t, '/api/enviar_codigo', { email });
      expect(res.statusCode).toBe(502);
      expect(res.json().message).toBe('The email could not be sent. Please try again later.');
      expect(fs.readdirSync(t.ctx.config.mailOutboxDir).filter((f) => f.endsWith('.eml'))).toHaveLength(1);
    } finally {
      await t.close();
    }
  });
});

describe('requireSupport', () => {
  it('lets support accounts through and refuses others with 403', async () => {
    const guard = requireSupport({ SUPPORT_EMAILS: ['boss@example.com'], LOGO_ALLOWLIST_EMAILS: [] });
    const req = (email: string) =>
      ({ user: { id: '1', email, language: 'en', sessionId: 's' } }) as unknown as Parameters<
        typeof guard
      >[0];
    await expect(guard(req('Boss@Example.com'), {} as never)).resolves.toBeUndefined();
    await expect(guard(req('user@example.com'), {} as never)).rejects.toMatchObject({ statusCode: 403 });
  });
});
