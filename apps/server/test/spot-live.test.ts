/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- JSON answers read loosely */
import { SPOT_MESSAGES } from '@bytx/contract';
import { CcxtVenue } from '@bytx/venues/live';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MarketHubService } from '../src/modules/market/market.service';
import { defaultVenueFactory } from '../src/modules/exchanges/venue-factory';
import type { DbVenueRegistry } from '../src/modules/exchanges/venue-registry';
import { runners } from '../src/modules/bots/routes';
import { strategyIdOf } from '../src/modules/bots/runner';
import { until as waitFor } from './bots.helpers';
import { fakeBinance, KEY, SECRET } from './spot-live.fake';
import { apiCaller, createTestUser, makeTestApp, type TestApp } from './helpers';

type Json = Record<string, any>;
type User = Awaited<ReturnType<typeof createTestUser>>;

const EX = 'binance';
const SYM = 'BTC/USDT';
const PERP = 'BTC/USDT:USDT';
const until = <T>(fn: () => Promise<T | null | undefined | false>) => waitFor(fn, 10_000);

/**
 * The spot and futures screens' calls (issue 16, docs/trading.md) on a LIVE Binance account: the
 * CcxtVenue of the user's keys and the market data both go through ccxt 4.5 to Binance's REST API, which
 * is replaced only at ccxt's HTTP boundary (`fetchImplementation`) by the recorded-style responses above.
 * The app runs with MARKET_DATA=live; its market-data hub is the app's own MarketHubService on
 * `CcxtVenue.publicData` as with MARKET_DATA=live, given the fake fetch (and a 25 ms poll, no ticker
 * cache, so a price the test sets reaches the runner within milliseconds). Each test asserts the
 * requests ccxt made (host, path, signed parameters) as well as what the screens' calls answer; the
 * tests share one account and run in order.
 */
describe('Spot and futures orders on a live Binance account (ccxt, recorded responses)', () => {
  let t: TestApp;
  let user: User;
  let hub: MarketHubService;
  const fake = fakeBinance();
  const call = apiCaller(() => t.app);
  const order = (body: Json) => call(user, 'POST', '/api/spot/order', { exchange: EX, ...body });
  const orders = async (symbol = SYM) => {
    const r = await call(user, 'GET', `/api/spot/orders?exchange=${EX}&symbol=${encodeURIComponent(symbol)}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as { open: Json[]; recent: Json[]; fills: Json[] };
  };
  const one = async (id: string, symbol = SYM) => {
    const o = await orders(symbol);
    return [...o.open, ...o.recent].find((x) => x.id === id) ?? null;
  };
  const q = (text: string, params: unknown[] = []) => t.ctx.database.sql.query(text, params);
  /** The requests ccxt sent to place, query and cancel orders since `from` (an index into `fake.calls`). */
  const sent = (from: number, method: string, path: string) =>
    fake.calls.slice(from).filter((c) => c.method === method && c.path === path);

  beforeAll(async () => {
    t = await makeTestApp({ BOT_RUNNER: '1', MARKET_DATA: 'live', TRADING_SCREENS: 'all' });
    // The app's own live hub would reach the exchanges' real hosts: this test never lets it.
    const appHub = t.ctx.services.market as MarketHubService;
    appHub.sourceOf = () => {
      throw new Error('the app hub would reach the internet');
    };
    hub = new MarketHubService({
      source: (exchange) => CcxtVenue.publicData(exchange, { fetchImplementation: fake.fetchImplementation }),
      ttl: { ticker: 0, orderBook: 0, candles: 0 },
      pollMs: 25,
    });
    t.ctx.services.market = hub;
    (t.ctx.services.venues as DbVenueRegistry).factory = defaultVenueFactory(t.ctx, {
      fetchImplementation: fake.fetchImplementation,
      orderPollMs: 50,
    });
    runners.get(t.ctx)!.deps.retryBaseMs = 5;
    user = await createTestUser(t);
    const c = await call(user, 'POST', '/api/conectar_exchange', {
      exchange: EX,
      apiKey: KEY,
      apiSecret: SECRET,
    });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(c.body).toMatchObject({ success: true, mode: 'live' });
  });
  afterAll(async () => {
    hub?.close();
    await t?.close();
  });

  it('reads the live market’s steps, minimums and price, and the account’s free balances', async () => {
    const from = fake.calls.length;
    const r = await call(user, 'GET', `/api/spot/market?exchange=${EX}&symbol=${encodeURIComponent(SYM)}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({
      success: true,
      exchange: EX,
      symbol: SYM,
      listed: true,
      base: 'BTC',
      quote: 'USDT',
      market: 'spot',
      amount_step: 0.00001,
      price_step: 0.01,
      min_amount: 0.00001,
      min_cost: 5,
      taker: 0.001,
      maker: 0.001,
      max_leverage: null,
      price: 95_000,
      base_free: 0.5,
      quote_free: 2_000,
    });
    const asked = fake.calls
      .slice(from)
      .map((c) => `${c.method} ${c.host}${c.path}${c.signed ? ' (signed)' : ''}`);
    // The market list and price from Binance (the hub's public ccxt instance), the balances signed.
    expect(asked).toContain('GET api.binance.com/api/v3/exchangeInfo');
    expect(asked).toContain('GET api.binance.com/api/v3/ticker/24hr');
    expect(asked).toContain('GET api.binance.com/api/v3/account (signed)');
    // A pair the exchange's list does not have is marked, nothing to trade.
    const eth = await call(user, 'GET', `/api/spot/market?exchange=${EX}&symbol=ETH/USDT`);
    expect(eth.body).toMatchObject({ listed: false, symbol: 'ETH/USDT', price: null });
    expect(fake.misses).toEqual([]);
  });

  it('sends a limit buy with TP and SL under our client order id, rounded to the steps; it rests open', async () => {
    const from = fake.calls.length;
    const r = await order({
      symbol: SYM,
      side: 'buy',
      type: 'limit',
      price: '90000.009',
      quantity: '0.0123456',
      tp: '99000.006',
      sl: '85000.004',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.message).toBe('✅ Order placed: buy 0.01234 BTC at 90000 USDT.');
    const id = r.body.order.id as string;
    expect(r.body.order).toMatchObject({
      exchange: EX,
      symbol: SYM,
      market: 'spot',
      side: 'buy',
      type: 'limit',
      price: 90_000,
      quantity: 0.01234,
      tp: 99_000.01,
      sl: 85_000,
      filled: 0,
      status: 'open',
      exit_state: 'waiting_entry',
      reduce_only: false,
    });
    const [entry] = await q(
      `SELECT client_order_id, venue_order_id, status FROM bot_orders WHERE bot_id = $1`,
      [id],
    );
    const posts = sent(from, 'POST', '/api/v3/order');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.host).toBe('api.binance.com');
    expect(posts[0]!.signed).toBe(true);
    expect(posts[0]!.params).toMatchObject({
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'LIMIT',
      timeInForce: 'GTC',
      price: '90000',
      quantity: '0.01234',
      newClientOrderId: entry!.client_order_id,
    });
    // Our client order id: the order's short strategy id and the entry's sequence number.
    expect(entry!.client_order_id).toBe(`${strategyIdOf(id)}-0`);
    expect(entry).toMatchObject({
      status: 'open',
      venue_order_id: String(fake.spot.get(entry!.client_order_id as string)!.orderId),
    });
    const list = await orders();
    expect(list.open.map((o) => [o.id, o.status])).toEqual([[id, 'open']]);
    expect(list.fills).toEqual([]);
    expect(fake.misses).toEqual([]);
  });

  it('DELETE sends the cancel to the exchange and the order ends cancelled', async () => {
    const [open] = (await orders()).open;
    const id = open!.id as string;
    const [entry] = await q(`SELECT client_order_id FROM bot_orders WHERE bot_id = $1`, [id]);
    const cid = entry!.client_order_id as string;
    const from = fake.calls.length;
    const del = await call(user, 'DELETE', `/api/spot/orders/${id}`);
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect(del.body).toMatchObject({ success: true, message: SPOT_MESSAGES.cancelled });
    expect(del.body.order).toMatchObject({ id, status: 'cancelled', filled: 0, exit_state: 'cancelled' });
    // Looked up by our client id, then cancelled by the exchange's order id.
    const lookups = sent(from, 'GET', '/api/v3/order');
    expect(lookups.map((c) => c.params.origClientOrderId)).toContain(cid);
    const cancels = sent(from, 'DELETE', '/api/v3/order');
    expect(cancels).toHaveLength(1);
    expect(cancels[0]!.params).toMatchObject({
      symbol: 'BTCUSDT',
      orderId: String(fake.spot.get(cid)!.orderId),
    });
    expect(fake.spot.get(cid)!.status).toBe('CANCELED');
    const list = await orders();
    expect(list.open).toEqual([]);
    expect(list.recent[0]).toMatchObject({ id, status: 'cancelled' });
    expect(await q(`SELECT status FROM bot_orders WHERE bot_id = $1`, [id])).toEqual([
      { status: 'cancelled' },
    ]);
    expect(fake.misses).toEqual([]);
  });

  it('the exchange refusing the order (-2010) answers 422 with its reason; the order is kept as rejected', async () => {
    // Our check passes (the account shows 2,000 USDT free); Binance refuses anyway (funds moved meanwhile).
    const msg = 'Account has insufficient balance for requested action.';
    fake.refuseNextOrder(400, { code: -2010, msg });
    const from = fake.calls.length;
    const r = await order({ symbol: SYM, side: 'buy', type: 'limit', price: '94000', quantity: '0.02' });
    expect(r.status, JSON.stringify(r.body)).toBe(422);
    expect(r.body).toMatchObject({ success: false, error: '❌ Failed to execute order.' });
    expect(r.body.error).toBe(SPOT_MESSAGES.executeFailed);
    expect(r.body.reason).toBe(`binance: insufficient balance (binance ${msg})`);
    expect(r.body.order).toMatchObject({ status: 'rejected', filled: 0, error: r.body.reason });
    const posts = sent(from, 'POST', '/api/v3/order');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.params).toMatchObject({ side: 'BUY', type: 'LIMIT', price: '94000', quantity: '0.02' });
    const list = await orders();
    expect(list.open).toEqual([]);
    expect(list.recent[0]).toMatchObject({ id: r.body.order.id, status: 'rejected', error: r.body.reason });
    expect(await q(`SELECT status FROM bot_orders WHERE bot_id = $1`, [r.body.order.id])).toEqual([
      { status: 'rejected' },
    ]);
    // Refused for funds, not for the key: nothing is paused.
    expect(await q(`SELECT status, problem FROM bots WHERE id = $1`, [r.body.order.id])).toEqual([
      { status: 'error', problem: null },
    ]);
    expect(fake.misses).toEqual([]);
  });

  it('a market buy answered filled sends its take profit as a limit sell (no reduceOnly on spot)', async () => {
    fake.setSpotPrice(95_000);
    const from = fake.calls.length;
    const r = await order({
      symbol: SYM,
      side: 'buy',
      type: 'market',
      quantity: '0.01',
      tp: '99000',
      sl: '90000',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = r.body.order.id as string;
    expect(r.body.message).toBe('✅ Order filled: buy 0.01 BTC at 95000 USDT.');
    expect(r.body.order).toMatchObject({
      type: 'market',
      price: null,
      status: 'filled',
      filled: 0.01,
      average: 95_000,
      cost: 950,
      exit_state: 'active',
      tp: 99_000,
      sl: 90_000,
    });
    // Binance took its 0.1 % commission in BTC (0.00001 BTC): 0.95 USDT at the fill price.
    expect(r.body.order.fee).toBeCloseTo(0.95, 10);
    const journal = await q(
      `SELECT role, side, type, price, amount, status, client_order_id FROM bot_orders WHERE bot_id = $1 ORDER BY created_at`,
      [id],
    );
    expect(journal.map((o) => [o.role, o.side, o.type, o.status])).toEqual([
      ['manual_entry', 'buy', 'market', 'filled'],
      ['manual_tp', 'sell', 'limit', 'open'],
    ]);
    const posts = sent(from, 'POST', '/api/v3/order');
    expect(posts.map((c) => c.params)).toEqual([
      expect.objectContaining({
        symbol: 'BTCUSDT',
        side: 'BUY',
        type: 'MARKET',
        quantity: '0.01',
        newClientOrderId: journal[0]!.client_order_id,
      }),
      expect.objectContaining({
        symbol: 'BTCUSDT',
        side: 'SELL',
        type: 'LIMIT',
        timeInForce: 'GTC',
        price: '99000',
        quantity: '0.01',
        newClientOrderId: journal[1]!.client_order_id,
      }),
    ]);
    expect(posts[0]!.params).not.toHaveProperty('price');
    for (const p of posts) expect(p.params).not.toHaveProperty('reduceOnly');
    expect((await orders()).open.map((o) => [o.id, o.exit_state])).toEqual([[id, 'active']]);

    // The market reaches the take profit: the exchange fills it while it rests. The venue's order poll
    // (every 50 ms here, LIVE_ORDER_POLL_MS in production) finds it gone from the open orders, reads it
    // filled and pushes it: the round trip is recorded with no user action.
    const seen = fake.calls.length;
    fake.setSpotPrice(99_000);
    expect(fake.spot.get(journal[1]!.client_order_id as string)!.status).toBe('FILLED');
    await until(async () => (await one(id))?.exit_state === 'tp_filled');
    expect(sent(seen, 'DELETE', '/api/v3/order')).toEqual([]);
    const done = await one(id);
    expect(done).toMatchObject({ id, status: 'filled', exit_state: 'tp_filled' });
    // 0.01 × (99,000 − 95,000) − 0.95 (entry commission) − 0.99 (the take profit's: 0.1 % of 990 USDT).
    // Binance's order query gives no commission: the venue reads it from GET /api/v3/myTrades.
    expect(done!.pnl).toBeCloseTo(38.06, 8);
    expect(sent(seen, 'GET', '/api/v3/myTrades')).toHaveLength(1);
    const fills = (await orders()).fills.filter((f) => f.order_id === id);
    expect(fills.map((f) => [f.role, f.side, f.price, f.quantity])).toEqual([
      ['take_profit', 'sell', 99_000, 0.01],
      ['entry', 'buy', 95_000, 0.01],
    ]);
    expect(fake.misses).toEqual([]);
  });

  it('ticks reaching the stop loss cancel the take profit on the exchange and sell at market', async () => {
    fake.setSpotPrice(95_000);
    const r = await order({
      symbol: SYM,
      side: 'buy',
      type: 'market',
      quantity: '0.01',
      tp: '120000',
      sl: '90000',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = r.body.order.id as string;
    expect(r.body.order).toMatchObject({ status: 'filled', exit_state: 'active' });
    const [tp] = await q(`SELECT client_order_id FROM bot_orders WHERE bot_id = $1 AND role = 'manual_tp'`, [
      id,
    ]);
    const tpCid = tp!.client_order_id as string;
    const from = fake.calls.length;
    fake.setSpotPrice(91_000); // above the stop loss: quiet
    await until(async () => sent(from, 'GET', '/api/v3/ticker/24hr').length >= 3);
    expect((await one(id))!.exit_state).toBe('active');
    fake.setSpotPrice(89_000);
    const done = await until(async () => {
      const o = await one(id);
      return o?.exit_state === 'sl_filled' ? o : null;
    });
    expect(done.status).toBe('filled');
    const cancels = sent(from, 'DELETE', '/api/v3/order');
    expect(cancels.map((c) => c.params.orderId)).toEqual([String(fake.spot.get(tpCid)!.orderId)]);
    expect(fake.spot.get(tpCid)!.status).toBe('CANCELED');
    const posts = sent(from, 'POST', '/api/v3/order');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.params).toMatchObject({
      symbol: 'BTCUSDT',
      side: 'SELL',
      type: 'MARKET',
      quantity: '0.01',
    });
    expect(posts[0]!.params).not.toHaveProperty('reduceOnly');
    // Sold at 89,000, commission 0.89 USDT: 0.01 × (89,000 − 95,000) − 0.95 − 0.89.
    expect(done.pnl).toBeCloseTo(-61.84, 8);
    const rows = await q(
      `SELECT role, side, type, status FROM bot_orders WHERE bot_id = $1 ORDER BY created_at`,
      [id],
    );
    expect(rows.map((o) => [o.role, o.side, o.type, o.status])).toEqual([
      ['manual_entry', 'buy', 'market', 'filled'],
      ['manual_tp', 'sell', 'limit', 'cancelled'],
      ['manual_sl', 'sell', 'market', 'filled'],
    ]);
    const codes = (await q('SELECT code FROM bot_events WHERE bot_id = $1', [id])).map((e) => e.code);
    expect(codes).toContain('sl_hit');
    expect(fake.misses).toEqual([]);
  });

  it('futures (USDⓈ-M): a market long goes to the futures endpoint; close sends a reduce-only market sell', async () => {
    const perp = encodeURIComponent(PERP);
    const m = await call(user, 'GET', `/api/spot/market?exchange=${EX}&symbol=${perp}`);
    expect(m.status, JSON.stringify(m.body)).toBe(200);
    expect(m.body).toMatchObject({
      symbol: PERP,
      listed: true,
      market: 'swap',
      base: 'BTC',
      quote: 'USDT',
      amount_step: 0.001,
      price_step: 0.1,
      min_amount: 0.001,
      min_cost: 100,
      // ccxt gives no maximum leverage for Binance's markets (docs/venues.md): the platform's own cap.
      max_leverage: 200,
      price: 95_000,
      quote_free: 5_000,
    });
    const lev = await call(user, 'POST', '/api/set_leverage', { exchange: EX, symbol: SYM, leverage: 5 });
    expect(lev.status, JSON.stringify(lev.body)).toBe(200);

    const from = fake.calls.length;
    const r = await order({ symbol: PERP, side: 'long', type: 'market', quantity: '0.0105' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.message).toBe('✅ Order filled: buy 0.01 BTC at 95000 USDT.');
    expect(r.body.order).toMatchObject({
      symbol: PERP,
      market: 'swap',
      side: 'buy',
      type: 'market',
      quantity: 0.01,
      filled: 0.01,
      average: 95_000,
      status: 'filled',
      reduce_only: false,
    });
    const [entry] = await q(`SELECT client_order_id FROM bot_orders WHERE bot_id = $1`, [r.body.order.id]);
    // Isolated margin and the stored leverage are set on the market before the order.
    expect(sent(from, 'POST', '/fapi/v1/marginType')[0]!.params).toMatchObject({
      symbol: 'BTCUSDT',
      marginType: 'ISOLATED',
    });
    expect(sent(from, 'POST', '/fapi/v1/leverage')[0]!.params).toMatchObject({
      symbol: 'BTCUSDT',
      leverage: '5',
    });
    expect(sent(from, 'POST', '/api/v3/order')).toEqual([]);
    const posts = sent(from, 'POST', '/fapi/v1/order');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.host).toBe('fapi.binance.com');
    expect(posts[0]!.params).toMatchObject({
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'MARKET',
      quantity: '0.01',
      newClientOrderId: entry!.client_order_id,
    });
    expect(posts[0]!.params).not.toHaveProperty('reduceOnly');
    expect(fake.position()).toEqual({ amt: 0.01, entry: 95_000 });

    const closeFrom = fake.calls.length;
    const c = await call(user, 'POST', '/api/futures/close', { exchange: EX, symbol: PERP });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(c.body).toMatchObject({ success: true, message: SPOT_MESSAGES.closing });
    expect(c.body.order).toMatchObject({
      symbol: PERP,
      side: 'sell',
      type: 'market',
      quantity: 0.01,
      filled: 0.01,
      reduce_only: true,
      status: 'filled',
    });
    expect(
      sent(closeFrom, 'GET', '/fapi/v3/positionRisk').length +
        sent(closeFrom, 'GET', '/fapi/v2/positionRisk').length,
    ).toBeGreaterThan(0);
    const closes = sent(closeFrom, 'POST', '/fapi/v1/order');
    expect(closes).toHaveLength(1);
    expect(closes[0]!.params).toMatchObject({
      symbol: 'BTCUSDT',
      side: 'SELL',
      type: 'MARKET',
      quantity: '0.01',
      reduceOnly: 'true',
    });
    expect(fake.position().amt).toBe(0);
    const again = await call(user, 'POST', '/api/futures/close', { exchange: EX, symbol: PERP });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('❌ There is no open position on BTC/USDT:USDT.');
    const fills = (await orders(PERP)).fills;
    expect(fills.map((f) => [f.role, f.side, f.quantity, f.symbol])).toEqual([
      ['close', 'sell', 0.01, PERP],
      ['entry', 'buy', 0.01, PERP],
    ]);

    const f = await call(user, 'GET', `/api/futures/funding?exchange=${EX}&symbol=${perp}`);
    expect(f.status, JSON.stringify(f.body)).toBe(200);
    expect(f.body).toEqual({
      success: true,
      exchange: EX,
      symbol: PERP,
      rate: 0.0001,
      next_funding_time: 1736956800000,
      mark_price: 95_000,
    });
    expect(fake.misses).toEqual([]);
  });

  // A fill made on the exchange while an order rests reaches the runner through the venue's order poll
  // (CcxtVenue.pollOrders, unit-tested with partial fills in packages/venues/test/ccxt-venue.test.ts);
  // the take profit test above goes through it end to end.
});
