import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CcxtVenue } from '../../src/ccxt-venue';
import { bybitEmulatorUrlOptions } from '../../src/emulator/ccxt-options';
import { BYBIT_EMULATOR_API_KEY, BYBIT_EMULATOR_SECRET, BybitV5Emulator } from '../../src/emulator/bybit-v5';
import { MarketSimulator } from '../../src/simulator';

/**
 * A partially filled market order on the Bybit v5 emulator ends PartiallyFilledCanceled (Bybit's market
 * orders are IOC) and stays so: `releaseWithheld()` (the campaign's "the rest fills later") must not
 * fill it afterwards, or the exchange ends holding what the client settled as never bought. The same
 * bend was found on the Binance emulator by the live crash campaign (apps/server/test/live-crash).
 */

let emu: BybitV5Emulator;
let venue: CcxtVenue;
const SPOT = 'BTC/USDT';

beforeEach(async () => {
  emu = new BybitV5Emulator({
    simulator: new MarketSimulator({ seed: 7 }),
    initialBalances: { USDT: 100_000 },
  });
  await emu.start();
  venue = new CcxtVenue({
    exchange: 'bybit',
    apiKey: BYBIT_EMULATOR_API_KEY,
    secret: BYBIT_EMULATOR_SECRET,
    ccxtOptions: bybitEmulatorUrlOptions(emu.baseUrl, 1_000),
    orderPollMs: 60_000,
  });
});

afterEach(async () => {
  await venue.close();
  await emu.stop();
});

describe('Bybit v5 emulator: a market order’s partial fill', () => {
  it('ends with the part filled and is not filled later by a release', async () => {
    emu.inject('partial-fill');
    const o = await venue.createOrder({
      symbol: SPOT,
      side: 'buy',
      type: 'market',
      amount: 0.1,
      clientOrderId: 'pfm-1',
    });
    const ended = await venue.fetchOrder(o.id, SPOT);
    expect(ended.status).not.toBe('open');
    expect(ended.filled).toBeCloseTo(0.04, 10);
    await emu.releaseWithheld();
    const after = await venue.fetchOrder(o.id, SPOT);
    expect(after.status).toBe(ended.status);
    expect(after.filled).toBeCloseTo(0.04, 10);
    expect((await emu.ledger()).find((e) => e.clientOrderId === 'pfm-1')).toMatchObject({
      status: 'canceled',
      filled: 0.04,
    });
    expect((await venue.fetchBalance()).BTC?.total).toBeCloseTo(0.04, 10);
  });
});
