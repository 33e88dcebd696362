/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers read loosely */
import {
  BybitV5Emulator,
  BYBIT_EMULATOR_API_KEY,
  BYBIT_EMULATOR_SECRET,
  MarketSimulator,
} from '@bytx/venues';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from './bots.helpers';
import { apiCaller, createTestUser, makeTestApp, type TestApp } from './helpers';

type Json = Record<string, any>;

/**
 * A live Bybit account connected through POST /api/conectar_exchange with BYBIT_EMULATOR_URL set
 * (issue 38 #7): the server's CcxtVenue + ccxt's bybit trade against the localhost Bybit v5 emulator
 * (a unified account), not the internet. Manual spot orders go through the spot screen's API.
 */
describe('BYBIT_EMULATOR_URL: a live Bybit account trades against the Bybit v5 emulator', () => {
  let emu: BybitV5Emulator;
  let t: TestApp;
  let user: Awaited<ReturnType<typeof createTestUser>>;
  const call = apiCaller(() => t.app);
  const SYM = 'BTC/USDT';
  const orders = async () => {
    const r = await call(user, 'GET', `/api/spot/orders?exchange=bybit&symbol=${encodeURIComponent(SYM)}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as { open: Json[]; recent: Json[] };
  };

  beforeAll(async () => {
    emu = new BybitV5Emulator({
      simulator: new MarketSimulator({ seed: 11 }),
      initialBalances: { USDT: 50_000 },
    });
    await emu.start();
    // The bot runner carries manual orders too (their fills are learned by the venue's order poll).
    t = await makeTestApp({ BYBIT_EMULATOR_URL: emu.baseUrl, TRADING_SCREENS: 'all', BOT_RUNNER: '1' });
    user = await createTestUser(t);
  });

  afterAll(async () => {
    await t?.close();
    await emu?.stop();
  });

  it('connects the key (checked: no withdrawal right), places, lists and cancels a limit order on the emulator', async () => {
    const c = await call(user, 'POST', '/api/conectar_exchange', {
      exchange: 'bybit',
      apiKey: BYBIT_EMULATOR_API_KEY,
      apiSecret: BYBIT_EMULATOR_SECRET,
    });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(c.body).toMatchObject({ success: true, mode: 'live' });
    // The connect read the unified wallet and the key's permissions on the emulator.
    const paths = emu.requestLog.map((r) => r.path);
    expect(paths).toEqual(expect.arrayContaining(['/v5/account/wallet-balance', '/v5/user/query-api']));

    const price = Math.round(emu.simulator.price('bybit', SYM) * 0.9);
    const r = await call(user, 'POST', '/api/spot/order', {
      exchange: 'bybit',
      symbol: SYM,
      side: 'buy',
      type: 'limit',
      price: String(price),
      quantity: '0.01',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = r.body.order.id as string;
    expect(r.body.order).toMatchObject({ exchange: 'bybit', side: 'buy', status: 'open', filled: 0 });
    // On the exchange: one order, under the platform's client id (Bybit's orderLinkId).
    const [entry] = await emu.ledger();
    expect(entry).toMatchObject({ symbol: SYM, side: 'buy', amount: 0.01, status: 'open', market: 'spot' });
    expect(entry!.clientOrderId).toMatch(/^[A-Za-z0-9_-]{1,36}$/);
    expect((await orders()).open.map((o): unknown => o.id)).toEqual([id]);

    const del = await call(user, 'DELETE', `/api/spot/orders/${id}`);
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect(del.body.order).toMatchObject({ id, status: 'cancelled' });
    expect((await emu.ledger())[0]).toMatchObject({ status: 'canceled', filled: 0 });
    expect((await orders()).open).toEqual([]);
  });

  it('a market buy fills on the emulator and the fill reaches the platform', async () => {
    const r = await call(user, 'POST', '/api/spot/order', {
      exchange: 'bybit',
      symbol: SYM,
      side: 'buy',
      type: 'market',
      quantity: '0.01',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = r.body.order.id as string;
    const ledger = await emu.ledger();
    expect(ledger.filter((e) => e.status === 'closed')).toHaveLength(1);
    // Bybit acknowledges a create with ids only: the fill is learned by the venue's lookups.
    const done = await until(async () => {
      const o = await orders();
      const hit: Json | undefined = [...o.open, ...o.recent].find((x) => x.id === id && Number(x.filled) > 0);
      return hit ?? null;
    }, 15_000);
    expect(done.filled).toBeCloseTo(0.01, 8);
    expect(emu.duplicateAttempts).toBe(0);
  });
});
