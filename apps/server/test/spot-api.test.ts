/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- JSON answers read loosely */
// Over 800 lines (879) on purpose: the spot screen's tests share one app and four paper accounts whose
// wallets and open orders each test builds on (a fill, then its TP/SL, then the cancel after the entry),
// so they run in order in one describe; split, each file would repeat the ~100 lines of set-up and
// helpers and restart the app. The open-orders race (the last describe) is the only separable part.
import { randomUUID } from 'node:crypto';
import { SPOT_MESSAGES } from '@bytx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/client';
import { bots as botsTable, users } from '../src/db/schema/index';
import { ManualOrdersRepository } from '../src/modules/trading/orders.repository';
import { MANUAL_INPUT_MESSAGES } from '../src/modules/trading/inputs';
import { until as waitFor } from './bots.helpers';
import {
  apiCaller,
  createTestUser,
  DASHBOARD_CALLS,
  freshPostgresUrl,
  makeTestApp,
  PG_SKIP_REASON,
  PG_URL,
  tempDir,
  type TestApp,
} from './helpers';
import { openTestDatabase } from './db-snapshot';

type User = Awaited<ReturnType<typeof createTestUser>>;
type Json = Record<string, any>;

const EX = 'binance';
const SYM = 'BTC/USDT';
const FORBIDDEN = 'Platform in Development';
const until = <T>(fn: () => Promise<T | null | undefined | false>) => waitFor(fn, 15_000);

/**
 * The spot screen's calls (issue 16, docs/trading.md) on paper accounts: every order rule with its
 * exact message (and nothing changed by a refused order), the rounding to the market's steps, dry_run,
 * a market buy changing the wallet at once, a resting limit order cancelled with its funds freed, the
 * take profit and the stop loss as one-cancels-the-other, the exchange's refusal (422) and an unexpected
 * failure (500), the open-orders limit, favourites per user, the access rule, and manual orders kept out
 * of every bot list, history and cap. Paper fills (Binance): a market buy at the ask, 0.01 % above the
 * price, a market sell at the bid, 0.01 % below, a resting limit at its own price; fee 0.1 % in USDT.
 * Market orders stay under 500 USD, the smallest level of the simulated book (500-20,000 USD, drawn
 * each second): a larger one can take the second level in an unlucky second and fill 0.02 % worse.
 */
describe('Spot orders, favourites and access (/api/spot/*) on paper accounts', () => {
  let database: Database;
  let t: TestApp;
  /** Support accounts (SUPPORT_EMAILS): alice trades, bob checks isolation, dave the refusals, erin the limit. */
  let alice: User;
  let bob: User;
  let dave: User;
  let erin: User;
  /** An ordinary account: the trading screens are closed to it. */
  let carol: User;
  const call = apiCaller(() => t.app);
  const setPrice = async (price: number, symbol = SYM) => {
    const r = await call(null, 'POST', '/api/dev/market/price', { exchange: EX, symbol, price });
    expect(r.status).toBe(200);
  };
  const order = (u: User, body: Json) => call(u, 'POST', '/api/spot/order', { exchange: EX, ...body });
  const orders = async (u: User, query = `?exchange=${EX}`) => {
    const r = await call(u, 'GET', `/api/spot/orders${query}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as { open: Json[]; recent: Json[]; fills: Json[] };
  };
  const one = async (u: User, id: string) => {
    const o = await orders(u);
    return [...o.open, ...o.recent].find((x) => x.id === id)!;
  };
  const wallet = async (u: User) => {
    const r = await call(u, 'GET', `/api/wallet?exchange=${EX}`);
    expect(r.status).toBe(200);
    return r.body.balances as Record<string, number>;
  };
  const marketInfo = async (u: User, symbol = SYM) => {
    const r = await call(u, 'GET', `/api/spot/market?exchange=${EX}&symbol=${encodeURIComponent(symbol)}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body;
  };
  const q = async (text: string, params: unknown[] = []) => t.ctx.database.sql.query(text, params);
  const count = async (table: string, userId: string) =>
    Number(
      (
        await q(
          table === 'bots'
            ? 'SELECT count(*)::int AS n FROM bots WHERE user_id = $1'
            : 'SELECT count(*)::int AS n FROM bot_orders o JOIN bots b ON b.id = o.bot_id WHERE b.user_id = $1',
          [userId],
        )
      )[0]?.n ?? 0,
    );
  /** A refused order: its status and exact message, and nothing of the account changed. */
  const refused = async (u: User, body: Json, status: number, message: string) => {
    const before = {
      bots: await count('bots', u.id),
      orders: await count('orders', u.id),
      w: await wallet(u),
    };
    const r = await order(u, body);
    expect(r.body.error, JSON.stringify(body)).toBe(message);
    expect(r.status, JSON.stringify(body)).toBe(status);
    expect(r.body).toMatchObject({ success: false, message });
    expect(await count('bots', u.id)).toBe(before.bots);
    expect(await count('orders', u.id)).toBe(before.orders);
    expect(await wallet(u)).toEqual(before.w);
    return r.body;
  };

  beforeAll(async () => {
    database = await openTestDatabase();
    t = await makeTestApp(
      {
        BOT_RUNNER: '1',
        SIMULATOR_CONTROL: '1',
        SUPPORT_EMAILS: 'alice@spot.test,bob@spot.test,dave@spot.test,erin@spot.test',
        MAX_BOTS_PER_USER: '1',
      },
      { database },
    );
    alice = await createTestUser(t, 'alice@spot.test');
    bob = await createTestUser(t, 'bob@spot.test');
    dave = await createTestUser(t, 'dave@spot.test');
    erin = await createTestUser(t, 'erin@spot.test');
    carol = await createTestUser(t, 'carol@spot.test');
    for (const u of [alice, bob, dave, erin, carol]) {
      const r = await call(u, 'POST', '/api/conectar_exchange', { exchange: EX, mode: 'paper' });
      expect(r.status).toBe(200);
    }
    await setPrice(100_000);
    await setPrice(3_000, 'ETH/USDT');
  });
  afterAll(async () => {
    await t?.close();
    await database?.close();
  });

  it('opens the trading calls only to the support accounts: 403 before any input is read', async () => {
    const calls: [string, string, Json?][] = [
      ['POST', '/api/spot/order', { exchange: EX, symbol: SYM, side: 'buy', type: 'market', quantity: 1 }],
      ['POST', '/api/spot/order', {}],
      ['GET', `/api/spot/orders?exchange=${EX}`],
      ['GET', '/api/spot/orders'],
      ['DELETE', `/api/spot/orders/${randomUUID()}`],
      ['GET', `/api/spot/market?exchange=${EX}&symbol=BTC/USDT`],
      ['GET', '/api/spot/favorites'],
      ['POST', '/api/spot/favorites', { symbol: SYM, favorite: true }],
      ['POST', '/api/futures/close', { exchange: EX, symbol: 'BTC/USDT:USDT' }],
      ['GET', `/api/futures/funding?exchange=${EX}&symbol=BTC/USDT:USDT`],
    ];
    for (const [method, url, body] of calls) {
      const r = await call(carol, method, url, body);
      expect(r.status, url).toBe(403);
      expect(r.body).toMatchObject({ success: false, error: FORBIDDEN, message: FORBIDDEN });
      expect((await call(null, method, url, body)).status, url).toBe(401);
    }
    expect((await call(carol, 'GET', '/api/me')).body.user.canTrade).toBe(false);
    expect((await call(alice, 'GET', '/api/me')).body.user.canTrade).toBe(true);
    expect(await count('bots', carol.id)).toBe(0);

    // TRADING_SCREENS=all opens them to every logged-in user.
    const open = await makeTestApp({ TRADING_SCREENS: 'all' });
    try {
      const anyone = await createTestUser(open, 'anyone@spot.test');
      const r = await apiCaller(() => open.app)(anyone, 'GET', '/api/spot/favorites');
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ success: true, favorites: [] });
      expect((await apiCaller(() => open.app)(anyone, 'GET', '/api/me')).body.user.canTrade).toBe(true);
    } finally {
      await open.close();
    }
  });

  it('refuses every bad order with the rule’s own message, in the documented order, changing nothing', async () => {
    const ok = { symbol: SYM, side: 'buy', type: 'limit', price: '90000', quantity: '0.001' };
    const cases: [Json, number, string][] = [
      // The exchange.
      [{ ...ok, exchange: undefined }, 400, SPOT_MESSAGES.badExchange],
      [{ ...ok, exchange: ' ' }, 400, '❌ You must select an exchange.'],
      [{ ...ok, exchange: 'kraken' }, 400, SPOT_MESSAGES.notConnected],
      [{ ...ok, exchange: 'nope' }, 400, '❌ This exchange is not connected. Please connect it in Settings.'],
      // The pair (everything after it wrong too: the first rule answers).
      [{ exchange: EX, side: 'hold', type: 'stop' }, 400, '❌ symbol must be a pair such as BTC/USDT.'],
      [{ ...ok, symbol: 'NOPE/USDT', side: 'hold' }, 400, '❌ NOPE/USDT is not available on Binance.'],
      [{ ...ok, symbol: 'BTC/USDT:BTC' }, 400, '❌ BTC/USDT:BTC is not available on Binance.'],
      [{ ...ok, symbol: 'BTC-USDT' }, 400, '❌ BTC-USDT is not available on Binance.'],
      // Side and type.
      [{ ...ok, side: 'hold', type: 'stop' }, 400, '❌ side must be buy or sell.'],
      [{ ...ok, side: undefined }, 400, SPOT_MESSAGES.badSide],
      [{ ...ok, type: 'stop', price: 'abc' }, 400, '❌ type must be limit or market.'],
      [{ ...ok, type: 7 }, 400, SPOT_MESSAGES.badType],
      // Reduce-only is for futures; dry_run and reduce_only are booleans.
      [{ ...ok, reduce_only: true }, 400, '❌ Reduce-only is for futures orders.'],
      [{ ...ok, reduce_only: 'maybe' }, 400, MANUAL_INPUT_MESSAGES.badReduceOnly],
      [{ ...ok, dry_run: 'perhaps' }, 400, '❌ dry_run must be true or false.'],
      // The limit price, the quantity (the spec's texts).
      [{ ...ok, price: undefined, quantity: 'x' }, 400, SPOT_MESSAGES.badLimitPrice],
      [{ ...ok, price: 'abc' }, 400, '❌ Price must be a valid positive number for limit orders.'],
      [{ ...ok, price: 0 }, 400, SPOT_MESSAGES.badLimitPrice],
      [{ ...ok, price: '-5' }, 400, SPOT_MESSAGES.badLimitPrice],
      [{ ...ok, price: 'Infinity' }, 400, SPOT_MESSAGES.badLimitPrice],
      [{ ...ok, price: '0.001' }, 400, SPOT_MESSAGES.badLimitPrice], // 0 once rounded down to 0.01
      [{ ...ok, quantity: undefined }, 400, '❌ Quantity must be a positive number.'],
      [{ ...ok, quantity: 'x', tp: 'y' }, 400, SPOT_MESSAGES.badQuantity],
      [{ ...ok, quantity: 0 }, 400, SPOT_MESSAGES.badQuantity],
      [{ ...ok, quantity: '-1' }, 400, SPOT_MESSAGES.badQuantity],
      [{ ...ok, type: 'market', quantity: '0.000009' }, 400, SPOT_MESSAGES.badQuantity], // 0 once rounded
      // TP and SL: positive numbers, then on the right side of the entry.
      [{ ...ok, tp: 'abc' }, 400, '❌ TP/SL must be valid positive numbers.'],
      [{ ...ok, tp: '95000', sl: 0 }, 400, SPOT_MESSAGES.badTpSl],
      [{ ...ok, sl: '-1' }, 400, SPOT_MESSAGES.badTpSl],
      [{ ...ok, tp: '90000' }, 400, '❌ For a buy, Take Profit must be above the entry price.'],
      [{ ...ok, tp: '89000', sl: '95000' }, 400, SPOT_MESSAGES.buyTpNotAbove],
      [{ ...ok, tp: '95000', sl: '91000' }, 400, '❌ For a buy, Stop Loss must be below the entry price.'],
      [
        { ...ok, side: 'sell', tp: '91000' },
        400,
        '❌ For a sell, Take Profit must be below the entry price.',
      ],
      [{ ...ok, side: 'sell', sl: '89000' }, 400, '❌ For a sell, Stop Loss must be above the entry price.'],
      // A market order's entry is the market price (100,000).
      [{ ...ok, type: 'market', price: undefined, tp: '99000' }, 400, SPOT_MESSAGES.buyTpNotAbove],
      [{ ...ok, type: 'Market', side: 'SELL', sl: '99000' }, 400, SPOT_MESSAGES.sellSlNotAbove],
      // Sides checked again once rounded: 100,000.001 → 100,000.00 (buy: down), TP 100,000.004 → 100,000.00.
      [{ ...ok, price: '100000.001', tp: '100000.004' }, 400, SPOT_MESSAGES.buyTpNotAbove],
      // The value minimum of a limit order (spec: 6 USDT): 0.00005 × 100,000 = 5 USDT.
      [{ ...ok, price: '100000', quantity: '0.00005' }, 400, '❌ The order value must be at least 6 USDT.'],
      // The exchange's minimum cost (5 USDT): a market buy of 0.00004 × 100,000 = 4 USDT.
      [
        { ...ok, type: 'market', quantity: '0.00004' },
        400,
        '❌ The smallest order BTC/USDT accepts on Binance is 5 USDT.',
      ],
    ];
    for (const [body, status, message] of cases) await refused(dave, body, status, message);
  });

  it('names the exchange’s minimum quantity, the market price it cannot read, and an unexpected failure', async () => {
    const hub = t.ctx.services.market!;
    const venues = t.ctx.services.venues!;
    const body = { symbol: SYM, side: 'buy', type: 'market', quantity: '0.0005' };
    // A market whose minimum is 0.001 BTC (the simulated ones take one amount step).
    const market = hub.market.bind(hub);
    hub.market = async (e, s) => {
      const m = await market(e, s);
      return m && s === SYM ? { ...m, minAmount: 0.001 } : m;
    };
    try {
      await refused(dave, body, 400, '❌ The smallest quantity BTC/USDT accepts on Binance is 0.001 BTC.');
    } finally {
      hub.market = market;
    }
    const ticker = hub.ticker.bind(hub);
    hub.ticker = async () => {
      throw new Error('market data down');
    };
    try {
      await refused(dave, body, 503, '❌ Failed to fetch market price.');
    } finally {
      hub.ticker = ticker;
    }
    // A failure nobody planned for (here the connection lookup throws a plain error).
    const before = { bots: await count('bots', dave.id), w: await wallet(dave) };
    const forUser = venues.forUser.bind(venues);
    venues.forUser = async () => {
      throw new Error('a bug');
    };
    let r: Awaited<ReturnType<typeof order>>;
    try {
      r = await order(dave, body);
    } finally {
      venues.forUser = forUser;
    }
    expect(r.status).toBe(500);
    expect(r.body).toMatchObject({
      success: false,
      error: '❌ Error executing trade. Please try again.',
      message: SPOT_MESSAGES.tradeError,
    });
    expect(await count('bots', dave.id)).toBe(before.bots);
    expect(await wallet(dave)).toEqual(before.w);
  });

  it('tells the insufficient balance with the numbers: a buy in the quote (2 decimals), a sell in the base (6)', async () => {
    // Dave has 10,000 USDT free and no BTC.
    await refused(
      dave,
      { symbol: SYM, side: 'buy', type: 'limit', price: '100000', quantity: '1' },
      400,
      '❌ Insufficient balance. Required: 100000.00, Available: 10000.00',
    );
    // 99,999.99 × 0.10001 = 10,000.9989...: required rounded up.
    await refused(
      dave,
      { symbol: SYM, side: 'buy', type: 'limit', price: '99999.99', quantity: '0.10001' },
      400,
      '❌ Insufficient balance. Required: 10001.00, Available: 10000.00',
    );
    // A market buy is valued at the market price (100,000).
    await refused(
      dave,
      { symbol: SYM, side: 'buy', type: 'market', quantity: '0.5' },
      400,
      '❌ Insufficient balance. Required: 50000.00, Available: 10000.00',
    );
    await refused(
      dave,
      { symbol: SYM, side: 'sell', type: 'limit', price: '100000', quantity: '0.5' },
      400,
      '❌ Insufficient balance. Required: 0.500000, Available: 0.000000',
    );
  });

  it('answers an entry the exchange refuses with 422 and its reason, and keeps it as rejected', async () => {
    // 0.09999 × 100,000 = 9,999 USDT passes our check; the venue fills at the ask (100,010) plus its
    // 0.1 % fee: 10,010.00 USDT it does not have.
    const before = await wallet(dave);
    const r = await order(dave, { symbol: SYM, side: 'buy', type: 'market', quantity: '0.09999' });
    expect(r.status, JSON.stringify(r.body)).toBe(422);
    expect(r.body).toMatchObject({ success: false, error: '❌ Failed to execute order.' });
    expect(r.body.reason).toMatch(/^Account has insufficient balance for requested action/);
    expect(r.body.order).toMatchObject({ status: 'rejected', filled: 0, error: r.body.reason });
    const list = await orders(dave);
    expect(list.open).toEqual([]);
    expect(list.recent[0]).toMatchObject({ id: r.body.order.id, status: 'rejected', error: r.body.reason });
    expect(list.fills).toEqual([]);
    expect(await wallet(dave)).toEqual(before);
  });

  it('a market buy fills at once and the wallet shows it', async () => {
    await setPrice(100_000);
    const before = await wallet(alice);
    expect(before).toMatchObject({ USDT: 10_000, BTC: 0 });
    const r = await order(alice, { symbol: SYM, side: 'buy', type: 'Market', quantity: '0.004' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.message).toBe('✅ Order filled: buy 0.004 BTC at 100010 USDT.');
    // 0.004 × 100,010 = 400.04 USDT, fee 0.40004 USDT.
    expect(r.body.order).toMatchObject({
      exchange: EX,
      symbol: SYM,
      market: 'spot',
      side: 'buy',
      type: 'market',
      price: null,
      quantity: 0.004,
      filled: 0.004,
      average: 100_010,
      cost: 400.04,
      fee: 0.40004,
      fee_currency: 'USDT',
      status: 'filled',
      reduce_only: false,
      tp: null,
      sl: null,
      exit_state: 'none',
      pnl: null,
      error: null,
    });
    // 10,000 − 400.04 − 0.40004 = 9,599.55996 USDT.
    expect(await wallet(alice)).toMatchObject({ USDT: 9599.55996, BTC: 0.004 });
    const list = await orders(alice, `?exchange=${EX}&symbol=${encodeURIComponent(SYM)}`);
    expect(list.open).toEqual([]);
    expect(list.recent.map((o) => o.id)).toEqual([r.body.order.id]);
    expect(list.fills).toEqual([
      expect.objectContaining({
        order_id: r.body.order.id,
        symbol: SYM,
        side: 'buy',
        role: 'entry',
        price: 100_010,
        quantity: 0.004,
        value: 400.04,
        fee: 0.40004,
        fee_currency: 'USDT',
      }),
    ]);
    // Another pair's filter does not show it; another user sees nothing.
    expect((await orders(alice, `?exchange=${EX}&symbol=ETH/USDT`)).recent).toEqual([]);
    expect((await orders(alice, `?exchange=${EX}&symbol=BTC/USDT:USDT`)).recent).toEqual([]);
    expect(await orders(bob)).toEqual({ success: true, open: [], recent: [], fills: [] });
  });

  it('rounds to the market’s steps (quantity down, a buy’s price down, a sell’s up, TP/SL nearest); dry_run changes nothing', async () => {
    const before = { bots: await count('bots', alice.id), w: await wallet(alice) };
    const buy = await order(alice, {
      symbol: SYM,
      side: 'buy',
      type: 'limit',
      price: '95000,019',
      quantity: '0.0012345',
      tp: '110000.006',
      sl: '90000.004',
      dry_run: true,
    });
    expect(buy.status, JSON.stringify(buy.body)).toBe(200);
    // 95,000.01 × 0.00123 = 116.8500123; fee × 0.004, net × 0.996.
    expect(buy.body).toEqual({
      success: true,
      message: '',
      preview: {
        exchange: EX,
        symbol: SYM,
        side: 'buy',
        type: 'limit',
        price: 95000.01,
        quantity: 0.00123,
        value: 116.8500123,
        fee: 0.46740005,
        net: 116.38261225,
        tp: 110000.01,
        sl: 90000,
        base: 'BTC',
        quote: 'USDT',
      },
    });
    const sell = await order(alice, {
      symbol: SYM,
      side: 'sell',
      type: 'limit',
      price: '105000.011',
      quantity: '0.0039999',
      tp: '99999.996',
      sl: '110000.006',
      dry_run: 'true',
    });
    expect(sell.status, JSON.stringify(sell.body)).toBe(200);
    expect(sell.body.preview).toMatchObject({
      side: 'sell',
      price: 105000.02,
      quantity: 0.00399,
      value: 418.9500798,
      tp: 100000,
      sl: 110000.01,
    });
    // A market order's preview is at the market price read now.
    const market = await order(alice, {
      symbol: SYM,
      side: 'buy',
      type: 'market',
      quantity: 0.002,
      dry_run: 1,
    });
    expect(market.body.preview).toMatchObject({
      type: 'market',
      price: 100_000,
      quantity: 0.002,
      value: 200,
    });
    expect(await count('bots', alice.id)).toBe(before.bots);
    expect(await wallet(alice)).toEqual(before.w);

    // What dry_run answered is what the order places.
    const placed = await order(alice, {
      symbol: SYM,
      side: 'buy',
      type: 'limit',
      price: '95000,019',
      quantity: '0.0012345',
      tp: '110000.006',
      sl: '90000.004',
    });
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    expect(placed.body.message).toBe('✅ Order placed: buy 0.00123 BTC at 95000.01 USDT.');
    expect(placed.body.order).toMatchObject({
      price: 95000.01,
      quantity: 0.00123,
      tp: 110000.01,
      sl: 90000,
      status: 'open',
      exit_state: 'waiting_entry',
    });
    const journal = await q('SELECT * FROM bot_orders WHERE bot_id = $1', [placed.body.order.id]);
    expect(journal).toHaveLength(1);
    expect(journal[0]).toMatchObject({ price: '95000.01', amount: '0.00123', role: 'manual_entry' });
    expect((await call(alice, 'DELETE', `/api/spot/orders/${placed.body.order.id}`)).body.order.status).toBe(
      'cancelled',
    );
  });

  it('a resting limit order is open, reserves its funds, and DELETE cancels it and frees them', async () => {
    await setPrice(100_000);
    const free0 = (await marketInfo(alice)).quote_free as number;
    const r = await order(alice, {
      symbol: SYM,
      side: 'buy',
      type: 'limit',
      price: '90000',
      quantity: '0.01',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.message).toBe('✅ Order placed: buy 0.01 BTC at 90000 USDT.');
    const id = r.body.order.id as string;
    expect(r.body.order).toMatchObject({ status: 'open', filled: 0, exit_state: 'none' });
    // 900 USDT plus the 0.1 % fee reserved on the venue.
    expect((await marketInfo(alice)).quote_free).toBeCloseTo(free0 - 900.9, 8);
    expect((await orders(alice)).open.map((o) => o.id)).toEqual([id]);

    expect((await call(bob, 'DELETE', `/api/spot/orders/${id}`)).body.error).toBe('❌ Order not found.');
    expect((await call(bob, 'DELETE', `/api/spot/orders/not-a-uuid`)).status).toBe(404);
    const del = await call(alice, 'DELETE', `/api/spot/orders/${id}`);
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect(del.body).toMatchObject({ success: true, message: '✅ Order cancelled.' });
    expect(del.body.order).toMatchObject({ id, status: 'cancelled', filled: 0 });
    expect((await marketInfo(alice)).quote_free).toBeCloseTo(free0, 8);
    const list = await orders(alice);
    expect(list.open).toEqual([]);
    expect(list.recent[0]).toMatchObject({ id, status: 'cancelled' });
    const again = await call(alice, 'DELETE', `/api/spot/orders/${id}`);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('❌ This order is already cancelled: there is nothing to cancel.');
  });

  it('TP and SL rest as one-cancels-the-other: the take profit fills and records the round trip', async () => {
    await setPrice(100_000);
    const r = await order(alice, {
      symbol: SYM,
      side: 'buy',
      type: 'market',
      quantity: '0.004',
      tp: '101000',
      sl: '95000',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = r.body.order.id as string;
    expect(r.body.order).toMatchObject({ status: 'filled', exit_state: 'active', tp: 101_000, sl: 95_000 });
    const journal = await q('SELECT role, side, type, price, status FROM bot_orders WHERE bot_id = $1', [id]);
    expect(journal).toContainEqual({
      role: 'manual_tp',
      side: 'sell',
      type: 'limit',
      price: '101000',
      status: 'open',
    });
    await setPrice(101_000);
    const done = await until(async () => {
      const o = await one(alice, id);
      return o.exit_state === 'tp_filled' ? o : null;
    });
    // 0.004 × (101,000 − 100,010) − 0.40004 (entry fee) − 0.404 (the TP's fee) = 3.15596 USDT.
    expect(done.pnl).toBeCloseTo(3.15596, 8);
    expect(done.status).toBe('filled');
    const fills = (await orders(alice)).fills.filter((f) => f.order_id === id);
    expect(fills.map((f) => [f.role, f.side, f.price, f.quantity])).toEqual([
      ['take_profit', 'sell', 101_000, 0.004],
      ['entry', 'buy', 100_010, 0.004],
    ]);
    const trades = await q('SELECT pnl_net, manual FROM bot_trades WHERE bot_id = $1', [id]);
    expect(trades).toEqual([{ pnl_net: '3.15596', manual: true }]);
  });

  it('reaching the stop loss cancels the take profit and closes at market', async () => {
    await setPrice(100_000);
    const r = await order(alice, {
      symbol: SYM,
      side: 'buy',
      type: 'market',
      quantity: '0.004',
      tp: '110000',
      sl: '99000',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = r.body.order.id as string;
    await setPrice(99_500); // above the stop loss: nothing
    await new Promise((res) => setTimeout(res, 200));
    expect((await one(alice, id)).exit_state).toBe('active');
    await setPrice(98_900);
    const done = await until(async () => {
      const o = await one(alice, id);
      return o.exit_state === 'sl_filled' ? o : null;
    });
    // Sold at the bid, 98,900 × 0.9999 = 98,890.11: 0.004 × (98,890.11 − 100,010) − 0.40004 − 0.39556044.
    expect(done.pnl).toBeCloseTo(-5.27516044, 8);
    const rows = await q('SELECT role, side, type, status, filled FROM bot_orders WHERE bot_id = $1', [id]);
    expect(rows.map((o) => [o.role, o.side, o.type, o.status])).toEqual(
      expect.arrayContaining([
        ['manual_entry', 'buy', 'market', 'filled'],
        ['manual_tp', 'sell', 'limit', 'cancelled'],
        ['manual_sl', 'sell', 'market', 'filled'],
      ]),
    );
    expect(rows).toHaveLength(3);
    const fills = (await orders(alice)).fills.filter((f) => f.order_id === id);
    expect(fills.map((f) => f.role)).toEqual(['stop_loss', 'entry']);
    const codes = (await q('SELECT code FROM bot_events WHERE bot_id = $1', [id])).map((e) => e.code);
    expect(codes).toContain('sl_hit');
  });

  it('DELETE after the entry filled cancels the TP and SL and keeps the position', async () => {
    await setPrice(100_000);
    const btc0 = (await wallet(alice)).BTC!;
    const r = await order(alice, {
      symbol: SYM,
      side: 'buy',
      type: 'market',
      quantity: '0.002',
      tp: '120000',
      sl: '80000',
    });
    const id = r.body.order.id as string;
    const del = await call(alice, 'DELETE', `/api/spot/orders/${id}`);
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect(del.body.message).toBe('✅ Take Profit and Stop Loss cancelled; the position was kept.');
    expect(del.body.order).toMatchObject({ status: 'filled', exit_state: 'cancelled', filled: 0.002 });
    expect((await wallet(alice)).BTC).toBeCloseTo(btc0 + 0.002, 10);
    await setPrice(79_000); // the SL is no longer watched
    await new Promise((res) => setTimeout(res, 200));
    expect((await wallet(alice)).BTC).toBeCloseTo(btc0 + 0.002, 10);
    expect(await q(`SELECT 1 FROM bot_orders WHERE bot_id = $1 AND role = 'manual_sl'`, [id])).toEqual([]);
    expect((await call(alice, 'DELETE', `/api/spot/orders/${id}`)).body.error).toBe(
      '❌ This order is already filled: there is nothing to cancel.',
    );
  });

  it('keeps manual orders out of every bot list, history, count and the bots cap', async () => {
    await setPrice(100_000);
    const open = await order(alice, {
      symbol: SYM,
      side: 'buy',
      type: 'limit',
      price: '50000',
      quantity: '0.001',
    });
    expect(open.status).toBe(200);
    const mine = (await q(`SELECT id FROM bots WHERE user_id = $1 AND kind = 'manual'`, [alice.id])).map(
      (r) => String(r.id),
    );
    expect(mine.length).toBeGreaterThan(5);
    for (const [method, url, body] of [
      ...DASHBOARD_CALLS,
      ['GET', '/api/dca/all_history'],
      ['GET', '/api/dca/all_history?aggregates=1'],
      ['POST', '/api/gridbot/activos', {}],
      ['GET', '/api/historial?kind=dca'],
    ] as [string, string, Json?][]) {
      const r = await call(alice, method, url, body);
      expect(r.status, url).toBeLessThan(300);
      const text = JSON.stringify(r.body);
      for (const id of mine) expect(text, url).not.toContain(id);
    }
    expect((await call(alice, 'POST', '/api/reanudar_bots_activos', {})).body).toMatchObject({ active: 0 });
    expect((await call(alice, 'POST', '/api/pnls_actuales', {})).body).toMatchObject({
      pnls: [],
      total_pnl: 0,
    });
    expect((await call(alice, 'POST', '/api/precios_actuales', {})).body).toEqual([]);
    const history = await call(alice, 'GET', '/api/dca/all_history');
    expect(history.body).toMatchObject({ history: [], total_pnl: 0 });
    // The round trips are recorded (manual), but no rollup counts them.
    expect((await q('SELECT count(*)::int AS n FROM bot_trades WHERE user_id = $1', [alice.id]))[0]!.n).toBe(
      2,
    );
    expect(await q('SELECT * FROM bot_trade_symbols WHERE user_id = $1', [alice.id])).toEqual([]);
    expect(await q('SELECT * FROM bot_trade_daily WHERE user_id = $1', [alice.id])).toEqual([]);
    // MAX_BOTS_PER_USER is 1 here: with an open manual order a bot still starts, and the cap still holds.
    const bot = await call(alice, 'POST', '/api/signalbot/bots', {
      exchange: EX,
      symbol: SYM,
      amount: 20,
      max_position: 50,
    });
    expect(bot.status, JSON.stringify(bot.body)).toBe(200);
    const second = await call(alice, 'POST', '/api/signalbot/bots', {
      exchange: EX,
      symbol: 'ETH/USDT',
      amount: 20,
      max_position: 50,
    });
    expect(second.status).toBe(409);
    // Several open manual orders on one pair (the one-per-pair rule leaves them out).
    const another = await order(alice, {
      symbol: SYM,
      side: 'buy',
      type: 'limit',
      price: '51000',
      quantity: '0.001',
    });
    expect(another.status).toBe(200);
    expect((await orders(alice)).open).toHaveLength(2);
    expect(
      (await call(alice, 'POST', '/api/signalbot/bots/' + String(bot.body.id) + '/stop', {})).status,
    ).toBe(200);
  });

  it('limits the open orders of a user (counted under a lock)', async () => {
    // 100 open manual orders of erin (marked so the runner leaves them alone).
    await database.db.insert(botsTable).values(
      Array.from({ length: 100 }, () => ({
        userId: erin.id,
        kind: 'manual',
        exchange: EX,
        symbol: 'ETH/USDT',
        config: {},
        state: {},
        status: 'active' as const,
        problem: 'cannot_run' as const,
      })),
    );
    await refused(
      erin,
      { symbol: SYM, side: 'buy', type: 'limit', price: '90000', quantity: '0.001' },
      429,
      '❌ You already have 100 open orders. Cancel one before placing another.',
    );
    await q(`UPDATE bots SET status = 'stopped' WHERE user_id = $1`, [erin.id]);
  });

  it('keeps favourites per user on the server', async () => {
    const fav = (u: User, body: Json) => call(u, 'POST', '/api/spot/favorites', body);
    const a = await fav(alice, { symbol: ' btc/usdt ', favorite: true });
    expect(a.body).toEqual({
      success: true,
      favorites: ['BTC/USDT'],
      message: '⭐ BTC/USDT added to favourites.',
    });
    expect((await fav(alice, { symbol: 'ETH/USDT', favorite: true })).body.favorites).toEqual([
      'BTC/USDT',
      'ETH/USDT',
    ]);
    expect((await fav(alice, { symbol: 'BTC/USDT', favorite: true })).body.favorites).toEqual([
      'BTC/USDT',
      'ETH/USDT',
    ]);
    expect((await call(bob, 'GET', '/api/spot/favorites')).body).toEqual({ success: true, favorites: [] });
    const removed = await fav(alice, { symbol: 'BTC/USDT', favorite: false });
    expect(removed.body).toEqual({
      success: true,
      favorites: ['ETH/USDT'],
      message: 'BTC/USDT removed from favourites.',
    });
    expect((await call(alice, 'GET', '/api/spot/favorites')).body.favorites).toEqual(['ETH/USDT']);
    for (const symbol of ['BTCUSDT', '', 'BTC/USDT:USDT', 'BTC/<b>']) {
      const bad = await fav(bob, { symbol, favorite: true });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('❌ symbol must be a pair such as BTC/USDT.');
    }
    expect((await fav(bob, { symbol: SYM })).status).toBe(400);
    expect((await fav(bob, { symbol: SYM, favorite: 'yes' })).status).toBe(400);
    // At most 100.
    await q(
      `INSERT INTO spot_favorites (user_id, symbol) SELECT $1, 'C' || g || '/USDT' FROM generate_series(1, 100) g`,
      [bob.id],
    );
    const full = await fav(bob, { symbol: SYM, favorite: true });
    expect(full.status).toBe(400);
    expect(full.body.error).toBe('❌ You can keep at most 100 favourites.');
    expect((await call(bob, 'GET', '/api/spot/favorites')).body.favorites).toHaveLength(100);
  });

  it('answers the market figures of a pair, and marks a pair the exchange does not list', async () => {
    await setPrice(100_000);
    expect(await marketInfo(bob)).toMatchObject({
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
      price: 100_000,
      base_free: 0,
      quote_free: 10_000,
    });
    expect(await marketInfo(bob, 'NOPE/USDT')).toMatchObject({
      listed: false,
      symbol: 'NOPE/USDT',
      base: 'NOPE',
      quote: 'USDT',
      price: null,
    });
    const r = await call(bob, 'GET', `/api/spot/market?exchange=kraken&symbol=${SYM}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe(SPOT_MESSAGES.notConnected);
  });

  it('removing the connection cancels the user’s manual orders on that exchange', async () => {
    await setPrice(100_000);
    const exits = await order(bob, {
      symbol: SYM,
      side: 'buy',
      type: 'market',
      quantity: '0.001',
      tp: '120000',
      sl: '80000',
    });
    const resting = await order(bob, {
      symbol: SYM,
      side: 'buy',
      type: 'limit',
      price: '60000',
      quantity: '0.001',
    });
    expect([exits.status, resting.status]).toEqual([200, 200]);
    const r = await call(bob, 'POST', '/api/eliminar_exchange', { exchange: EX });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const rows = await q(`SELECT id, status, stop_reason FROM bots WHERE user_id = $1 AND kind = 'manual'`, [
      bob.id,
    ]);
    expect(rows).toHaveLength(2);
    for (const row of rows)
      expect(row).toMatchObject({ status: 'stopped', stop_reason: 'connection_changed' });
    const journal = await q(
      `SELECT o.role, o.status FROM bot_orders o JOIN bots b ON b.id = o.bot_id WHERE b.user_id = $1`,
      [bob.id],
    );
    expect(journal.filter((o) => o.status === 'open' || o.status === 'pending_submit')).toEqual([]);
    const list = await orders(bob);
    expect(list.open).toEqual([]);
    expect(list.recent.map((o) => [o.id, o.status, o.exit_state]).sort()).toEqual(
      [
        [exits.body.order.id, 'filled', 'cancelled'],
        [resting.body.order.id, 'cancelled', 'none'],
      ].sort(),
    );
  });
});

/** The open-orders limit under orders sent at once: counted and inserted under one per-user lock. */
async function placeAtOnce(database: Database, n: number, max: number) {
  const repo = new ManualOrdersRepository(database.db);
  const [user] = await database.db
    .insert(users)
    .values({ email: `manual-cap-${randomUUID()}@example.com`, passwordHash: 'x' })
    .returning();
  const full = () => new Error('full');
  const outcomes = await Promise.allSettled(
    Array.from({ length: n }, () =>
      repo.insertOrder(
        {
          userId: user!.id,
          kind: 'manual',
          exchange: EX,
          symbol: SYM,
          config: {},
          state: {},
          status: 'active',
          problem: 'cannot_run',
        },
        max,
        full,
      ),
    ),
  );
  return {
    inserted: outcomes.filter((o) => o.status === 'fulfilled').length,
    refused: outcomes.filter((o) => o.status === 'rejected' && (o.reason as Error).message === 'full').length,
    open: await repo.countOpen(user!.id),
  };
}

describe('the open manual orders limit against orders sent at once', () => {
  it('PGlite: exactly the limit is inserted', async () => {
    const database = await openTestDatabase();
    try {
      expect(await placeAtOnce(database, 8, 3)).toEqual({ inserted: 3, refused: 5, open: 3 });
    } finally {
      await database.close();
    }
  });

  if (!PG_URL) console.log(`[skip] ${PG_SKIP_REASON}`);
  it.skipIf(!PG_URL)(
    'PostgreSQL: exactly the limit is inserted, however the pool interleaves them',
    async () => {
      const pg = await freshPostgresUrl();
      const database = await openDatabase({ databaseUrl: pg.url, dataDir: tempDir() });
      try {
        for (let round = 0; round < 5; round++) {
          expect(await placeAtOnce(database, 10, 4)).toEqual({ inserted: 4, refused: 6, open: 4 });
        }
      } finally {
        await database.close();
        await pg.drop();
      }
    },
  );
});
