import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CcxtVenue } from '../../src/ccxt-venue';
import { bybitEmulatorUrlOptions } from '../../src/emulator/ccxt-options';
import { BYBIT_EMULATOR_API_KEY, BYBIT_EMULATOR_SECRET, BybitV5Emulator } from '../../src/emulator/bybit-v5';
import {
  AuthenticationError,
  InsufficientFundsError,
  OrderNotFoundError,
  VenueNetworkError,
  VenueRateLimitError,
  VenueUnavailableError,
} from '../../src/errors';
import { MarketSimulator } from '../../src/simulator';

/**
 * The real CcxtVenue + ccxt's bybit against the localhost Bybit v5 emulator (issue 38 #7), a unified
 * account: the wire protocol (HMAC headers, the retCode envelope), spot and linear trading, the
 * unified-account lookups (realtime then history, by orderId and by orderLinkId), and each fault.
 */

let emu: BybitV5Emulator;
let venue: CcxtVenue;
const SPOT = 'BTC/USDT';
const PERP = 'BTC/USDT:USDT';

const makeVenue = (secret = BYBIT_EMULATOR_SECRET, timeoutMs = 1_000) =>
  new CcxtVenue({
    exchange: 'bybit',
    apiKey: BYBIT_EMULATOR_API_KEY,
    secret,
    ccxtOptions: bybitEmulatorUrlOptions(emu.baseUrl, timeoutMs),
    orderPollMs: 60_000,
  });

beforeEach(async () => {
  emu = new BybitV5Emulator({
    simulator: new MarketSimulator({ seed: 7 }),
    initialBalances: { USDT: 100_000 },
  });
  await emu.start();
  venue = makeVenue();
});

afterEach(async () => {
  await venue.close();
  await emu.stop();
});

const price = () => emu.simulator.price('bybit', SPOT);
const paths = () => emu.requestLog.map((r) => r.path);

describe('Bybit v5 emulator: the live path trades against it', () => {
  it('loads spot and linear markets, reads ticker, book, candles and the unified balance', async () => {
    const markets = await venue.loadMarkets();
    expect(markets[SPOT]).toMatchObject({ base: 'BTC', quote: 'USDT' });
    expect(markets[PERP]).toMatchObject({ type: 'swap', linear: true, settle: 'USDT', contractSize: 1 });
    expect(markets[PERP]?.maxLeverage).toBeGreaterThan(1);
    const t = await venue.fetchTicker(SPOT);
    expect(t.last).toBeCloseTo(price(), 2);
    const b = await venue.fetchOrderBook(SPOT, 5);
    expect(b.bids.length).toBeGreaterThan(0);
    expect(b.bids[0]![0]).toBeLessThanOrEqual(b.asks[0]![0]);
    const candles = await venue.fetchOHLCV(SPOT, '1h', undefined, 10);
    expect(candles).toHaveLength(10);
    // Oldest first, as ccxt sorts Bybit's newest-first list.
    expect(candles[0]![0]).toBeLessThan(candles[9]![0]);
    const bal = await venue.fetchBalance();
    expect(bal.USDT).toEqual({ free: 100_000, used: 0, total: 100_000 });
    // ccxt learned the account type from the key's info (uta: 1) and the account info.
    expect(paths()).toEqual(expect.arrayContaining(['/v5/user/query-api', '/v5/account/info']));
    expect(paths()).toContain('/v5/account/wallet-balance');
  });

  it('a spot limit order: placed, found by id and by orderLinkId while open and after cancel', async () => {
    const p = Math.round(price() * 0.9);
    const o = await venue.createOrder({
      symbol: SPOT,
      side: 'buy',
      type: 'limit',
      amount: 0.01,
      price: p,
      clientOrderId: 'bot1-1',
    });
    expect(o).toMatchObject({ clientOrderId: 'bot1-1', amount: 0.01 });
    expect(o.id).toMatch(/^\d+$/);
    // The hold shows in the unified wallet's `locked`.
    expect((await venue.fetchBalance()).USDT?.used).toBeGreaterThanOrEqual(0.01 * p);
    expect(await venue.fetchOrder(o.id, SPOT)).toMatchObject({ id: o.id, status: 'open', filled: 0 });
    expect(await venue.fetchOrderByClientId('bot1-1', SPOT)).toMatchObject({ id: o.id, status: 'open' });
    expect(await venue.fetchOrderByClientId('nobody', SPOT)).toBeNull();
    expect((await venue.fetchOpenOrders(SPOT)).map((x) => x.id)).toEqual([o.id]);
    // Bybit answers a cancel with the ids only: the venue reports it cancelled.
    expect((await venue.cancelOrder(o.id, SPOT)).status).toBe('canceled');
    // Closed orders: from /v5/order/history (realtime holds only the open ones).
    expect(await venue.fetchOrder(o.id, SPOT)).toMatchObject({ id: o.id, status: 'canceled' });
    expect(await venue.fetchOrderByClientId('bot1-1', SPOT)).toMatchObject({ id: o.id, status: 'canceled' });
    expect(paths()).toContain('/v5/order/history');
    expect(await venue.fetchOpenOrders(SPOT)).toEqual([]);
    // Realtime with openOnly=1 lists the recent finished orders too.
    const recent = await venue.ccxt.fetchOpenOrders(SPOT, undefined, undefined, { openOnly: 1 });
    expect(recent.map((x) => [x.id, x.status])).toEqual([[o.id, 'canceled']]);
    expect((await venue.fetchBalance()).USDT).toEqual({ free: 100_000, used: 0, total: 100_000 });
    // A second cancel: Bybit spot's 170213 "Order does not exist."
    await expect(venue.cancelOrder(o.id, SPOT)).rejects.toBeInstanceOf(OrderNotFoundError);
  });

  it('a spot market buy fills with its average and fee; looked up closed by id and client id', async () => {
    const buy = await venue.createOrder({
      symbol: SPOT,
      side: 'buy',
      type: 'market',
      amount: 0.02,
      clientOrderId: 'm-1',
    });
    const done = await venue.fetchOrder(buy.id, SPOT);
    expect(done.status).toBe('closed');
    expect(done.filled).toBeCloseTo(0.02, 10);
    expect(done.average).toBeGreaterThan(0);
    expect(done.fee?.cost).toBeGreaterThan(0);
    expect(await venue.fetchOrderByClientId('m-1', SPOT)).toMatchObject({ id: buy.id, status: 'closed' });
    const btc = (await venue.fetchBalance()).BTC?.free ?? 0;
    expect(btc).toBeGreaterThan(0.0199);
    // A market sell of it (qty in the base coin) fills too.
    const sell = await venue.createOrder({
      symbol: SPOT,
      side: 'sell',
      type: 'market',
      amount: 0.01,
      clientOrderId: 'm-2',
    });
    expect((await venue.fetchOrder(sell.id, SPOT)).status).toBe('closed');
  });

  it('a linear order with leverage: isolated margin, position, funding rate', async () => {
    expect(await venue.setLeverage(5, PERP)).toBe(5);
    expect(emu.marginMode).toBe('ISOLATED_MARGIN');
    expect(await venue.fetchLeverage(PERP)).toBe(5);
    // The same leverage again: Bybit's 110043 "leverage not modified" is no error for the platform.
    expect(await venue.setLeverage(5, PERP)).toBe(5);
    const o = await venue.createOrder({
      symbol: PERP,
      side: 'buy',
      type: 'market',
      amount: 0.1,
      clientOrderId: 'perp-1',
    });
    expect((await venue.fetchOrder(o.id, PERP)).status).toBe('closed');
    expect(await venue.fetchOrderByClientId('perp-1', PERP)).toMatchObject({ id: o.id, status: 'closed' });
    const [pos] = await venue.fetchPositions([PERP]);
    expect(pos).toMatchObject({ symbol: PERP, side: 'long', leverage: 5, marginMode: 'isolated' });
    expect(pos?.contracts).toBeCloseTo(0.1, 10);
    expect(pos?.collateral).toBeCloseTo((0.1 * pos!.entryPrice) / 5, 0);
    expect(pos?.liquidationPrice).toBeLessThan(pos!.entryPrice);
    const f = await venue.fetchFundingRate(PERP);
    expect(Number.isFinite(f.rate)).toBe(true);
    expect(f.nextFundingTime).toBeGreaterThan(Date.now());
    // A resting linear limit: open, by client id, cancelled, then from the history.
    const lim = await venue.createOrder({
      symbol: PERP,
      side: 'sell',
      type: 'limit',
      amount: 0.1,
      price: Math.round(price() * 1.2),
      reduceOnly: true,
      clientOrderId: 'perp-tp',
    });
    expect(await venue.fetchOrderByClientId('perp-tp', PERP)).toMatchObject({ id: lim.id, status: 'open' });
    expect((await venue.fetchOpenOrders(PERP)).map((x) => x.id)).toEqual([lim.id]);
    await venue.cancelOrder(lim.id, PERP);
    expect(await venue.fetchOrder(lim.id, PERP)).toMatchObject({ status: 'canceled' });
    await expect(venue.cancelOrder(lim.id, PERP)).rejects.toBeInstanceOf(OrderNotFoundError);
  });

  it('a resting order that fills on the exchange is learned within one poll (realtime, then history)', async () => {
    const updates: { id: string; status: string; filled: number }[] = [];
    venue.onOrderUpdate((o) => updates.push({ id: o.id, status: o.status, filled: o.filled }));
    const p = price();
    const o = await venue.createOrder({
      symbol: SPOT,
      side: 'buy',
      type: 'limit',
      amount: 0.01,
      price: Math.round(p * 0.95),
      clientOrderId: 'rest-1',
    });
    await venue.pollOrders();
    expect(updates).toEqual([]);
    // The market falls through the order's price: the engine fills it; one poll round reports it.
    emu.simulator.setPrice('bybit', SPOT, Math.round(p * 0.9));
    await venue.pollOrders();
    expect(updates).toEqual([{ id: o.id, status: 'closed', filled: 0.01 }]);
    // A linear take profit (reduce-only limit above the price) on a long: the same.
    await venue.setLeverage(3, PERP);
    await venue.createOrder({ symbol: PERP, side: 'buy', type: 'market', amount: 0.1, clientOrderId: 'l-1' });
    const q = price();
    const tp = await venue.createOrder({
      symbol: PERP,
      side: 'sell',
      type: 'limit',
      amount: 0.1,
      price: Math.round(q * 1.05),
      reduceOnly: true,
      clientOrderId: 'l-tp',
    });
    updates.length = 0;
    await venue.pollOrders();
    expect(updates.filter((u) => u.id === tp.id)).toEqual([]);
    emu.simulator.setPrice('bybit', SPOT, Math.round(q * 1.1));
    await venue.pollOrders();
    expect(updates.filter((u) => u.id === tp.id)).toEqual([{ id: tp.id, status: 'closed', filled: 0.1 }]);
    expect(await venue.fetchPositions([PERP])).toEqual([]);
  });

  it('lists every open order, not only the first page of 20 (Bybit pages /v5/order/realtime)', async () => {
    const p = Math.round(price() * 0.8);
    const ids: string[] = [];
    for (let i = 0; i < 23; i++) {
      const o = await venue.createOrder({
        symbol: SPOT,
        side: 'buy',
        type: 'limit',
        amount: 0.001,
        price: p - i,
        clientOrderId: `page-${i}`,
      });
      ids.push(o.id);
    }
    const open = await venue.fetchOpenOrders(SPOT);
    expect(open.map((o) => o.id).sort()).toEqual([...ids].sort());
  });

  it("refuses with Bybit's codes: 170131 / 110007 insufficient balance, 110001 no such order", async () => {
    await expect(
      venue.createOrder({
        symbol: SPOT,
        side: 'buy',
        type: 'limit',
        amount: 10,
        price: Math.round(price()),
        clientOrderId: 'big',
      }),
    ).rejects.toBeInstanceOf(InsufficientFundsError);
    await expect(
      venue.createOrder({ symbol: PERP, side: 'buy', type: 'market', amount: 900, clientOrderId: 'huge' }),
    ).rejects.toBeInstanceOf(InsufficientFundsError);
    await expect(venue.fetchOrder('999', SPOT)).rejects.toBeInstanceOf(OrderNotFoundError);
  });

  it('refuses a bad key or signature (10003/10004); a server clock ahead (10002) is learned from /v5/market/time', async () => {
    const bad = makeVenue('wrong');
    await expect(bad.fetchBalance()).rejects.toBeInstanceOf(AuthenticationError);
    await bad.close();
    // Two minutes ahead, past the 5 s recv_window: refused once, then the venue resyncs and retries.
    emu.clockOffsetMs = 120_000;
    expect((await venue.fetchBalance()).USDT?.free).toBe(100_000);
    expect(paths()).toContain('/v5/market/time');
  });

  it('tells the withdraw-permission check what the key can do (GET /v5/user/query-api)', async () => {
    expect(await venue.checkWithdrawPermission()).toBe(false);
    emu.canWithdraw = true;
    expect(await venue.checkWithdrawPermission()).toBe(true);
  });
});

describe('Bybit v5 emulator: faults', () => {
  const req = (clientOrderId: string) => ({
    symbol: SPOT,
    side: 'buy' as const,
    type: 'limit' as const,
    amount: 0.01,
    price: Math.round(price() * 0.9),
    clientOrderId,
  });

  it('a create whose answer is lost is found by its orderLinkId; a second send is refused, not placed', async () => {
    await venue.loadMarkets();
    emu.inject('drop-after-accept');
    await expect(venue.createOrder(req('lost-1'))).rejects.toBeInstanceOf(VenueNetworkError);
    const found = await venue.fetchOrderByClientId('lost-1', SPOT);
    expect(found).toMatchObject({ clientOrderId: 'lost-1', status: 'open' });
    // Sending it again: Bybit's 170141 "Duplicate clientOrderId." — counted, never executed.
    await expect(venue.createOrder(req('lost-1'))).rejects.toBeTruthy();
    expect(emu.duplicateAttempts).toBe(1);
    expect((await emu.ledger()).filter((e) => e.clientOrderId === 'lost-1')).toHaveLength(1);
  });

  it('timeout and 503 read as retryable; 10006 as a rate limit', async () => {
    // ccxt learns the account type once (two requests in parallel); afterwards a balance is one request.
    await venue.fetchBalance();
    emu.inject('timeout');
    await expect(venue.fetchBalance()).rejects.toBeInstanceOf(VenueNetworkError);
    emu.inject('server-error');
    await expect(venue.fetchBalance()).rejects.toBeInstanceOf(VenueUnavailableError);
    emu.inject('rate-limit');
    const limited = await venue.fetchBalance().catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(VenueRateLimitError);
    // The wait is read from X-Bapi-Limit-Reset-Timestamp (ms epoch; Bybit sends no Retry-After):
    // the emulator's reset is 1 s ahead by default, so 0 < wait <= 1,000 ms.
    const wait = (limited as VenueRateLimitError).retryAfterMs;
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(1_000);
    // Nothing was done meanwhile; the next call works.
    expect((await venue.fetchBalance()).USDT?.free).toBe(100_000);
    expect(emu.faults.applied).toMatchObject({ timeout: 1, 'server-error': 1, 'rate-limit': 1 });
  });

  it('a first market load cut by a timeout or a 503 is tried again by the next call', async () => {
    // ccxt keeps a failed load's rejected promise: without clearing it every later call would fail.
    emu.inject('timeout');
    await expect(venue.loadMarkets()).rejects.toBeInstanceOf(VenueNetworkError);
    expect((await venue.loadMarkets())[SPOT]).toBeDefined();
    const other = makeVenue();
    emu.inject('server-error');
    await expect(other.fetchBalance()).rejects.toBeInstanceOf(VenueUnavailableError);
    expect((await other.fetchBalance()).USDT?.free).toBe(100_000);
    await other.close();
  });

  it('clock-skew (10002): the venue resyncs and retries once, the call succeeds', async () => {
    await venue.loadMarkets();
    emu.inject('clock-skew');
    expect((await venue.fetchBalance()).USDT?.free).toBe(100_000);
    expect(emu.faults.applied['clock-skew']).toBe(1);
    expect(paths()).toContain('/v5/market/time');
  });

  it('partial-fill: part filled, the rest open; released, the order completes', async () => {
    emu.inject('partial-fill');
    const o = await venue.createOrder({
      symbol: SPOT,
      side: 'buy',
      type: 'limit',
      amount: 0.1,
      price: Math.round(price() * 1.05),
      clientOrderId: 'pf-1',
    });
    const part = await venue.fetchOrder(o.id, SPOT);
    expect(part.status).toBe('open');
    expect(part.filled).toBeCloseTo(0.04, 10);
    await emu.releaseWithheld();
    const full = await venue.fetchOrder(o.id, SPOT);
    expect(full.status).toBe('closed');
    expect(full.filled).toBeCloseTo(0.1, 10);
  });

  it('late-fill: reads say New and unfilled until the fill shows', async () => {
    emu.settings.lateMs = 300;
    emu.inject('late-fill');
    const o = await venue.createOrder({
      symbol: SPOT,
      side: 'buy',
      type: 'market',
      amount: 0.01,
      clientOrderId: 'late-1',
    });
    expect(await venue.fetchOrder(o.id, SPOT)).toMatchObject({ status: 'open', filled: 0 });
    await new Promise((r) => setTimeout(r, 350));
    expect(await venue.fetchOrder(o.id, SPOT)).toMatchObject({ status: 'closed' });
    const [entry] = await emu.ledger();
    expect(entry).toMatchObject({ clientOrderId: 'late-1', status: 'closed' });
  });

  it('unknown-order: the first lookups miss (empty lists), a later one finds the order', async () => {
    emu.settings.unknownLookups = 2;
    emu.inject('unknown-order');
    const o = await venue.createOrder(req('unk-1'));
    // One lookup by id asks realtime, then history: both miss.
    await expect(venue.fetchOrder(o.id, SPOT)).rejects.toBeInstanceOf(OrderNotFoundError);
    expect(await venue.fetchOrder(o.id, SPOT)).toMatchObject({ id: o.id, status: 'open' });
  });

  it('20 % of requests faulted at random: each order placed once, found by its orderLinkId', async () => {
    await venue.fetchBalance();
    emu.setFaultRate(0.2);
    const retryable = (err: unknown) =>
      err instanceof VenueNetworkError ||
      err instanceof VenueUnavailableError ||
      err instanceof VenueRateLimitError ||
      err instanceof OrderNotFoundError;
    /** Retries a call the way a bot's next tick would, until it answers. */
    const untilAnswered = async <T>(fn: () => Promise<T>): Promise<T> => {
      for (let i = 0; ; i++) {
        try {
          return await fn();
        } catch (err) {
          if (!retryable(err) || i > 30) throw err;
        }
      }
    };
    for (let n = 0; n < 8; n++) {
      const cid = `rnd-${n}`;
      // The runner's rule: a create that failed without an answer is looked up by its client id
      // before it is sent again (never placed twice).
      for (;;) {
        try {
          await venue.createOrder(req(cid));
          break;
        } catch (err) {
          if (!retryable(err)) throw err;
          const found = await untilAnswered(() => venue.fetchOrderByClientId(cid, SPOT));
          if (found) break;
        }
      }
    }
    emu.setFaultRate(0);
    const ledger = await emu.ledger();
    for (let n = 0; n < 8; n++) expect(ledger.filter((e) => e.clientOrderId === `rnd-${n}`)).toHaveLength(1);
    expect(emu.duplicateAttempts).toBe(0);
    const applied = Object.values(emu.faults.applied).reduce((a, b) => a + b, 0);
    expect(applied).toBeGreaterThan(0);
  });
});
