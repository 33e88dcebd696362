import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BinanceSpotEmulator,
  CcxtVenue,
  EMULATOR_API_KEY,
  EMULATOR_SECRET,
  InsufficientFundsError,
  MarketSimulator,
  OrderNotFoundError,
  VenueNetworkError,
  VenueRateLimitError,
  binanceEmulatorCcxtOptions,
} from '../../src/live';

/**
 * The real CcxtVenue + ccxt's binance against the localhost Binance spot emulator (issue 38 #7):
 * the wire protocol (signatures, errors in {code,msg}) and each injected fault's outcome.
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
  // As venue-factory.ts builds a live binance venue, plus the URL override.
  venue = new CcxtVenue({
    exchange: 'binance',
    apiKey: EMULATOR_API_KEY,
    secret: EMULATOR_SECRET,
    ccxtOptions: binanceEmulatorCcxtOptions(emu, 1_000),
    orderPollMs: 60_000,
  });
});

afterEach(async () => {
  await venue.close();
  await emu.stop();
});

const price = () => emu.simulator.price('binance', SYMBOL);

describe('Binance spot emulator: the live path trades against it', () => {
  it('loads markets, reads ticker, book and balance', async () => {
    const markets = await venue.loadMarkets();
    expect(markets[SYMBOL]).toMatchObject({ base: 'BTC', quote: 'USDT' });
    const t = await venue.fetchTicker(SYMBOL);
    expect(t.last).toBeCloseTo(price(), 2);
    const b = await venue.fetchOrderBook(SYMBOL, 5);
    expect(b.bids.length).toBeGreaterThan(0);
    const bal = await venue.fetchBalance();
    expect(bal.USDT).toEqual({ free: 100_000, used: 0, total: 100_000 });
  });

  it('places, looks up (by id and by client id), cancels; the balance follows', async () => {
    const p = Math.round(price() * 0.9);
    const o = await venue.createOrder({
      symbol: SYMBOL,
      side: 'buy',
      type: 'limit',
      amount: 0.01,
      price: p,
      clientOrderId: 'bot1-1',
    });
    expect(o).toMatchObject({ status: 'open', clientOrderId: 'bot1-1', amount: 0.01, filled: 0 });
    // The cost and its fee (0.1 %) are held.
    expect((await venue.fetchBalance()).USDT?.used).toBeGreaterThanOrEqual(0.01 * p);
    expect(await venue.fetchOrder(o.id, SYMBOL)).toMatchObject({ id: o.id, status: 'open' });
    expect(await venue.fetchOrderByClientId('bot1-1', SYMBOL)).toMatchObject({ id: o.id });
    expect(await venue.fetchOrderByClientId('nobody', SYMBOL)).toBeNull();
    expect((await venue.fetchOpenOrders(SYMBOL)).map((x) => x.id)).toEqual([o.id]);
    const c = await venue.cancelOrder(o.id, SYMBOL);
    expect(c).toMatchObject({ status: 'canceled', clientOrderId: 'bot1-1' });
    expect((await venue.fetchBalance()).USDT).toEqual({ free: 100_000, used: 0, total: 100_000 });
    // A second cancel: Binance's -2011 "Unknown order sent."
    await expect(venue.cancelOrder(o.id, SYMBOL)).rejects.toBeTruthy();
  });

  it('a market buy fills with its average and fee; a sell of it too', async () => {
    const buy = await venue.createOrder({
      symbol: SYMBOL,
      side: 'buy',
      type: 'market',
      amount: 0.02,
      clientOrderId: 'm-1',
    });
    expect(buy.status).toBe('closed');
    expect(buy.filled).toBeCloseTo(0.02, 10);
    expect(buy.average).toBeGreaterThan(0);
    expect(buy.fee?.cost).toBeGreaterThan(0);
    const btc = (await venue.fetchBalance()).BTC?.free ?? 0;
    expect(btc).toBeGreaterThan(0.0199);
  });

  it("refuses with Binance's codes: -2010 insufficient balance, -1013 filter failure, -2013 no such order", async () => {
    await expect(
      venue.createOrder({
        symbol: SYMBOL,
        side: 'buy',
        type: 'limit',
        amount: 10,
        price: Math.round(price()),
        clientOrderId: 'big',
      }),
    ).rejects.toBeInstanceOf(InsufficientFundsError);
    await expect(
      venue.createOrder({
        symbol: SYMBOL,
        side: 'sell',
        type: 'limit',
        amount: 1,
        price: 1e6,
        clientOrderId: 'nobtc',
      }),
    ).rejects.toBeInstanceOf(InsufficientFundsError);
    // Below NOTIONAL, sent straight to ccxt (the venue's own check would stop it first).
    await venue.loadMarkets();
    await expect(venue.ccxt.createOrder(SYMBOL, 'limit', 'buy', 0.00001, 100)).rejects.toThrow(/-1013/);
    await expect(venue.fetchOrder('999', SYMBOL)).rejects.toBeInstanceOf(OrderNotFoundError);
  });

  it('refuses a bad signature (-1022); a server clock ahead (-1021) is learned from GET /api/v3/time', async () => {
    const bad = new CcxtVenue({
      exchange: 'binance',
      apiKey: EMULATOR_API_KEY,
      secret: 'wrong',
      ccxtOptions: binanceEmulatorCcxtOptions(emu),
    });
    await expect(bad.fetchBalance()).rejects.toThrow(/-1022/);
    await bad.close();
    // Two minutes ahead, past the 10 s recvWindow: refused once, then the venue resyncs and retries.
    emu.clockOffsetMs = 120_000;
    expect((await venue.fetchBalance()).USDT?.free).toBe(100_000);
    const log = emu.requestLog.map((r) => r.path);
    expect(log).toContain('/api/v3/time');
  });
});

describe('Binance spot emulator: faults', () => {
  it('a create whose answer is lost is found by its client id and never placed twice', async () => {
    await venue.loadMarkets();
    emu.inject('drop-after-accept');
    const req = {
      symbol: SYMBOL,
      side: 'buy' as const,
      type: 'limit' as const,
      amount: 0.01,
      price: Math.round(price() * 0.9),
      clientOrderId: 'lost-1',
    };
    await expect(venue.createOrder(req)).rejects.toBeInstanceOf(VenueNetworkError);
    const found = await venue.fetchOrderByClientId('lost-1', SYMBOL);
    expect(found).toMatchObject({ clientOrderId: 'lost-1', status: 'open' });
    // A resend with the same client id: the exchange answers -2010 "Duplicate order sent.", which is
    // not a refusal of the order (it is on the book) but DuplicateOrderError: the venue answers with the
    // order it finds by client id, as for USDⓈ-M's -4116. (This asserted InvalidOrderError before, which
    // made the runner mark a live order refused.) Nothing new is placed.
    await expect(venue.createOrder(req)).resolves.toMatchObject({ clientOrderId: 'lost-1', status: 'open' });
    expect(emu.duplicateAttempts).toBe(1);
    expect((await emu.ledger()).filter((e) => e.clientOrderId === 'lost-1')).toHaveLength(1);
  });

  it('a held request times out; a 5xx is retried', async () => {
    await venue.loadMarkets();
    emu.inject('timeout');
    await expect(venue.fetchBalance()).rejects.toBeInstanceOf(VenueNetworkError);
    // 503 with Binance's -1001 "Internal error": retried (whichever retry class the venue picks).
    emu.inject('server-error');
    const err = await venue.fetchBalance().catch((e: unknown) => e);
    expect((err as { action?: string }).action).toBe('retry');
    expect((await venue.fetchBalance()).USDT?.free).toBe(100_000);
  });

  it('429 says when to come back (Retry-After)', async () => {
    await venue.loadMarkets();
    emu.settings.retryAfterS = 3;
    emu.inject('rate-limit');
    const err = await venue.fetchBalance().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VenueRateLimitError);
    expect((err as VenueRateLimitError).retryAfterMs).toBe(3_000);
  });

  it('a partial fill is reported as such, then completes when the rest is released', async () => {
    await venue.loadMarkets();
    emu.inject('partial-fill');
    const o = await venue.createOrder({
      symbol: SYMBOL,
      side: 'buy',
      type: 'limit',
      amount: 0.05,
      price: Math.round(price() * 1.05),
      clientOrderId: 'part-1',
    });
    expect(o.status).toBe('open');
    expect(o.filled).toBeCloseTo(0.02, 10);
    expect(o.remaining).toBeCloseTo(0.03, 10);
    await emu.releaseWithheld();
    const done = await venue.fetchOrder(o.id, SYMBOL);
    expect(done).toMatchObject({ status: 'closed' });
    expect(done.filled).toBeCloseTo(0.05, 10);
  });

  it("a partially filled market order's rest expires for good: a release does not fill it later", async () => {
    await venue.loadMarkets();
    emu.inject('partial-fill');
    const o = await venue.createOrder({
      symbol: SYMBOL,
      side: 'buy',
      type: 'market',
      amount: 0.05,
      clientOrderId: 'part-market-1',
    });
    const ended = await venue.fetchOrder(o.id, SYMBOL);
    expect(ended.status).toBe('expired'); // Binance's EXPIRED
    expect(ended.filled).toBeCloseTo(0.02, 10);
    // Found by the live crash campaign: the release used to fill the rest of the EXPIRED order, so the
    // exchange ended with 0.05 bought while the client had settled 0.02.
    await emu.releaseWithheld();
    const after = await venue.fetchOrder(o.id, SYMBOL);
    expect(after).toMatchObject({ status: 'expired' });
    expect(after.filled).toBeCloseTo(0.02, 10);
    expect((await emu.ledger()).find((e) => e.clientOrderId === 'part-market-1')).toMatchObject({
      status: 'canceled',
      filled: 0.02,
    });
    expect((await venue.fetchBalance()).BTC?.total).toBeCloseTo(0.02, 10);
  });

  it('a fill learned late: reads say open until the delay passes', async () => {
    await venue.loadMarkets();
    emu.settings.lateMs = 400;
    emu.inject('late-fill');
    const o = await venue.createOrder({
      symbol: SYMBOL,
      side: 'buy',
      type: 'limit',
      amount: 0.01,
      price: Math.round(price() * 1.05),
      clientOrderId: 'late-1',
    });
    expect(o).toMatchObject({ status: 'open', filled: 0 });
    expect((await venue.fetchOrder(o.id, SYMBOL)).status).toBe('open');
    await new Promise((r) => setTimeout(r, 450));
    expect(await venue.fetchOrder(o.id, SYMBOL)).toMatchObject({ status: 'closed', filled: 0.01 });
  });

  it('"unknown order" on the first lookups, then found', async () => {
    await venue.loadMarkets();
    emu.settings.unknownLookups = 2;
    emu.inject('unknown-order');
    const o = await venue.createOrder({
      symbol: SYMBOL,
      side: 'buy',
      type: 'limit',
      amount: 0.01,
      price: Math.round(price() * 0.9),
      clientOrderId: 'unk-1',
    });
    await expect(venue.fetchOrder(o.id, SYMBOL)).rejects.toBeInstanceOf(OrderNotFoundError);
    await expect(venue.fetchOrder(o.id, SYMBOL)).rejects.toBeInstanceOf(OrderNotFoundError);
    expect(await venue.fetchOrder(o.id, SYMBOL)).toMatchObject({ status: 'open', clientOrderId: 'unk-1' });
  });

  it('clock skew (-1021) on a create: refused, nothing done; the retry places the order once', async () => {
    await venue.loadMarkets();
    emu.inject('clock-skew');
    const o = await venue.createOrder({
      symbol: SYMBOL,
      side: 'buy',
      type: 'market',
      amount: 0.01,
      clientOrderId: 'skew-1',
    });
    expect(o.status).toBe('closed');
    expect(emu.faults.applied['clock-skew']).toBe(1);
    expect((await emu.ledger()).map((e) => e.clientOrderId)).toEqual(['skew-1']);
  });
});
