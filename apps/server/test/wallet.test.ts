import { PAPER_ADDRESS_PREFIX, WALLET_COINS, WALLET_RESET_MESSAGES } from '@bytx/contract';
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

  const q = <R>(text: string, params?: unknown[]) => t.ctx.database.sql.query(text, params) as Promise<R[]>;
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
    // Every paper address is marked simulated (PAPER-…), so no wallet accepts it as a destination;
    // behind the prefix it keeps its chain's format.
    for (const [coin, address] of Object.entries(map)) {
      expect(address.startsWith(PAPER_ADDRESS_PREFIX), coin).toBe(true);
      expect(address.indexOf(PAPER_ADDRESS_PREFIX, 1), coin).toBe(-1); // marked once
    }
    const raw = (coin: string) => map[coin]!.slice(PAPER_ADDRESS_PREFIX.length);
    expect(raw('ETH')).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(raw('ETH')).not.toBe(raw('ETH').toLowerCase()); // EIP-55 mixed case
    expect(raw('BTC')).toMatch(/^bc1[02-9ac-hj-np-z]{20,}$/);
    expect(raw('USDT')).toMatch(/^0x[0-9a-fA-F]{40}$/);

    const gen = await post('/api/address', { symbol: 'btc', user_id: user.email });
    expect(gen.statusCode).toBe(200);
    expect(gen.json<{ address: string; simulated: boolean }>()).toMatchObject({
      address: map.BTC,
      simulated: true,
    });
    // Stored after Generate, read back from the table: still marked once.
    expect((await get('/api/address')).json<Record<string, string>>().BTC).toBe(map.BTC);
  });

  it('takes an optional network code on Generate and refuses a malformed one with a 400', async () => {
    // Additive (issue 38 point 5): a network code is accepted; a paper address is the same either way.
    const ok = await post('/api/address', { symbol: 'USDT', network: 'TRC20' });
    expect(ok.statusCode).toBe(200);
    for (const network of ['TRC 20', 'x'.repeat(33), '', 5]) {
      const bad = await post('/api/address', { symbol: 'USDT', network });
      expect(bad.statusCode, String(network)).toBe(400);
      expect(JSON.stringify(bad.json()), String(network)).toMatch(/network/);
    }
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

  it('resets a paper account to 10,000 USDT; refused for live (400) and while bots run (409)', async () => {
    const venue = await t.ctx.services.venues!.forUser(user.id, 'binance');
    await venue.createOrder({
      symbol: 'BTC/USDT',
      side: 'buy',
      type: 'market',
      amount: 0.01,
      clientOrderId: 'w-2',
    });
    const before = (await get('/api/wallet?exchange=binance')).json<{ balances: Record<string, number> }>();
    expect(before.balances.BTC).toBeGreaterThan(0);
    expect(before.balances.USDT).toBeLessThan(10000);

    // Bad input: 400, nothing changes.
    for (const payload of [{}, { exchange: 'nowhere' }, { exchange: 7 }, { exchange: 'okx' }]) {
      const res = await post('/api/wallet/reset', payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
    }
    expect((await t.app.inject({ method: 'POST', url: '/api/wallet/reset', payload: {} })).statusCode).toBe(
      401,
    );

    // A running bot on the account: 409 with a clear message, balances untouched.
    const [bot] = await q<{ id: string }>(
      `INSERT INTO bots (user_id, kind, exchange, symbol, config, state, status)
       VALUES ($1, 'grid-dca', 'binance', 'ETH/USDT', '{}'::jsonb, '{}'::jsonb, 'active') RETURNING id`,
      [user.id],
    );
    const busy = await post('/api/wallet/reset', { exchange: 'binance' });
    expect(busy.statusCode).toBe(409);
    expect(busy.json<Json>()).toMatchObject({ success: false, code: 'bots_running', running: 1 });
    expect(busy.json<{ error: string }>().error).toContain('Stop the 1 bot(s)');
    const still = (await get('/api/wallet?exchange=binance')).json<{ balances: Record<string, number> }>();
    expect(still.balances.BTC).toBe(before.balances.BTC);
    await q(`UPDATE bots SET status = 'stopped' WHERE id = $1`, [bot!.id]);

    const res = await post('/api/wallet/reset', { exchange: 'binance', user_id: user.email });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<{ success: boolean; message: string; balances: Record<string, number> }>();
    expect(body.success).toBe(true);
    expect(body.message).toBe(WALLET_RESET_MESSAGES.done.replace('{usdt}', '10,000'));
    expect(body.balances.USDT).toBe(10000);
    expect(body.balances.BTC).toBe(0);
    const after = (await get('/api/wallet?exchange=binance')).json<{ balances: Record<string, number> }>();
    expect(after.balances.USDT).toBe(10000);
    expect(after.balances.BTC).toBe(0);
    // The new account is stored: a fresh venue (a restart) reads the seed, not the old balances.
    const [stored] = await q<{ balances: Record<string, { free: number }> }>(
      `SELECT balances FROM paper_accounts WHERE user_id = $1 AND exchange = 'binance'`,
      [user.id],
    );
    expect(stored?.balances.USDT?.free).toBe(10000);
    expect(stored?.balances.BTC?.free ?? 0).toBe(0);
    // The addresses stay the same (derived from the user and coin).
    expect((await get('/api/address')).json<Record<string, string>>().BTC).toMatch(/^PAPER-bc1/);
  });

  it('refuses to reset a live account with 400', async () => {
    const other = await createTestUser(t);
    await q(`INSERT INTO exchange_connections (user_id, exchange, mode) VALUES ($1, 'bybit', 'live')`, [
      other.id,
    ]);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/wallet/reset',
      payload: { exchange: 'bybit' },
      headers: other.auth,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json<Json>()).toMatchObject({ error: WALLET_RESET_MESSAGES.live, code: 'live' });
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
