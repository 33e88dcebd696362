import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BinanceSpotEmulator,
  CcxtVenue,
  DuplicateOrderError,
  EMULATOR_API_KEY,
  EMULATOR_SECRET,
  InsufficientFundsError,
  InvalidOrderError,
  MarketSimulator,
  OrderNotFoundError,
  VenueNetworkError,
  VenueRateLimitError,
  binanceEmulatorCcxtOptions,
  liquidationPrice,
  translateCcxtError,
  LINEAR_SPEC,
} from '../../src/live';

/**
 * The real CcxtVenue + ccxt's binance against the emulator's USDⓈ-M futures REST (/fapi, issue 38 #7):
 * swap markets, leverage and margin type, funding, positions and the futures wallet, orders, and each
 * injected fault's outcome on a futures order.
 */

let emu: BinanceSpotEmulator;
let venue: CcxtVenue;
const SWAP = 'BTC/USDT:USDT';

beforeEach(async () => {
  emu = new BinanceSpotEmulator({
    simulator: new MarketSimulator({ seed: 7 }),
    initialBalances: { USDT: 1_000 },
    initialFuturesBalances: { USDT: 50_000 },
  });
  await emu.start();
  // As venue-factory.ts builds a live binance venue, plus the URL override.
  venue = new CcxtVenue({
    exchange: 'binance',
    apiKey: EMULATOR_API_KEY,
    secret: EMULATOR_SECRET,
    // 3 s: long enough for a loaded test machine, short enough for the 'timeout' fault.
    ccxtOptions: binanceEmulatorCcxtOptions(emu, 3_000),
    orderPollMs: 60_000,
  });
});

afterEach(async () => {
  await venue.close();
  await emu.stop();
});

const price = () => emu.simulator.price('binance', SWAP);
const limitOrder = (clientOrderId: string) => ({
  symbol: SWAP,
  side: 'buy' as const,
  type: 'limit' as const,
  amount: 0.01,
  price: Math.round(price() * 0.9),
  clientOrderId,
});
/** Holds the simulated price (no random walk) so fills and marks are exact. */
const hold = (p: number) => emu.simulator.setPrice('binance', 'BTC/USDT', p);
const paths = () => emu.requestLog.map((r) => `${r.method} ${r.path}`);

describe('Binance USDⓈ-M emulator: the live path trades swaps against it', () => {
  it('loads the swap markets beside spot; ticker, book, candles and funding on /fapi', async () => {
    const markets = await venue.loadMarkets();
    expect(markets[SWAP]).toMatchObject({
      type: 'swap',
      linear: true,
      settle: 'USDT',
      base: 'BTC',
      quote: 'USDT',
      amountStep: 0.00001,
      priceStep: 0.01,
      minCost: 5,
    });
    expect(markets['BTC/USDT']).toMatchObject({ base: 'BTC', quote: 'USDT' });
    const t = await venue.fetchTicker(SWAP);
    expect(t.last).toBeCloseTo(price(), 2);
    const b = await venue.fetchOrderBook(SWAP, 5);
    expect(b.bids[0]![0]).toBeLessThan(b.asks[0]![0]);
    const candles = await venue.fetchOHLCV(SWAP, '1h', undefined, 3);
    expect(candles).toHaveLength(3);
    const f = await venue.fetchFundingRate(SWAP);
    expect(Math.abs(f.rate)).toBeLessThanOrEqual(0.0005);
    // The next funding time is the next 00:00 / 08:00 / 16:00 UTC.
    expect(f.nextFundingTime % (8 * 3_600_000)).toBe(0);
    expect(f.nextFundingTime).toBeGreaterThan(Date.now());
    expect(paths()).toEqual(
      expect.arrayContaining([
        'GET /fapi/v1/exchangeInfo',
        'GET /fapi/v1/ticker/24hr',
        'GET /fapi/v1/depth',
        'GET /fapi/v1/klines',
        'GET /fapi/v1/premiumIndex',
      ]),
    );
  });

  it('sets and reads leverage (isolated margin first), opens, reports and closes a position', async () => {
    hold(100_000);
    expect(await venue.setLeverage(10, SWAP)).toBe(10);
    expect(await venue.fetchLeverage(SWAP)).toBe(10);
    expect(paths()).toEqual(
      expect.arrayContaining([
        'POST /fapi/v1/marginType',
        'POST /fapi/v1/leverage',
        'GET /fapi/v1/symbolConfig',
      ]),
    );
    // Setting it again: Binance's -4046 "No need to change margin type." is not an error for the venue.
    expect(await venue.setLeverage(10, SWAP)).toBe(10);

    const open = await venue.createOrder({
      symbol: SWAP,
      side: 'buy',
      type: 'market',
      amount: 0.1,
      clientOrderId: 'fut-1',
    });
    expect(open).toMatchObject({ status: 'closed', clientOrderId: 'fut-1', filled: 0.1 });
    expect(open.average).toBeGreaterThan(99_000);
    // The order reply carries no fee (as on Binance); the commission is in GET /fapi/v1/userTrades:
    // taker 0.05 % of the cost, in USDT.
    const swapCcxt = (venue as unknown as { swapExchange: CcxtVenue['ccxt'] }).swapExchange;
    const [trade] = await swapCcxt.fetchMyTrades(SWAP);
    expect(trade).toMatchObject({ order: open.id, side: 'buy', amount: 0.1 });
    expect(trade!.fee?.currency).toBe('USDT');
    expect(trade!.fee?.cost).toBeCloseTo(open.cost * 0.0005, 6);
    // The venue reads it from there (exchanges/fees.ts): the order is reported with its commission.
    expect(open.fee?.currency).toBe('USDT');
    expect(open.fee?.cost).toBeCloseTo(open.cost * 0.0005, 8);

    const [pos] = await venue.fetchPositions([SWAP]);
    expect(pos).toBeDefined();
    const entry = pos!.entryPrice;
    // Leverage as set: /fapi/v3/positionRisk has no leverage field, the venue reads /fapi/v1/symbolConfig.
    expect(pos).toMatchObject({
      symbol: SWAP,
      side: 'long',
      contracts: 0.1,
      marginMode: 'isolated',
      leverage: 10,
    });
    // The collateral is the margin posted, Binance's isolatedWallet: value at entry ÷ 10; not its
    // isolatedMargin (= isolatedWallet + unrealized PnL).
    const posted = (0.1 * entry) / 10;
    expect(pos!.collateral).toBeCloseTo(posted, 4);
    // Within 0.05: Binance's figure is rounded to the 0.01 tick, and entry comes from the rounded fill.
    expect(pos!.liquidationPrice).toBeCloseTo(liquidationPrice(LINEAR_SPEC, 'long', 0.1, entry, posted)!, 1);

    // The futures wallet: free + margin used; its total is the margin balance (with unrealized PnL).
    const bal = (await venue.fetchBalance({ type: 'swap' })).USDT!;
    expect(bal.used).toBeCloseTo(posted, 4);
    expect(bal.free + bal.used).toBeLessThan(50_000);
    expect(bal.total).toBeCloseTo(bal.free + bal.used + pos!.unrealizedPnl, 4);
    // The spot wallet is another account.
    expect((await venue.fetchBalance()).USDT?.total).toBe(1_000);
    // The mark moves 1,000 up: 0.1 × 1,000 = ~100 USDT of unrealized PnL; the posted margin is unchanged.
    hold(101_000);
    const [moved] = await venue.fetchPositions([SWAP]);
    expect(moved!.unrealizedPnl).toBeGreaterThan(90);
    expect(moved!.collateral).toBeCloseTo(posted, 4);

    // A reduce-only close larger than the position: capped, the position is gone.
    const close = await venue.createOrder({
      symbol: SWAP,
      side: 'sell',
      type: 'market',
      amount: 0.2,
      reduceOnly: true,
      clientOrderId: 'fut-2',
    });
    expect(close.reduceOnly).toBe(true);
    expect(close.filled).toBeCloseTo(0.1, 10);
    expect(await venue.fetchPositions([SWAP])).toEqual([]);
    // Nothing left to reduce: fapi's -2022 "ReduceOnly Order is rejected.": this order is refused.
    const refused = await venue
      .createOrder({
        symbol: SWAP,
        side: 'sell',
        type: 'market',
        amount: 0.1,
        reduceOnly: true,
        clientOrderId: 'fut-3',
      })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidOrderError);
    expect(refused).toMatchObject({ reason: 'other', action: 'refuse' });
    expect(String(refused)).toMatch(/-2022/);
    const ledger = await emu.ledger();
    expect(ledger.map((e) => [e.clientOrderId, e.symbol, e.market, e.status])).toEqual([
      ['fut-1', SWAP, 'swap', 'closed'],
      ['fut-2', SWAP, 'swap', 'canceled'],
    ]);
  });

  it('a cross position is reported as cross: its margin is its initial margin', async () => {
    hold(100_000);
    await venue.loadMarkets();
    // Binance's default margin type is CROSSED; the order goes in without setLeverage (1x).
    await venue.createOrder({
      symbol: SWAP,
      side: 'sell',
      type: 'market',
      amount: 0.05,
      clientOrderId: 'x-1',
    });
    const [pos] = await venue.fetchPositions();
    expect(pos).toMatchObject({ side: 'short', marginMode: 'cross', contracts: 0.05 });
    expect(pos!.collateral).toBeCloseTo(pos!.notional / 1, 4);
  });

  it('limit order: placed, looked up by id and by client id, listed, cancelled; the margin follows', async () => {
    await venue.setLeverage(5, SWAP);
    const p = Math.round(price() * 0.9);
    const o = await venue.createOrder({
      symbol: SWAP,
      side: 'buy',
      type: 'limit',
      amount: 0.01,
      price: p,
      clientOrderId: 'lim-1',
    });
    expect(o).toMatchObject({ status: 'open', clientOrderId: 'lim-1', amount: 0.01, filled: 0, price: p });
    // The initial margin at 5x and the maker fee are held.
    const held = (await venue.fetchBalance({ type: 'swap' })).USDT!.used;
    expect(held).toBeCloseTo((0.01 * p) / 5 + 0.01 * p * 0.0002, 6);
    expect(await venue.fetchOrder(o.id, SWAP)).toMatchObject({ id: o.id, status: 'open' });
    expect(await venue.fetchOrderByClientId('lim-1', SWAP)).toMatchObject({ id: o.id });
    expect(await venue.fetchOrderByClientId('nobody', SWAP)).toBeNull();
    expect((await venue.fetchOpenOrders(SWAP)).map((x) => x.id)).toEqual([o.id]);
    // The lookup of an unknown client id read the lists after Binance's -2013.
    expect(paths()).toEqual(expect.arrayContaining(['GET /fapi/v1/openOrders', 'GET /fapi/v1/allOrders']));
    const c = await venue.cancelOrder(o.id, SWAP);
    expect(c).toMatchObject({ status: 'canceled', clientOrderId: 'lim-1' });
    // A cancel by client id (origClientOrderId), straight through ccxt.
    const o2 = await venue.createOrder({ ...limitOrder('lim-2'), price: p });
    const swapCcxt = (venue as unknown as { swapExchange: CcxtVenue['ccxt'] }).swapExchange;
    const c2 = await swapCcxt.cancelOrder(undefined as unknown as string, SWAP, {
      origClientOrderId: 'lim-2',
    });
    expect(c2).toMatchObject({ id: o2.id, status: 'canceled' });
    expect((await venue.fetchBalance({ type: 'swap' })).USDT).toMatchObject({ free: 50_000, used: 0 });
    // A second cancel: fapi's -2011 "Unknown order sent."
    await expect(venue.cancelOrder(o.id, SWAP)).rejects.toBeTruthy();
    await expect(venue.fetchOrder('999', SWAP)).rejects.toBeInstanceOf(OrderNotFoundError);
  });

  it("refuses with fapi's codes, each in its class: -2019 funds, -4164 notional, -4028 leverage, -4116 duplicate, -4047", async () => {
    await venue.loadMarkets();
    // -2019 "Margin is insufficient.": wait for funds, not an unmapped error.
    const big = await venue
      .createOrder({ symbol: SWAP, side: 'buy', type: 'market', amount: 10, clientOrderId: 'big' })
      .catch((e: unknown) => e);
    expect(big).toBeInstanceOf(InsufficientFundsError);
    expect(String(big)).toMatch(/-2019.*Margin is insufficient/);
    // -4164 below MIN_NOTIONAL: a market order the venue cannot check itself (no price), refused as min_cost.
    const small = await venue
      .createOrder({ symbol: SWAP, side: 'buy', type: 'market', amount: 0.00002, clientOrderId: 'small' })
      .catch((e: unknown) => e);
    expect(small).toBeInstanceOf(InvalidOrderError);
    expect(small).toMatchObject({ reason: 'min_cost' });
    expect(String(small)).toMatch(/-4164/);
    // Sent straight to ccxt (the venue's own checks would stop these first), read by the venue's
    // translation: -4028 "Leverage 100 is not valid" above the market's maximum (75x for an altcoin
    // on paper) refuses; -4116 a client id taken by an open order is a duplicate (look it up).
    const swapCcxt = (venue as unknown as { swapExchange: CcxtVenue['ccxt'] }).swapExchange;
    const alt = Object.values(emu.simulator.markets('binance', { swaps: true })).find(
      (m) => m.linear === true && m.maxLeverage === 75,
    );
    expect(alt).toBeDefined();
    const lev = await swapCcxt.setLeverage(100, alt!.symbol).catch((e: unknown) => e);
    expect(String(lev)).toMatch(/-4028/);
    expect(translateCcxtError(lev, 'binance')).toMatchObject({ reason: 'other', action: 'refuse' });
    expect(translateCcxtError(lev, 'binance')).toBeInstanceOf(InvalidOrderError);
    await expect(venue.setLeverage(126, SWAP)).rejects.toBeInstanceOf(InvalidOrderError);
    // Cross first (no order open yet), so that the venue's switch to isolated below meets the open order.
    await swapCcxt.setMarginMode('cross', SWAP);
    const p = Math.round(price() * 0.9);
    await swapCcxt.createOrder(SWAP, 'limit', 'buy', 0.01, p, { newClientOrderId: 'dup-1' });
    const dup = await swapCcxt
      .createOrder(SWAP, 'limit', 'buy', 0.01, p, { newClientOrderId: 'dup-1' })
      .catch((e: unknown) => e);
    expect(String(dup)).toMatch(/-4116/);
    expect(translateCcxtError(dup, 'binance')).toBeInstanceOf(DuplicateOrderError);
    // With an order open, the margin type cannot change: -4047, a refusal of this request.
    const locked = await venue.setLeverage(10, SWAP).catch((e: unknown) => e);
    expect(String(locked)).toMatch(/-4047/);
    expect(locked).toBeInstanceOf(InvalidOrderError);
  });

  it('setLeverage goes through the call wrapper: a clock skew is resynced, a 429 carries Retry-After', async () => {
    await venue.loadMarkets();
    // -1021 on POST /fapi/v1/marginType: the clock is measured again and the call retried once.
    emu.inject('clock-skew');
    expect(await venue.setLeverage(7, SWAP)).toBe(7);
    expect(emu.faults.applied['clock-skew']).toBe(1);
    expect(paths()).toContain('GET /fapi/v1/time');
    expect(await venue.fetchLeverage(SWAP)).toBe(7);
    // 429 on POST /fapi/v1/marginType: a rate-limit error saying when to come back.
    emu.settings.retryAfterS = 3;
    emu.inject('rate-limit');
    const limited = await venue.setLeverage(8, SWAP).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(VenueRateLimitError);
    expect((limited as VenueRateLimitError).retryAfterMs).toBe(3_000);
  });
});

describe('Binance USDⓈ-M emulator: faults on futures orders', () => {
  const limitReq = (clientOrderId: string, below = 0.9) => ({
    symbol: SWAP,
    side: 'buy' as const,
    type: 'limit' as const,
    amount: 0.01,
    price: Math.round(price() * below),
    clientOrderId,
  });

  it('a create whose answer is lost is found by its client id; a resend while open (-4116) is answered with it', async () => {
    await venue.loadMarkets();
    emu.inject('drop-after-accept');
    const req = limitReq('lost-1');
    await expect(venue.createOrder(req)).rejects.toBeInstanceOf(VenueNetworkError);
    const found = await venue.fetchOrderByClientId('lost-1', SWAP);
    expect(found).toMatchObject({ clientOrderId: 'lost-1', status: 'open' });
    // Binance refuses the resend (-4116 "ClientOrderId is duplicated."): the venue looks the order up
    // by its client id and answers with it; nothing is placed twice.
    const again = await venue.createOrder(req);
    expect(again).toMatchObject({ id: found!.id, clientOrderId: 'lost-1', status: 'open' });
    expect(emu.duplicateAttempts).toBe(1);
    expect((await emu.ledger()).filter((e) => e.clientOrderId === 'lost-1')).toHaveLength(1);
  });

  it('a lost market create: found filled by client id; Binance would take the id again once closed', async () => {
    await venue.loadMarkets();
    emu.inject('drop-after-accept');
    const req = {
      symbol: SWAP,
      side: 'buy' as const,
      type: 'market' as const,
      amount: 0.01,
      clientOrderId: 'lost-m',
    };
    await expect(venue.createOrder(req)).rejects.toBeInstanceOf(VenueNetworkError);
    expect(await venue.fetchOrderByClientId('lost-m', SWAP)).toMatchObject({
      status: 'closed',
      filled: 0.01,
    });
    expect((await venue.fetchPositions([SWAP]))[0]?.contracts).toBeCloseTo(0.01, 10);
    // "A unique id among open orders": a blind resend of a filled order is placed again, and the
    // emulator counts it so a crash test sees the double placement.
    await venue.createOrder(req);
    expect(emu.duplicateAttempts).toBe(1);
    expect((await emu.ledger()).filter((e) => e.clientOrderId === 'lost-m')).toHaveLength(2);
  });

  it('a held request times out; a 5xx is retried; a 429 says when to come back', async () => {
    await venue.loadMarkets();
    await venue.fetchPositions();
    emu.inject('timeout');
    await expect(venue.fetchPositions()).rejects.toBeInstanceOf(VenueNetworkError);
    emu.inject('server-error');
    const err = await venue.fetchBalance({ type: 'swap' }).catch((e: unknown) => e);
    expect((err as { action?: string }).action).toBe('retry');
    emu.settings.retryAfterS = 3;
    emu.inject('rate-limit');
    const limited = await venue.fetchOrderBook(SWAP).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(VenueRateLimitError);
    expect((limited as VenueRateLimitError).retryAfterMs).toBe(3_000);
    expect((await venue.fetchBalance({ type: 'swap' })).USDT?.free).toBe(50_000);
  });

  it('a partial fill is reported as such, then completes when the rest is released', async () => {
    await venue.loadMarkets();
    emu.inject('partial-fill');
    const o = await venue.createOrder({ ...limitReq('part-1', 1.05), amount: 0.05 });
    expect(o.status).toBe('open');
    expect(o.filled).toBeCloseTo(0.02, 10);
    expect(o.remaining).toBeCloseTo(0.03, 10);
    expect((await venue.fetchPositions([SWAP]))[0]?.contracts).toBeCloseTo(0.02, 10);
    await emu.releaseWithheld();
    const done = await venue.fetchOrder(o.id, SWAP);
    expect(done).toMatchObject({ status: 'closed' });
    expect(done.filled).toBeCloseTo(0.05, 10);
    expect((await venue.fetchPositions([SWAP]))[0]?.contracts).toBeCloseTo(0.05, 10);
  });

  it("a partly filled order's fee is its trades' commission, read once per fill, never counted twice", async () => {
    hold(100_000);
    await venue.loadMarkets();
    const trades = () => paths().filter((x) => x === 'GET /fapi/v1/userTrades').length;
    emu.inject('partial-fill');
    const o = await venue.createOrder({ ...limitReq('fee-1', 1.05), amount: 0.05 });
    expect(o.filled).toBeCloseTo(0.02, 10);
    // 0.02 filled: 0.05 % taker of its cost, in USDT, from one read of userTrades.
    expect(o.fee?.currency).toBe('USDT');
    expect(o.fee?.cost).toBeCloseTo(o.cost * 0.0005, 8);
    expect(trades()).toBe(1);
    // Read again with no new fill: the same fee, no new read.
    expect((await venue.fetchOrder(o.id, SWAP)).fee).toEqual(o.fee);
    expect(trades()).toBe(1);
    await emu.releaseWithheld();
    const done = await venue.fetchOrder(o.id, SWAP);
    expect(done.status).toBe('closed');
    // The whole order's commission (both fills), not the first fill's added to it again.
    const swapCcxt = (venue as unknown as { swapExchange: CcxtVenue['ccxt'] }).swapExchange;
    const all = (await swapCcxt.fetchMyTrades(SWAP)).filter((t) => t.order === o.id);
    const sum = all.reduce((a, t) => a + (t.fee?.cost ?? 0), 0);
    expect(all.length).toBe(2);
    expect(done.fee?.cost).toBeCloseTo(sum, 10);
    expect(done.fee?.cost).toBeCloseTo(done.cost * 0.0005, 6);
    expect(trades()).toBe(3);
    await venue.fetchOrder(o.id, SWAP);
    expect(trades()).toBe(3);
  });

  it('a partial market fill expires with what filled and stays so (the rest is never placed later)', async () => {
    await venue.loadMarkets();
    emu.inject('partial-fill');
    const o = await venue.createOrder({
      symbol: SWAP,
      side: 'sell',
      type: 'market',
      amount: 0.05,
      clientOrderId: 'part-m',
    });
    expect(o.status).toBe('expired');
    expect(o.filled).toBeCloseTo(0.02, 10);
    await emu.releaseWithheld();
    expect(await venue.fetchOrder(o.id, SWAP)).toMatchObject({ status: 'expired', filled: 0.02 });
    expect((await venue.fetchPositions([SWAP]))[0]).toMatchObject({ side: 'short', contracts: 0.02 });
    expect((await emu.ledger()).find((e) => e.clientOrderId === 'part-m')).toMatchObject({
      status: 'canceled',
      filled: 0.02,
    });
  });

  it('a fill learned late: reads say open until the delay passes', async () => {
    await venue.loadMarkets();
    emu.settings.lateMs = 2_000;
    emu.inject('late-fill');
    const sent = Date.now();
    const o = await venue.createOrder(limitReq('late-1', 1.05));
    expect(o).toMatchObject({ status: 'open', filled: 0 });
    const early = await venue.fetchOrder(o.id, SWAP);
    // Only meaningful while the delay runs (a stalled machine may pass it before this read).
    if (Date.now() < sent + 2_000) expect(early.status).toBe('open');
    await new Promise((r) => setTimeout(r, Math.max(0, sent + 2_050 - Date.now())));
    expect(await venue.fetchOrder(o.id, SWAP)).toMatchObject({ status: 'closed', filled: 0.01 });
  });

  it('"unknown order" (-2013) on the first lookups, then found; cancel of an unknown id is -2011', async () => {
    await venue.loadMarkets();
    emu.settings.unknownLookups = 2;
    emu.inject('unknown-order');
    const o = await venue.createOrder(limitReq('unk-1'));
    await expect(venue.fetchOrder(o.id, SWAP)).rejects.toBeInstanceOf(OrderNotFoundError);
    await expect(venue.fetchOrder(o.id, SWAP)).rejects.toBeInstanceOf(OrderNotFoundError);
    expect(await venue.fetchOrder(o.id, SWAP)).toMatchObject({ status: 'open', clientOrderId: 'unk-1' });
    const err = await venue.cancelOrder('4999999999', SWAP).catch((e: unknown) => e);
    expect(String(err)).toMatch(/-2011|Unknown order/);
  });

  it('clock skew (-1021) on a futures create: the venue resyncs on /fapi/v1/time and places it once', async () => {
    await venue.loadMarkets();
    emu.inject('clock-skew');
    const o = await venue.createOrder({
      symbol: SWAP,
      side: 'sell',
      type: 'market',
      amount: 0.01,
      clientOrderId: 'skew-1',
    });
    expect(o.status).toBe('closed');
    expect(emu.faults.applied['clock-skew']).toBe(1);
    expect(paths()).toContain('GET /fapi/v1/time');
    expect((await emu.ledger()).map((e) => e.clientOrderId)).toEqual(['skew-1']);
  });
});
