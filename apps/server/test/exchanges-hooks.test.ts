import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestUser, makeTestApp, type TestApp } from './helpers';

describe('connection changes tell the modules that trade on them', () => {
  let t: TestApp;
  const calls: [string, string][] = [];
  beforeAll(async () => {
    t = await makeTestApp();
    t.ctx.hooks.beforeConnectionChange.push(async (userId, exchange) => {
      calls.push([userId, exchange]);
    });
  });
  afterAll(async () => t.close());

  it('runs beforeConnectionChange on removal, not when a paper account is connected again', async () => {
    const u = await createTestUser(t);
    const connect = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/conectar_exchange',
        headers: u.auth,
        payload: { exchange: 'binance', mode: 'paper' },
      });
    expect((await connect()).statusCode).toBe(200);
    expect((await connect()).statusCode).toBe(200);
    expect(calls).toEqual([]);
    const removed = await t.app.inject({
      method: 'POST',
      url: '/api/eliminar_exchange',
      headers: u.auth,
      payload: { exchange: 'binance' },
    });
    expect(removed.statusCode).toBe(200);
    expect(calls).toEqual([[u.id, 'binance']]);
  });

  it('keeps the connection when a hook refuses', async () => {
    const u = await createTestUser(t);
    await t.app.inject({
      method: 'POST',
      url: '/api/conectar_exchange',
      headers: u.auth,
      payload: { exchange: 'bybit', mode: 'paper' },
    });
    t.ctx.hooks.beforeConnectionChange.push(async () => {
      throw new Error('bots could not be stopped');
    });
    const removed = await t.app.inject({
      method: 'POST',
      url: '/api/eliminar_exchange',
      headers: u.auth,
      payload: { exchange: 'bybit' },
    });
    t.ctx.hooks.beforeConnectionChange.pop();
    expect(removed.statusCode).toBe(500);
    const state = await t.app.inject({
      method: 'POST',
      url: '/api/estado_conexion',
      headers: u.auth,
      payload: {},
    });
    expect(state.json<{ conexiones: Record<string, boolean> }>().conexiones.bybit).toBe(true);
  });
});
