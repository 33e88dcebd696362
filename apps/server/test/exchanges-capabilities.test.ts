/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers read loosely */
import { unsupportedMarketMessage } from '@bytx/contract';
import { exchangeCapabilities } from '@bytx/venues';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealContext } from '../src/lib/crypto';
import { ConnectionsRepository } from '../src/modules/exchanges/connections.repository';
import { createTestUser, makeTestApp, type TestApp } from './helpers';

/**
 * Issue 38 point 8: what each exchange supports with live keys is served to the web, and a start on a market
 * type the user's live exchange cannot trade is refused with the text the start forms show before it.
 * Coinbase Exchange is spot only in ccxt 4.5 (has.swap and has.margin false).
 */
describe('exchange capabilities: served, and a start the live exchange cannot run is refused', () => {
  let t: TestApp;
  let user: Awaited<ReturnType<typeof createTestUser>>;
  const call = async (method: 'GET' | 'POST', url: string, body?: Record<string, unknown>) => {
    const res = await t.app.inject({ method, url, headers: user.auth, ...(body ? { payload: body } : {}) });
    return { status: res.statusCode, body: res.json<Record<string, any>>() };
  };

  beforeAll(async () => {
    t = await makeTestApp({ SIMULATOR_CONTROL: '1' });
    user = await createTestUser(t);
    // A live Coinbase Exchange connection (its keys sealed as connect stores them; no call reaches it here).
    await new ConnectionsRepository(t.ctx.db).upsert(user.id, 'coinbaseexchange', {
      mode: 'live',
      apiKeyEnc: t.ctx.secretBox.seal('cbKey', sealContext.exchangeApiKey(user.id, 'coinbaseexchange')),
      apiSecretEnc: t.ctx.secretBox.seal('cbSecret', sealContext.exchangeSecret(user.id, 'coinbaseexchange')),
      apiPasswordEnc: null,
    });
    expect((await call('POST', '/api/conectar_exchange', { exchange: 'kraken', mode: 'paper' })).status).toBe(
      200,
    );
  });
  afterAll(async () => t?.close());

  it('GET /api/exchanges/capabilities answers the derived table for every catalogue exchange', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/exchanges/capabilities' });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ success: boolean; exchanges: Record<string, any>[] }>();
    expect(body.success).toBe(true);
    expect(body.exchanges).toEqual(exchangeCapabilities());
    expect(body.exchanges.find((e) => e.exchange === 'coinbaseexchange')).toMatchObject({
      spot: true,
      perpetual: false,
      margin: false,
    });
  });

  it('a Perpetual Grid Bot DCA on a spot-only live exchange is refused with the forms’ text, nothing stored', async () => {
    const res = await call('POST', '/api/start_bot_dca', {
      exchange: 'coinbaseexchange',
      symbol: 'BTC/USDT',
      amount: 20,
      tp: 1,
      separacion: 1,
      os: 3,
      apartado: 'Perpetual',
      leverage: 2,
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain(
      unsupportedMarketMessage('en', 'coinbaseexchange', 'Perpetual'),
    );
    expect(unsupportedMarketMessage('en', 'coinbaseexchange', 'Perpetual')).toBe(
      'Coinbase Exchange does not support Perpetual trading with live keys. Choose another market type or exchange, or a paper account.',
    );
    const rows = await t.ctx.database.sql.query(`SELECT 1 FROM bots WHERE user_id = $1`, [user.id]);
    expect(rows.length).toBe(0);
  });

  it('a Margin grid bot there is refused the same way', async () => {
    const res = await call('POST', '/api/gridbot/start', {
      user: user.email,
      exchange: 'coinbaseexchange',
      pair: 'BTC/USDT',
      marketType: 'margin',
      highPrice: 80_000,
      lowPrice: 40_000,
      amountPerLevel: 20,
      stepPercentage: 2,
      profitCurrency: 'quote',
      position: 'long',
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body), JSON.stringify(res.body)).toContain(
      unsupportedMarketMessage('en', 'coinbaseexchange', 'Margin'),
    );
  });

  it('a paper account trades every market type: Kraken Perpetual is not refused for capability', async () => {
    const res = await call('POST', '/api/start_bot_dca', {
      exchange: 'kraken',
      symbol: 'BTC/USDT',
      amount: 20,
      tp: 1,
      separacion: 1,
      os: 3,
      apartado: 'Perpetual',
      leverage: 2,
    });
    expect(JSON.stringify(res.body)).not.toContain('does not support');
  });
});
