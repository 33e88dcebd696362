import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/client';
import type { DbVenueRegistry } from '../src/modules/exchanges/venue-registry';
import { createTestUser, makeTestApp, tempDir, type TestApp } from './helpers';

type Json = Record<string, unknown>;

describe('paper connections', () => {
  let t: TestApp;
  let user: Awaited<ReturnType<typeof createTestUser>>;
  beforeAll(async () => {
    t = await makeTestApp();
    user = await createTestUser(t);
  });
  afterAll(async () => t?.close());

  const post = (url: string, payload: Json) =>
    t.app.inject({ method: 'POST', url, payload, headers: user.auth });
  const status = async () =>
    (await post('/api/estado_conexion', { user_id: user.email })).json<{
      conexiones: Record<string, boolean>;
    }>().conexiones;

  it('connects a paper Binance account without keys, shown in estado_conexion and the list', async () => {
    const res = await post('/api/conectar_exchange', {
      exchange: 'binance',
      mode: 'paper',
      user_id: user.email,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json<Json>()).toMatchObject({ success: true, mode: 'paper', exchange: 'binance' });
    const c = await status();
    expect(c.binance).toBe(true);
    expect(Object.entries(c).filter(([, v]) => v)).toHaveLength(1);
    const list = await t.app.inject({ method: 'GET', url: '/api/exchanges/connections', headers: user.auth });
    expect(list.json<{ connections: Json[] }>().connections).toEqual([
      expect.objectContaining({ exchange: 'binance', name: 'Binance', mode: 'paper' }),
    ]);
    // Seeded at once with 10,000 USDT.
    const rows = await t.ctx.database.sql.query(
      `SELECT balances FROM paper_accounts WHERE user_id = $1 AND exchange = 'binance'`,
      [user.id],
    );
    expect(rows[0]?.balances).toMatchObject({ USDT: { free: 10000, used: 0 } });
  });

  it('accepts the display name and any case (Gate.io -> gateio)', async () => {
    const res = await post('/api/conectar_exchange', { exchange: 'Gate.io', mode: 'paper' });
    expect(res.statusCode).toBe(200);
    expect((await status()).gateio).toBe(true);
    const removed = await post('/api/eliminar_exchange', { exchange: 'GATEIO' });
    expect(removed.statusCode).toBe(200);
    expect((await status()).gateio).toBe(false);
  });

  it('connects paper accounts of the exchanges ccxt lost (bittrex) on the simulated market', async () => {
    const res = await post('/api/conectar_exchange', { exchange: 'bittrex', mode: 'paper' });
    expect(res.statusCode).toBe(200);
    expect((await status()).bittrex).toBe(true);
    expect((await post('/api/eliminar_exchange', { exchange: 'bittrex' })).statusCode).toBe(200);
  });

  it('gives the venue registry a paper venue per (user, exchange), cached, and refuses unconnected ones', async () => {
    const venues = t.ctx.services.venues!;
    const a = await venues.forUser(user.id, 'binance');
    const b = await venues.forUser(user.id, 'binance');
    expect(a).toBe(b);
    expect(a.kind).toBe('paper');
    expect(await venues.connectionKind(user.id, 'binance')).toBe('paper');
    expect(await venues.connectionKind(user.id, 'okx')).toBeNull();
    await expect(venues.forUser(user.id, 'okx')).rejects.toMatchObject({
      statusCode: 400,
      message: 'Este exchange no está conectado. Conéctalo en Settings.',
    });
  });

  it('removing the connection deletes the paper account and closes its venue', async () => {
    const venues = t.ctx.services.venues!;
    const before = await venues.forUser(user.id, 'binance');
    const res = await post('/api/eliminar_exchange', { exchange: 'binance', user_id: user.email });
    expect(res.statusCode).toBe(200);
    expect(res.json<Json>().success).toBe(true);
    expect((await status()).binance).toBe(false);
    await expect(venues.forUser(user.id, 'binance')).rejects.toMatchObject({ statusCode: 400 });
    const rows = await t.ctx.database.sql.query(`SELECT 1 FROM paper_accounts WHERE user_id = $1`, [user.id]);
    expect(rows).toHaveLength(0);
    // Connecting again starts a new account with 10,000 USDT and a new venue.
    await post('/api/conectar_exchange', { exchange: 'binance', mode: 'paper' });
    const after = await venues.forUser(user.id, 'binance');
    expect(after).not.toBe(before);
    expect((await after.fetchBalance()).USDT?.total).toBe(10000);
  });

  it('removing a connection that does not exist is harmless', async () => {
    const res = await post('/api/eliminar_exchange', { exchange: 'kraken' });
    expect(res.statusCode).toBe(200);
    expect((await status()).binance).toBe(true);
  });
});

describe('account deletion', () => {
  it("closes the user's venues before the rows go, and the rows cascade", async () => {
    const t = await makeTestApp();
    try {
      const user = await createTestUser(t);
      await t.app.inject({
        method: 'POST',
        url: '/api/conectar_exchange',
        payload: { exchange: 'kraken', mode: 'paper' },
        headers: user.auth,
      });
      const registry = t.ctx.services.venues as DbVenueRegistry;
      await registry.forUser(user.id, 'kraken');
      expect(registry.size).toBe(1);
      for (const hook of t.ctx.hooks.beforeUserDelete) await hook(user.id);
      expect(registry.size).toBe(0);
      await t.ctx.database.sql.query('DELETE FROM users WHERE id = $1', [user.id]);
      for (const table of ['exchange_connections', 'paper_accounts', 'paper_orders', 'wallet_addresses']) {
        const rows = await t.ctx.database.sql.query(`SELECT 1 FROM ${table} WHERE user_id = $1`, [user.id]);
        expect(rows, table).toHaveLength(0);
      }
    } finally {
      await t.close();
    }
  });
});

describe('a paper account and its resting order survive an app restart on the same database', () => {
  const dataDir = tempDir('bytx-paper-restart-');
  let database: Database;
  let t: TestApp;

  afterAll(async () => {
    await t?.close();
    await database?.close();
  });

  it('keeps balances, reserved funds, the resting order and its client order id', async () => {
    database = await openDatabase({ dataDir });
    t = await makeTestApp({}, { database });
    const user = await createTestUser(t);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/conectar_exchange',
      payload: { exchange: 'bybit', mode: 'paper' },
      headers: user.auth,
    });
    expect(res.statusCode).toBe(200);
    const venue = await t.ctx.services.venues!.forUser(user.id, 'bybit');
    const price = (await venue.fetchTicker('BTC/USDT')).last;
    const order = await venue.createOrder({
      symbol: 'BTC/USDT',
      side: 'buy',
      type: 'limit',
      amount: 0.01,
      price: Math.round(price * 0.5),
      clientOrderId: 'restart-test-1',
    });
    expect(order.status).toBe('open');
    const balance = await venue.fetchBalance();
    expect(balance.USDT!.used).toBeGreaterThan(0);

    // Restart: the app and the database both closed, then opened again on the same folder.
    await t.close();
    await database.close();
    database = await openDatabase({ dataDir });
    t = await makeTestApp({}, { database });

    const status = await t.app.inject({
      method: 'POST',
      url: '/api/estado_conexion',
      payload: {},
      headers: user.auth,
    });
    expect(status.json<{ conexiones: Record<string, boolean> }>().conexiones.bybit).toBe(true);
    const again = await t.ctx.services.venues!.forUser(user.id, 'bybit');
    const open = await again.fetchOpenOrders('BTC/USDT');
    expect(open.map((o) => o.id)).toEqual([order.id]);
    expect(open[0]).toMatchObject({ clientOrderId: 'restart-test-1', status: 'open', price: order.price });
    const after = await again.fetchBalance();
    expect(after.USDT).toEqual(balance.USDT);
    // The same client order id returns the order placed before the restart, not a second one.
    const repeat = await again.createOrder({
      symbol: 'BTC/USDT',
      side: 'buy',
      type: 'limit',
      amount: 0.01,
      price: Math.round(price * 0.5),
      clientOrderId: 'restart-test-1',
    });
    expect(repeat.id).toBe(order.id);
    expect(await again.fetchOpenOrders()).toHaveLength(1);
    // A cancel after the restart releases the reserved funds, and is stored too.
    await again.cancelOrder(order.id, 'BTC/USDT');
    expect((await again.fetchBalance()).USDT).toMatchObject({ used: 0, total: 10000 });
    const rows = await database.sql.query(`SELECT status FROM paper_orders WHERE order_id = $1`, [order.id]);
    expect(rows[0]?.status).toBe('canceled');
  });
});
