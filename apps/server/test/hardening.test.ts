/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers read loosely */
import net from 'node:net';
import { Writable } from 'node:stream';
import { DCA_MESSAGES, DISABLE_2FA_CODE_NEEDED, fillMessage, LIMITS } from '@bytx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { loggerOptions, redactUrl } from '../src/app';
import { users } from '../src/db/schema/index';
import { apiCaller, createTestUser, makeTestApp, testConfig, type TestApp } from './helpers';
import { until } from './bots.helpers';
import { openTestDatabase } from './db-snapshot';

type User = Awaited<ReturnType<typeof createTestUser>>;
type Json = Record<string, any>;

const EX = 'binance';
const SYM = 'BTC/USDT';

const json = { 'content-type': 'application/json' };

describe('hardening: the input rules every request obeys', () => {
  let t: TestApp;
  let alice: User;

  const call = apiCaller(() => t.app);

  beforeAll(async () => {
    t = await makeTestApp({ SIMULATOR_CONTROL: '1', BOT_RUNNER: '1', MAX_BOTS_PER_USER: '2' });
    alice = await createTestUser(t);
    expect(
      (await call(alice, 'POST', '/api/conectar_exchange', { exchange: EX, mode: 'paper' })).status,
    ).toBe(200);
  });
  afterAll(async () => t.close());

  it("takes the spec's body-less POSTs with no body, an empty JSON body or {}", async () => {
    const variants = [
      (u: User) => ({ headers: u.auth }),
      (u: User) => ({ headers: { ...u.auth, ...json }, payload: '' }),
      (u: User) => ({ headers: { ...u.auth, ...json }, payload: '{}' }),
    ];
    for (const variant of variants) {
      const u = await createTestUser(t);
      const gen = await t.app.inject({ method: 'POST', url: '/api/generate_2fa', ...variant(u) });
      expect(gen.statusCode, gen.body).toBe(200);
      expect(gen.json().secret).toEqual(expect.any(String));
      const code = await t.app.inject({
        method: 'POST',
        url: '/api/enviar_codigo_cambio_password',
        ...variant(u),
        remoteAddress: `10.9.0.${variants.indexOf(variant) + 1}`,
      });
      expect(code.statusCode, code.body).toBe(200);
      // 2FA is off: nothing to disable, and the call says so.
      const off = await t.app.inject({ method: 'POST', url: '/api/disable_2fa', ...variant(u) });
      expect(off.statusCode, off.body).toBe(200);
      const del = await t.app.inject({ method: 'DELETE', url: '/api/delete_account', ...variant(u) });
      expect(del.statusCode, del.body).toBe(200);
      expect(await t.ctx.db.$count(users)).toBeGreaterThan(0);
      const me = await t.app.inject({ method: 'GET', url: '/api/me', headers: u.auth });
      expect(me.json().loggedIn).toBe(false);
    }
  });

  it('asks for the code when 2FA is on and disable_2fa comes without one', async () => {
    const u = await createTestUser(t);
    const gen = await call(u, 'POST', '/api/generate_2fa');
    const { generateSync } = await import('otplib');
    const token = generateSync({ secret: gen.body.secret });
    expect((await call(u, 'POST', '/api/verify_2fa', { code: token })).status).toBe(200);
    const res = await t.app.inject({ method: 'POST', url: '/api/disable_2fa', headers: u.auth });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe(DISABLE_2FA_CODE_NEEDED);
  });

  it('refuses a control character anywhere with a 400 naming the field, before any database work', async () => {
    const cases: [string, string, Json][] = [
      ['POST', '/api/login', { email: 'a\u0000@example.com', password: 'x' }],
      [
        'POST',
        '/api/start_bot_dca',
        { symbol: 'BTC/USDT\u0000', exchange: EX, amount: 20, tp: 1, separacion: 1, os: 3 },
      ],
      ['POST', '/api/stop_bot_dca', { exchange: EX, symbol: 'BTC\u0000' }],
      ['POST', '/api/actualizar_bot_dca', { exchange: EX, symbol: SYM, sl: '1\u0000' }],
      ['POST', '/api/update_sl', { exchange: EX, symbol: SYM, sl: '\u0001' }],
      ['POST', '/api/update_tp_plus', { exchange: 'bin\u001fance', symbol: SYM, tp_plus: 1 }],
      ['POST', '/api/dca/relocate', { exchange: EX, symbol: '\u0000' }],
      ['POST', '/api/dca/ra/toggle', { exchange: EX, symbol: '\u0000', enabled: true }],
      ['POST', '/api/min_cost', { exchange: EX, symbol: 'BTC/\u0000USDT' }],
      ['POST', '/api/pnls_actuales', { bots: [{ exchange: EX, symbol: 'x\u0000' }] }],
      ['POST', '/api/forum/posts', { content: 'hi\u0000' }],
    ];
    for (const [method, url, body] of cases) {
      const res = await call(alice, method, url, body);
      expect(res.status, `${url} ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error).toMatch(/body\.\S+ contains a control character/);
    }
    const inQuery = await call(alice, 'GET', `/api/dca/pending_orders?exchange=bin%00ance`);
    expect(inQuery.status).toBe(400);
    expect(inQuery.body.field).toBe('query.exchange');
    const inKey = await call(alice, 'POST', '/api/pnls_actuales', { ['a\u0000']: 1 });
    expect(inKey.status).toBe(400);
  });

  it('tells a missing text field from one of another type', async () => {
    const cases: [string, Json, string][] = [
      ['/api/stop_bot_dca', { exchange: EX }, 'symbol: symbol is required'],
      ['/api/stop_bot_dca', { exchange: EX, symbol: null }, 'symbol: symbol is required'],
      ['/api/stop_bot_dca', { exchange: EX, symbol: 42 }, 'symbol: symbol must be text'],
      ['/api/conectar_exchange', { exchange: 7, mode: 'paper' }, 'exchange: exchange must be text'],
      ['/api/conectar_exchange', { mode: 'paper' }, 'exchange: exchange is required'],
      ['/api/address', { symbol: 7 }, 'symbol: symbol must be text'],
      ['/api/address', {}, 'symbol: symbol is required'],
      ['/api/dca/pending_orders/add_funds', { id: 12, amount_quote: '10' }, 'id: must be text'],
      ['/api/dca/pending_orders/add_funds', { amount_quote: '10' }, 'id: is required'],
    ];
    for (const [url, body, reason] of cases) {
      const res = await call(alice, 'POST', url, body);
      expect(res.status, `${url} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.error, `${url} ${JSON.stringify(body)}`).toBe(`Invalid request: ${reason}`);
    }
  });

  it('refuses non-finite, out-of-range and deeply nested numbers; the market keeps serving', async () => {
    const raw = async (body: string) =>
      t.app.inject({ method: 'POST', url: '/api/dev/market/price', headers: json, payload: body });
    expect((await raw(`{"exchange":"${EX}","symbol":"${SYM}","price":1e400}`)).statusCode).toBe(400);
    for (const price of [1e308, LIMITS.maxPrice * 1.01, 0, -5, 1e-320]) {
      const res = await raw(JSON.stringify({ exchange: EX, symbol: SYM, price }));
      expect(res.statusCode, `${price}: ${res.body}`).toBe(400);
    }
    // Below the pair's tick: refused, never clamped.
    const tick = await raw(JSON.stringify({ exchange: EX, symbol: SYM, price: 0.001 }));
    expect(tick.statusCode).toBe(400);
    expect(tick.json().error).toMatch(/tick size/);
    const deep = await raw(`{"exchange":${'['.repeat(5000)}${']'.repeat(5000)}}`);
    expect(deep.statusCode).toBe(400);
    expect(deep.json().error).toMatch(/nested too deeply/);
    const ticker = await call(null, 'GET', '/api/ticker');
    expect(ticker.status).toBe(200);
    const price = await call(null, 'GET', `/api/precio?exchange=${EX}&symbol=${encodeURIComponent(SYM)}`);
    expect(Number.isFinite(price.body.price)).toBe(true);
    expect(price.body.price).toBeGreaterThan(1000);
  });

  it('keeps start amounts, TP and separation inside their documented ranges', async () => {
    const start = (over: Json) =>
      call(alice, 'POST', '/api/start_bot_dca', {
        symbol: 'ETH/USDT',
        amount: 20,
        tp: 1,
        separacion: 1,
        os: 3,
        exchange: EX,
        ...over,
      });
    expect((await start({ amount: 2e9 })).body.error).toBe(DCA_MESSAGES.amountTooHigh);
    expect((await start({ tp: 5000 })).body.error).toBe(DCA_MESSAGES.tpTooHigh);
    expect((await start({ separacion: 100 })).body.error).toBe(DCA_MESSAGES.sepTooHigh);
    expect((await start({ os: 101 })).status).toBe(400);
    expect((await call(alice, 'GET', '/api/bots_activos_dca')).body.bots).toEqual([]);
  });

  it('puts SL below and TP+ above the price of a LONG bot, clears them when empty, caps bots per user', async () => {
    await call(null, 'POST', '/api/dev/market/price', { exchange: EX, symbol: SYM, price: 50_000 });
    const started = await call(alice, 'POST', '/api/start_bot_dca', {
      symbol: SYM,
      amount: 20,
      tp: 1,
      separacion: 1,
      os: 2,
      exchange: EX,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const pair = { exchange: EX, symbol: SYM };
    const bad: [string, Json, RegExp][] = [
      ['/api/update_sl', { sl: 60_000 }, /SL must be below the current price \(50000\)/],
      ['/api/update_sl', { sl: 50_000 }, /SL must be below/],
      ['/api/update_sl', { sl: -1 }, /greater than 0/],
      ['/api/update_sl', { sl: 0 }, /greater than 0/],
      ['/api/update_sl', { sl: '1e12' }, /at most/],
      ['/api/update_tp_plus', { tp_plus: 40_000 }, /TP\+ must be above the current price/],
      ['/api/actualizar_bot_dca', { tp_plus: 'abc' }, /TP\+ must be a price/],
    ];
    for (const [url, body, message] of bad) {
      const res = await call(alice, 'POST', url, { ...pair, ...body });
      expect(res.status, url).toBe(400);
      expect(res.body.error).toMatch(message);
    }
    let bot = (await call(alice, 'GET', '/api/bots_activos_dca')).body.bots[0];
    expect([bot.sl, bot.tp_plus]).toEqual([null, null]);
    expect((await call(alice, 'POST', '/api/update_sl', { ...pair, sl: '45000,5' })).status).toBe(200);
    expect((await call(alice, 'POST', '/api/update_tp_plus', { ...pair, tp_plus: 55_000 })).status).toBe(200);
    bot = (await call(alice, 'GET', '/api/bots_activos_dca')).body.bots[0];
    expect([bot.sl, bot.tp_plus]).toEqual([45_000.5, 55_000]);
    expect((await call(alice, 'POST', '/api/update_sl', { ...pair, sl: '' })).status).toBe(200);
    bot = (await call(alice, 'GET', '/api/bots_activos_dca')).body.bots[0];
    expect(bot.sl).toBeNull();

    // MAX_BOTS_PER_USER=2 in this app: a second bot starts, a third is refused with the reason.
    const second = await call(alice, 'POST', '/api/start_bot_dca', {
      ...pair,
      symbol: 'ETH/USDT',
      amount: 20,
      tp: 1,
      separacion: 1,
      os: 2,
    });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const third = await call(alice, 'POST', '/api/start_bot_dca', {
      ...pair,
      symbol: 'SOL/USDT',
      amount: 20,
      tp: 1,
      separacion: 1,
      os: 2,
    });
    expect(third.status).toBe(409);
    expect(third.body.error).toBe(fillMessage(DCA_MESSAGES.tooManyBots, { max: 2 }));
    expect((await call(alice, 'GET', '/api/bots_activos_dca')).body.bots).toHaveLength(2);
  });

  it('keeps MAX_BOTS_PER_USER when starts arrive at once: exactly the cap starts, the rest are refused', async () => {
    const carol = await createTestUser(t);
    const conn = await call(carol, 'POST', '/api/conectar_exchange', { exchange: 'binance', mode: 'paper' });
    expect(conn.status).toBe(200);
    const symbols = ['BTC/USDT', 'ETH/USDT', 'SOL/USDT', 'XRP/USDT', 'LTC/USDT'];
    const answers = await Promise.all(
      symbols.map((symbol) =>
        call(carol, 'POST', '/api/start_bot_dca', {
          exchange: 'binance',
          symbol,
          amount: 20,
          tp: 1,
          separacion: 1,
          os: 2,
          apartado: 'Spot',
        }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses, JSON.stringify(answers.map((a) => a.body))).toEqual([200, 200, 409, 409, 409]);
    for (const a of answers.filter((x) => x.status === 409)) {
      expect(a.body.error).toBe(fillMessage(DCA_MESSAGES.tooManyBots, { max: 2 }));
    }
    expect((await call(carol, 'GET', '/api/bots_activos_dca')).body.bots).toHaveLength(2);
    const [{ n }] = (await t.ctx.database.sql.query(
      `SELECT count(*)::int AS n FROM bots WHERE user_id = $1`,
      [carol.id],
    )) as [{ n: number }];
    expect(n, 'refused starts leave no bot behind').toBe(2);
  });

  it('answers 401 before validating anything on every route that needs a session, and says so in OpenAPI', async () => {
    const doc = t.app.swagger() as { paths: Record<string, Record<string, { security?: unknown }>> };
    const authRoutes = t.app.routeTable.filter((r) => r.authenticated && r.method !== 'HEAD');
    expect(authRoutes.length).toBeGreaterThan(30);
    const missing: string[] = [];
    for (const r of authRoutes) {
      const path = r.url.replace(/:(\w+)/g, '{$1}');
      const op = doc.paths[path]?.[r.method.toLowerCase()];
      if (!op) missing.push(`${r.method} ${r.url}: not in the OpenAPI document`);
      else if (JSON.stringify(op.security) !== JSON.stringify([{ bearer: [] }]))
        missing.push(`${r.method} ${r.url}: no bearer requirement`);
      const url = r.url.replace(/:(\w+)/g, '%00');
      const res = await t.app.inject({
        method: r.method as 'POST',
        url: `${url}?page=-1&user_id=%00`,
        ...(r.method === 'GET' ? {} : { headers: json, payload: '{"amount":[1e400],"x":"\\u0000"}' }),
      });
      if (res.statusCode !== 401) missing.push(`${r.method} ${r.url}: ${res.statusCode} without a session`);
    }
    expect(missing).toEqual([]);
    // And every API route of the table is documented.
    const undocumented = t.app.routeTable
      .filter((r) => r.url.startsWith('/api/') && r.method !== 'HEAD' && !r.url.startsWith('/api/docs'))
      .filter((r) => !doc.paths[r.url.replace(/:(\w+)/g, '{$1}')]?.[r.method.toLowerCase()]);
    expect(undocumented).toEqual([]);
  });

  it('sends Cache-Control: no-store on answers that depend on the session', async () => {
    for (const url of ['/api/me', '/api/bots_activos_dca', '/api/check_2fa', '/api/exchanges/connections']) {
      const res = await t.app.inject({ method: 'GET', url, headers: alice.auth });
      expect(res.headers['cache-control'], url).toBe('no-store');
    }
    const login = await call(null, 'POST', '/api/login', { email: alice.email, password: 'wrong password' });
    expect(login.headers['cache-control']).toBe('no-store');
  });
});

describe('hardening: the server under abuse', () => {
  it('throttles failed logins per address across emails, with Retry-After; other addresses go on', async () => {
    const t = await makeTestApp({ LOGIN_FAILURES_PER_ADDRESS: '5' });
    try {
      const u = await createTestUser(t);
      const login = (email: string, password: string, ip: string) =>
        t.app.inject({ method: 'POST', url: '/api/login', payload: { email, password }, remoteAddress: ip });
      for (let i = 0; i < 5; i++) {
        // One password on five different emails (most of them unknown): each is a plain 401.
        expect((await login(`spray${i}@example.com`, 'Summer2026!', '10.1.1.1')).statusCode).toBe(401);
      }
      const blocked = await login(u.email, 'correct horse battery', '10.1.1.1');
      expect(blocked.statusCode).toBe(429);
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      expect(blocked.json().error).toMatch(/Too many requests\. Please try again in \d+ seconds\./);
      const elsewhere = await login(u.email, 'correct horse battery', '10.2.2.2');
      expect(elsewhere.statusCode).toBe(200);
      expect(elsewhere.json().token).toEqual(expect.any(String));
    } finally {
      await t.close();
    }
  });

  it('sheds API requests over the in-flight limit and its queue with 503 + Retry-After while health and login answer', async () => {
    // 3 worked on, 10 waiting: the rest of the burst is the excess (load-shedding.test.ts for the queue).
    const t = await makeTestApp({ SHED_MAX_IN_FLIGHT: '3', SHED_MAX_QUEUED: '10' });
    try {
      const u = await createTestUser(t);
      const flood = Array.from({ length: 60 }, () =>
        t.app.inject({ method: 'GET', url: '/api/bots_activos_dca', headers: u.auth }),
      );
      // Shedding comes before the session lookup: with no session, a refused call is a 503, not a 401.
      const anonymous = Array.from({ length: 20 }, () =>
        t.app.inject({ method: 'GET', url: '/api/bots_activos_dca' }),
      );
      const health = Array.from({ length: 5 }, () => t.app.inject({ method: 'GET', url: '/api/health' }));
      const login = t.app.inject({
        method: 'POST',
        url: '/api/login',
        payload: { email: u.email, password: 'correct horse battery' },
      });
      const answers = await Promise.all(flood);
      const shed = answers.filter((r) => r.statusCode === 503);
      expect(shed.length).toBeGreaterThan(0);
      expect(answers.filter((r) => r.statusCode === 200).length).toBeGreaterThanOrEqual(13);
      expect(answers.every((r) => r.statusCode === 200 || r.statusCode === 503)).toBe(true);
      expect(shed[0]!.headers['retry-after']).toBe('1');
      expect(shed[0]!.json().error).toMatch(/busy/);
      const anonymousCodes = (await Promise.all(anonymous)).map((r) => r.statusCode);
      expect(anonymousCodes.every((c) => c === 503 || c === 401)).toBe(true);
      expect(anonymousCodes).toContain(503);
      for (const h of await Promise.all(health)) expect(h.statusCode).toBe(200);
      expect((await login).statusCode).toBe(200);
      // The flood is over: nothing stays counted.
      const after = await t.app.inject({ method: 'GET', url: '/api/bots_activos_dca', headers: u.auth });
      expect(after.statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('disconnects a client that sends half a request', async () => {
    const config = testConfig({ HTTP_REQUEST_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '1000' });
    const database = await openTestDatabase();
    const { app } = await buildApp(config, { database, logger: false });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const port = (app.server.address() as net.AddressInfo).port;
      const halfSent = async (text: string) => {
        const socket = net.connect(port, '127.0.0.1');
        const t0 = Date.now();
        socket.on('error', () => undefined);
        socket.on('data', () => undefined);
        socket.write(text);
        await new Promise<void>((r) => socket.once('close', () => r()));
        return Date.now() - t0;
      };
      const headers = halfSent('GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ');
      const body = halfSent(
        'POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"em',
      );
      const [h, b] = await Promise.all([headers, body]);
      // Closed by the server's deadline (1 s, checked every second), long before the 30 s idle timeout.
      expect(h).toBeLessThan(5_000);
      expect(b).toBeLessThan(5_000);
    } finally {
      await app.close();
      await database.close();
    }
  });

  it('deletes an account with many running bots, stopping them side by side', async () => {
    const t = await makeTestApp({ SIMULATOR_CONTROL: '1', BOT_RUNNER: '1' });
    try {
      const u = await createTestUser(t);
      await t.app.inject({
        method: 'POST',
        url: '/api/conectar_exchange',
        headers: u.auth,
        payload: { exchange: EX, mode: 'paper' },
      });
      const symbols = ['BTC', 'ETH', 'SOL', 'BNB', 'XRP', 'LTC', 'DOT', 'AVAX', 'ADA', 'LINK'].map(
        (b) => `${b}/USDT`,
      );
      for (const symbol of symbols) {
        const r = await t.app.inject({
          method: 'POST',
          url: '/api/start_bot_dca',
          headers: u.auth,
          payload: { exchange: EX, symbol, amount: 20, tp: 1, separacion: 1, os: 3 },
        });
        expect(r.statusCode, r.body).toBe(200);
      }
      const t0 = Date.now();
      const del = await t.app.inject({ method: 'DELETE', url: '/api/delete_account', headers: u.auth });
      const ms = Date.now() - t0;
      expect(del.statusCode).toBe(200);
      console.log(`[hardening] account with ${symbols.length} running bots deleted in ${ms} ms`);
      // Nothing of the user is left trading: no open paper order on the venue.
      const open = await t.ctx.database.sql.query(
        `SELECT count(*)::int AS n FROM paper_orders WHERE status = 'open'`,
      );
      expect(open[0]!.n).toBe(0);
    } finally {
      await t.close();
    }
  });
});

describe('hardening: logs', () => {
  it('never writes the email of user_id, user, email or token query values', async () => {
    expect(redactUrl('/api/x?user_id=a%40b.com&page=2&Token=abc&user=z')).toBe(
      '/api/x?user_id=[redacted]&page=2&Token=[redacted]&user=[redacted]',
    );
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const database = await openTestDatabase();
    const { app, ctx } = await buildApp(testConfig(), { database, logger: loggerOptions('debug', stream) });
    try {
      await app.ready();
      const u = await createTestUser({ app, ctx });
      await app.inject({
        method: 'GET',
        url: `/api/bots_activos_dca?user_id=${encodeURIComponent(u.email)}`,
        headers: u.auth,
      });
      await app.inject({ method: 'GET', url: `/api/apartado_usuario?email=${u.email}&user=${u.email}` });
      await until(async () => lines.some((l) => l.includes('/api/apartado_usuario')));
      const log = lines.join('');
      expect(log).toContain('/api/bots_activos_dca?user_id=[redacted]');
      expect(log).not.toContain(u.email);
      expect(log).not.toContain(encodeURIComponent(u.email));
    } finally {
      await app.close();
      await database.close();
    }
  });
});
