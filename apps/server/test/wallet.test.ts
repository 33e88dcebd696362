import { WALLET_COINS } from '@bytx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestUser, makeTestApp, type TestApp } from './helpers';

type Json = Record<string, unknown>;

describe('wallet API', () => {
  let t: TestApp;
  let user: Awaited<ReturnType<typeof createTestUser>>;
  beforeAll(async () => {
    t = await makeTestApp();
    user = await createTestUser(t);
  });
  afterAll(async () => t?.close());

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: user.auth });
  const post = (url: string, payload: Json) =>
    t.app.inject({ method: 'POST', url, payload, headers: user.auth });

  it('needs a session', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/wallet' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/address' })).statusCode).toBe(401);
  });

  it('answers all 26 wallet coins at 0 and no addresses before any connection', async () => {
    const res = await get(`/api/wallet?user_id=${encodeURIComponent(user.email)}`);
    expect(res.statusCode).toBe(200);
    const body = res.json<{ balances: Record<string, number>; exchange: string | null }>();
    expect(Object.keys(body.balances).sort()).toEqual([...WALLET_COINS].sort());
    expect(Object.values(body.balances).every((v) => v === 0)).toBe(true);
    expect(body.exchange).toBeNull();
    expect((await get('/api/address')).json()).toEqual({});
    const gen = await post('/api/address', { symbol: 'BTC' });
    expect(gen.statusCode).toBe(400);
    expect(gen.json<Json>().success).toBe(false);
  });

  it('shows the paper account: 10,000 USDT and deterministic valid-format addresses', async () => {
    await post('/api/conectar_exchange', { exchange: 'binance', mode: 'paper' });
    const res = await get(`/api/wallet?user_id=${encodeURIComponent(user.email)}`);
    const body = res.json<{ balances: Record<string, number>; exchange: string; mode: string }>();
    expect(body).toMatchObject({ exchange: 'binance', mode: 'paper' });
    expect(body.balances.USDT).toBe(10000);
    expect(body.balances.BTC).toBe(0);
    expect(Object.keys(body.balances)).toHaveLength(26);

    const map = (await get('/api/address')).json<Record<string, string>>();
    expect(Object.keys(map).sort()).toEqual([...WALLET_COINS].sort());
    expect(map.ETH).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(map.ETH).not.toBe(map.ETH!.toLowerCase()); // EIP-55 mixed case
    expect(map.BTC).toMatch(/^bc1[02-9ac-hj-np-z]{20,}$/);
    expect(map.USDT).toMatch(/^0x[0-9a-fA-F]{40}$/);

    const gen = await post('/api/address', { symbol: 'btc', user_id: user.email });
    expect(gen.statusCode).toBe(200);
    expect(gen.json<{ address: string }>().address).toBe(map.BTC);
  });

  it('gives another user other addresses', async () => {
    const other = await createTestUser(t);
    await t.app.inject({
      method: 'POST',
      url: '/api/conectar_exchange',
      payload: { exchange: 'binance', mode: 'paper' },
      headers: other.auth,
    });
    const mine = (await get('/api/address')).json<Record<string, string>>();
    const theirs = (await t.app.inject({ method: 'GET', url: '/api/address', headers: other.auth })).json<
      Record<string, string>
    >();
    expect(theirs.BTC).toBeTruthy();
    expect(theirs.BTC).not.toBe(mine.BTC);
    expect(theirs.ETH).not.toBe(mine.ETH);
  });

  it('reflects trades on the paper account', async () => {
    const venue = await t.ctx.services.venues!.forUser(user.id, 'binance');
    await venue.createOrder({
      symbol: 'ETH/USDT',
      side: 'buy',
      type: 'market',
      amount: 0.5,
      clientOrderId: 'w-1',
    });
    const balances = (await get('/api/wallet')).json<{ balances: Record<string, number> }>().balances;
    expect(balances.ETH).toBe(0.5);
    expect(balances.USDT).toBeLessThan(10000);
  });

  it('refuses unknown coins and unconnected exchanges with 400', async () => {
    for (const payload of [{ symbol: 'DOGE' }, { symbol: '' }, {}, { symbol: 'BTC', exchange: 'okx' }]) {
      const res = await post('/api/address', payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json<Json>().success).toBe(false);
    }
    expect((await get('/api/wallet?exchange=okx')).statusCode).toBe(400);
    expect((await get('/api/wallet?exchange=nowhere')).statusCode).toBe(400);
  });
});
