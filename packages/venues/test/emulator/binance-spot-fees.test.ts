import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BinanceSpotEmulator,
  CcxtVenue,
  EMULATOR_API_KEY,
  EMULATOR_SECRET,
  MarketSimulator,
  binanceEmulatorCcxtOptions,
} from '../../src/live';

/**
 * Binance spot's order query (GET /api/v3/order) carries no commission: only the create reply's
 * `fills` and GET /api/v3/myTrades do. An order that fills after its create reply (a resting limit,
 * a partial fill completed later) must still be reported with its fee, read from its trades once per
 * fill (exchanges/fees.ts), the whole order's, never the first fill's counted again.
 */

let emu: BinanceSpotEmulator;
let venue: CcxtVenue;
const SYMBOL = 'BTC/USDT';

beforeEach(async () => {
  emu = new BinanceSpotEmulator({
    simulator: new MarketSimulator({ seed: 7 }),
    initialBalances: { USDT: 100_000 },
  });
  await emu.start();
  venue = new CcxtVenue({
    exchange: 'binance',
    apiKey: EMULATOR_API_KEY,
    secret: EMULATOR_SECRET,
    ccxtOptions: binanceEmulatorCcxtOptions(emu, 3_000),
    orderPollMs: 60_000,
  });
});

afterEach(async () => {
  await venue.close();
  await emu.stop();
});

const price = () => emu.simulator.price('binance', SYMBOL);
const myTradesReads = () => emu.requestLog.filter((r) => r.path === '/api/v3/myTrades').length;
/** The order's trades as Binance lists them, and their commission summed. */
async function tradesFee(orderId: string): Promise<{ cost: number; currency: string; count: number }> {
  const trades = (await venue.ccxt.fetchMyTrades(SYMBOL)).filter((t) => t.order === orderId);
  return {
    cost: trades.reduce((a, t) => a + (t.fee?.cost ?? 0), 0),
    currency: trades[0]?.fee?.currency ?? '',
    count: trades.length,
  };
}

describe('Binance spot: the fee of an order filled after its create reply', () => {
  it("a fill learned late (the query has no commission) is reported with its trades' fee", async () => {
    await venue.loadMarkets();
    emu.settings.lateMs = 300;
    emu.inject('late-fill');
    const o = await venue.createOrder({
      symbol: SYMBOL,
      side: 'buy',
      type: 'limit',
      amount: 0.01,
      price: Math.round(price() * 1.05),
      clientOrderId: 'late-fee',
    });
    expect(o).toMatchObject({ status: 'open', filled: 0, fee: null });
    await new Promise((r) => setTimeout(r, 350));
    const done = await venue.fetchOrder(o.id, SYMBOL);
    expect(done).toMatchObject({ status: 'closed', filled: 0.01 });
    expect(myTradesReads()).toBe(1);
    const expected = await tradesFee(o.id);
    expect(expected.count).toBe(1);
    expect(expected.cost).toBeGreaterThan(0);
    // Before the fix: fee null (read as 0 by the bots).
    expect(done.fee).toEqual({ cost: expected.cost, currency: expected.currency });
    // Read again: the same fee, no second read of the trades.
    const reads = myTradesReads();
    expect((await venue.fetchOrder(o.id, SYMBOL)).fee).toEqual(done.fee);
    expect(myTradesReads()).toBe(reads);
  });

  it("a partial fill completed later: the whole order's fee, the create reply's part not added twice", async () => {
    await venue.loadMarkets();
    emu.inject('partial-fill');
    const o = await venue.createOrder({
      symbol: SYMBOL,
      side: 'buy',
      type: 'limit',
      amount: 0.05,
      price: Math.round(price() * 1.05),
      clientOrderId: 'part-fee',
    });
    expect(o.filled).toBeCloseTo(0.02, 10);
    // The create reply's `fills` carry the first part's commission: no trades read for it.
    expect(o.fee?.cost).toBeGreaterThan(0);
    expect(myTradesReads()).toBe(0);
    await emu.releaseWithheld();
    const done = await venue.fetchOrder(o.id, SYMBOL);
    expect(done.status).toBe('closed');
    expect(done.filled).toBeCloseTo(0.05, 10);
    expect(myTradesReads()).toBe(1);
    const all = await tradesFee(o.id);
    expect(all.count).toBe(2);
    expect(done.fee?.currency).toBe(all.currency);
    expect(done.fee?.cost).toBeCloseTo(all.cost, 12);
    // 0.05 of 0.02 + 0.03: the first part's fee is in the sum once (0.4 of it is the first fill's).
    expect(done.fee?.cost).toBeCloseTo((o.fee!.cost * 0.05) / 0.02, 8);
  });
});
