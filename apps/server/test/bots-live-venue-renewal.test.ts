/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers read loosely */
import { BinanceSpotEmulator, EMULATOR_API_KEY, EMULATOR_SECRET, MarketSimulator } from '@bytx/venues';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbVenueRegistry } from '../src/modules/exchanges/venue-registry';
import { until } from './bots.helpers';
import { apiCaller, createTestUser, makeTestApp, type TestApp } from './helpers';

/**
 * A live derivatives bot whose venue is renewed under it (issue 38's futures path): the registry closes
 * a venue when the connection's keys change elsewhere (another process re-saved them), and the bot takes
 * the new instance at its next tick. A new CcxtVenue knows none of the bot's settings, so the bot sets its
 * leverage again before it trades on it (exchanges where leverage goes with each order, KuCoin futures,
 * would otherwise trade at 1x). Checked on the Binance emulator's USDⓈ-M side: a second
 * POST /fapi/v1/leverage after the renewal, and the exchange's leverage back at the bot's.
 */

type Json = Record<string, any>;
const EX = 'binance';
const SYM = 'BTC/USDT';
const SWAP = 'BTC/USDT:USDT';

describe('a live perpetual bot whose venue is renewed under it', () => {
  let emu: BinanceSpotEmulator;
  let t: TestApp;
  let user: Awaited<ReturnType<typeof createTestUser>>;
  const call = apiCaller(() => t.app);
  const leveragePosts = () =>
    emu.requestLog.filter((r) => r.method === 'POST' && r.path === '/fapi/v1/leverage').length;
  /** The platform's market data and the exchange's prices move together. */
  const setPrice = async (price: number) => {
    emu.simulator.setPrice(EX, SWAP, price);
    emu.simulator.setPrice(EX, SYM, price);
    for (const symbol of [SYM, SWAP]) {
      const r = await call(null, 'POST', '/api/dev/market/price', { exchange: EX, symbol, price });
      expect(r.status).toBe(200);
    }
  };

  beforeAll(async () => {
    emu = new BinanceSpotEmulator({
      simulator: new MarketSimulator({ seed: 11 }),
      initialBalances: { USDT: 1_000 },
      initialFuturesBalances: { USDT: 20_000 },
    });
    await emu.start();
    t = await makeTestApp({ BOT_RUNNER: '1', SIMULATOR_CONTROL: '1', BINANCE_EMULATOR_URL: emu.baseUrl });
    user = await createTestUser(t);
    const c = await call(user, 'POST', '/api/conectar_exchange', {
      exchange: EX,
      apiKey: EMULATOR_API_KEY,
      apiSecret: EMULATOR_SECRET,
    });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    await setPrice(100_000);
  });
  afterAll(async () => {
    await t?.close();
    await emu?.stop();
  });

  it('sets its leverage again on the new venue before trading on it', async () => {
    const start = await call(user, 'POST', '/api/start_bot_dca', {
      symbol: SYM,
      amount: '50',
      tp: '1',
      separacion: '1',
      os: '2',
      exchange: EX,
      apartado: 'Perpetual',
      direction: 'LONG',
      leverage: 3,
    });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    // Attached: the leverage was set on the exchange once, and the bot's entry went out.
    await until(async () => leveragePosts() >= 1 && (await emu.venue.fetchLeverage(SWAP)) === 3, 20_000);
    const before = leveragePosts();

    // Elsewhere the account's leverage changed, and the connection's venue was closed (keys re-saved).
    await emu.venue.setLeverage(1, SWAP);
    await (t.ctx.services.venues as DbVenueRegistry).evict(user.id, EX);

    // The next tick renews the venue: the bot's leverage is set again on the exchange.
    await setPrice(100_050);
    await until(async () => leveragePosts() > before && (await emu.venue.fetchLeverage(SWAP)) === 3, 20_000);
    expect(leveragePosts()).toBeGreaterThan(before);
    expect(await emu.venue.fetchLeverage(SWAP)).toBe(3);

    // And the bot is still running, with no problem recorded.
    const bots = (await call(user, 'GET', '/api/bots_activos_dca')).body.bots as Json[];
    expect(bots).toHaveLength(1);
    expect(bots[0]!.leverage ?? 3).toBe(3);
  }, 60_000);
});
