import { EXCHANGE_KEYS, MISSING_KEYS_MESSAGE } from '@bytx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestUser, makeTestApp, type TestApp } from './helpers';

type Json = Record<string, unknown>;

describe('exchange connections API', () => {
  let t: TestApp;
  let user: Awaited<ReturnType<typeof createTestUser>>;
  let other: Awaited<ReturnType<typeof createTestUser>>;

  beforeAll(async () => {
    t = await makeTestApp();
    user = await createTestUser(t);
    other = await createTestUser(t);
  });
  afterAll(async () => t?.close());

  const post = (url: string, payload: unknown, headers = user.auth) =>
    t.app.inject({ method: 'POST', url, payload: payload as Json, headers });
  const countConnections = async () =>
    Number((await t.ctx.database.sql.query('SELECT count(*)::int AS n FROM exchange_connections'))[0]!.n);

  it('estado_conexion answers every one of the 20 keys, all false before any connection', async () => {
    const res = await post('/api/estado_conexion', { user_id: user.email });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ conexiones: Record<string, boolean> }>();
    expect(Object.keys(body.conexiones).sort()).toEqual([...EXCHANGE_KEYS].sort());
    expect(Object.keys(body.conexiones)).toHaveLength(20);
    expect(Object.values(body.conexiones).every((v) => v === false)).toBe(true);
  });

  it('needs a session', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/estado_conexion', payload: {} });
    expect(res.statusCode).toBe(401);
  });

  it("refuses another user's user_id with 403 on every call", async () => {
    for (const [url, body] of [
      ['/api/estado_conexion', { user_id: other.email }],
      ['/api/conectar_exchange', { exchange: 'binance', mode: 'paper', user_id: other.email }],
      ['/api/eliminar_exchange', { exchange: 'binance', user_id: other.id }],
    ] as const) {
      const res = await post(url, body);
      expect(res.statusCode, url).toBe(403);
      expect(res.json<Json>().success).toBe(false);
    }
    const wallet = await t.app.inject({
      method: 'GET',
      url: `/api/wallet?user_id=${encodeURIComponent(other.email)}`,
      headers: user.auth,
    });
    expect(wallet.statusCode).toBe(403);
    expect(await countConnections()).toBe(0);
  });

  it('answers live connects without both keys with the spec message, changing nothing', async () => {
    for (const body of [
      { exchange: 'binance', apiKey: 'k', user_id: user.email },
      { exchange: 'binance', apiSecret: 's' },
      { exchange: 'binance', apiKey: '   ', apiSecret: 's' },
      { exchange: 'binance', apiKey: '', apiSecret: '' },
    ]) {
      const res = await post('/api/conectar_exchange', body);
      expect(res.statusCode).toBe(400);
      expect(res.json<Json>()).toMatchObject({ success: false, error: MISSING_KEYS_MESSAGE });
    }
    expect(await countConnections()).toBe(0);
  });

  it('refuses bad bodies with 400 and a clear message, changing nothing', async () => {
    for (const [url, body, pattern] of [
      ['/api/conectar_exchange', { apiKey: 'k', apiSecret: 's' }, /exchange/],
      [
        '/api/conectar_exchange',
        { exchange: 'notanexchange', mode: 'paper' },
        /Unknown exchange: notanexchange/,
      ],
      ['/api/conectar_exchange', { exchange: 'binance', mode: 'demo' }, /mode/],
      ['/api/conectar_exchange', { exchange: 42, mode: 'paper' }, /exchange/],
      ['/api/conectar_exchange', { exchange: 'binance', apiKey: 'k'.repeat(600), apiSecret: 's' }, /apiKey/],
      ['/api/eliminar_exchange', {}, /exchange/],
      ['/api/eliminar_exchange', { exchange: 'nope' }, /Unknown exchange/],
    ] as const) {
      const res = await post(url, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      const json = res.json<{ success: boolean; error: string }>();
      expect(json.success).toBe(false);
      expect(json.error).toMatch(pattern);
    }
    const notJson = await t.app.inject({
      method: 'POST',
      url: '/api/conectar_exchange',
      payload: '{"exchange":',
      headers: { ...user.auth, 'content-type': 'application/json' },
    });
    expect(notJson.statusCode).toBe(400);
    expect(await countConnections()).toBe(0);
  });

  it('answers a clear error for the exchanges ccxt no longer has (bittrex, zb, ascendex)', async () => {
    for (const exchange of ['bittrex', 'zb', 'ascendex']) {
      const res = await post('/api/conectar_exchange', {
        exchange,
        apiKey: 'key-123',
        apiSecret: 'secret-123',
        user_id: user.email,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json<{ error: string }>().error).toMatch(/is not available/);
    }
    expect(await countConnections()).toBe(0);
  });
});
