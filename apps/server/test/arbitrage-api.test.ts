/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- JSON answers read loosely */
import { ARBITRAGE_MESSAGES } from '@bytx/contract';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { botOrders } from '../src/db/schema/index';
import { until as waitFor } from './bots.helpers';
import { apiCaller, createTestUser, makeTestApp, type TestApp } from './helpers';

type User = Awaited<ReturnType<typeof createTestUser>>;
type Json = Record<string, any>;

const SYM = 'ETH/USDT';
const until = <T>(fn: () => Promise<T | null | undefined | false>, ms = 20_000) => waitFor(fn, ms);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The Arbitrage bot's calls (`/arbitraje`, spec part 2 §5 and §7; issue 15 §1) on paper accounts of
 * Binance and Bybit, the prices driven by the simulator control. Both simulated venues charge a 0.1 %
 * taker fee (paid in USDT) and the strategy's safety margin is 0.1 %: a direction trades when the
 * executable edge sellAvg / buyAvg − 1 exceeds 0.3 %. The simulated book's best bid and ask sit 0.01 %
 * below and above the held price, each level worth at least 500 USD (a 250 USDT trip fills in the first).
 */
describe('Arbitrage bot calls (/arbitraje) on paper Binance and Bybit', () => {
  let t: TestApp;
  let alice: User;
  let bob: User;
  const call = apiCaller(() => t.app);
  const held: Record<string, number> = {};
  /** Holds a price (the simulator control); a changed price is a tick with that venue's book. */
  const setPrice = async (exchange: string, price: number) => {
    const r = await call(null, 'POST', '/api/dev/market/price', { exchange, symbol: SYM, price });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    held[exchange] = price;
  };
  /**
   * A held price sends no tick, and the bot ignores a book older than 10 s: a fresh tick of the same
   * price (one cent up and back; no spread beyond the fees at such prices).
   */
  const refresh = async (exchange: string) => {
    const p = held[exchange]!;
    await setPrice(exchange, p + 0.01);
    await setPrice(exchange, p);
  };
  const connect = async (u: User, exchange: string) => {
    const r = await call(u, 'POST', '/api/conectar_exchange', { exchange, mode: 'paper', user_id: u.email });
    expect(r.status).toBe(200);
  };
  const start = (u: User, body: Json) =>
    call(u, 'POST', '/api/start_arbitraje', { user_id: u.email, symbol: SYM, ...body });
  const status = async (u: User) => {
    const r = await call(u, 'POST', '/api/estado_bot_arbitraje', { user_id: u.email });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body;
  };
  const history = async (u: User) => {
    const r = await call(u, 'POST', '/api/historial_arbitraje', { user_id: u.email });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.historial as Json[];
  };
  const log = async (u: User) =>
    (await call(u, 'GET', `/api/arbitraje/log?user_id=${encodeURIComponent(u.email)}`)).body.events as Json[];
  const wallet = async (u: User, exchange: string) =>
    (await call(u, 'GET', `/api/wallet?exchange=${exchange}`)).body.balances as Record<string, number>;
  const ordersOf = async (botId: string) =>
    (await t.ctx.db.select().from(botOrders).where(eq(botOrders.botId, botId))).sort((a, b) =>
      a.createdAt < b.createdAt ? -1 : 1,
    );

  beforeAll(async () => {
    t = await makeTestApp({ BOT_RUNNER: '1', SIMULATOR_CONTROL: '1' });
    alice = await createTestUser(t);
    bob = await createTestUser(t);
    await connect(alice, 'binance');
    await connect(alice, 'bybit');
    await connect(bob, 'binance');
    await setPrice('binance', 3_000);
    await setPrice('bybit', 3_000);
  });
  afterAll(async () => t?.close());

  it('answers the status without a bot: inactive, and whether both exchanges are connected', async () => {
    expect(await status(alice)).toEqual({ success: true, activo: false, connected: true, bot: null });
    expect(await status(bob)).toEqual({ success: true, activo: false, connected: false, bot: null });
    expect(await history(alice)).toEqual([]);
    expect(ARBITRAGE_MESSAGES.connected).toBe('✅ Exchanges Connected');
    expect(ARBITRAGE_MESSAGES.connectBoth).toBe('❌ Connect both Binance and Bybit');
  });

  it('refuses a start in the spec order with its messages, then ours with the numbers, changing nothing', async () => {
    // Spec order: both exchanges connected first (even with a bad amount), then the amount.
    const bobBad = await start(bob, { monto_usdt: 'abc' });
    expect(bobBad.status).toBe(400);
    expect(bobBad.body.error).toBe('Both Binance and Bybit must be connected.');
    const cases: [Json, number, string | RegExp][] = [
      [{ monto_usdt: undefined }, 400, 'Enter a valid amount in USDT.'],
      [{ monto_usdt: '' }, 400, 'Enter a valid amount in USDT.'],
      [{ monto_usdt: 'abc' }, 400, 'Enter a valid amount in USDT.'],
      [{ monto_usdt: 0 }, 400, 'Enter a valid amount in USDT.'],
      [{ monto_usdt: '-5' }, 400, 'Enter a valid amount in USDT.'],
      [{ monto_usdt: null }, 400, 'Enter a valid amount in USDT.'],
      [{ monto_usdt: 2e9 }, 400, 'Enter at most 1000000000 USDT.'],
      [{ monto_usdt: 100, symbol: 'eth/usdt' }, 400, ARBITRAGE_MESSAGES.badSymbol],
      [{ monto_usdt: 100, symbol: 'ETH-USDT' }, 400, ARBITRAGE_MESSAGES.badSymbol],
      [{ monto_usdt: 100, symbol: 'NOPE/USDT' }, 400, 'NOPE/USDT is not available on Binance.'],
      // A round trip is a quarter of the amount; ETH/USDT's minimum order is 5 USDT (+ one 0.0001 ETH
      // step at 3,000 = 0.30, + fees and half spread): 4 × 5.30 × 1.004 ≈ 21.29 USDT.
      [
        { monto_usdt: '10' },
        400,
        /^Enter at least 21\.\d\d USDT: a round trip trades a quarter of the amount on each exchange, and the smallest order Binance accepts on ETH\/USDT costs 5 USDT at 3000\.$/,
      ],
      // Each venue holds half of the amount: 30,000 needs 15,000 USDT on each, the paper account has 10,000.
      [
        { monto_usdt: '30000' },
        400,
        'Binance has 10000 USDT available but the bot needs 15000 USDT there (half of 30000 USDT on each exchange).',
      ],
    ];
    for (const [over, code, message] of cases) {
      const r = await start(alice, over);
      expect(r.status, JSON.stringify(over)).toBe(code);
      expect(r.body.success).toBe(false);
      if (typeof message === 'string') expect(r.body.error, JSON.stringify(over)).toBe(message);
      else expect(r.body.error, JSON.stringify(over)).toMatch(message);
    }
    // A body of the wrong shape is refused naming the field.
    const shape = await start(alice, { monto_usdt: { x: 1 } });
    expect(shape.status).toBe(400);
    expect(JSON.stringify(shape.body)).toContain('monto_usdt');
    // Another user's user_id is refused on every call; without a session, 401.
    for (const path of ['start_arbitraje', 'stop_arbitraje', 'historial_arbitraje', 'estado_bot_arbitraje']) {
      const r = await call(alice, 'POST', `/api/${path}`, { user_id: bob.email, monto_usdt: 100 });
      expect(r.status, path).toBe(403);
      expect((await call(null, 'POST', `/api/${path}`, { monto_usdt: 100 })).status, path).toBe(401);
    }
    expect((await call(alice, 'GET', `/api/arbitraje/log?user_id=${bob.email}`)).status).toBe(403);
    // Nothing changed: no bot, no order, the accounts untouched.
    expect((await status(alice)).activo).toBe(false);
    expect((await wallet(alice, 'binance')).USDT).toBe(10_000);
    expect((await wallet(alice, 'bybit')).USDT).toBe(10_000);
    const badStop = await call(alice, 'POST', '/api/stop_arbitraje', {
      user_id: alice.email,
      keep_assets: 'maybe',
    });
    expect(badStop.status).toBe(400);
    expect(JSON.stringify(badStop.body)).toContain('keep_assets');
    const none = await call(alice, 'POST', '/api/stop_arbitraje', { user_id: alice.email });
    expect(none.body).toMatchObject({
      success: true,
      message: ARBITRAGE_MESSAGES.notActive,
      already_stopped: true,
    });
  });

  let botId = '';

  it('starts: half of the amount per venue, a quarter of it bought as ETH on each; one bot per user', async () => {
    const r = await start(alice, { monto_usdt: '1000' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ success: true, message: ARBITRAGE_MESSAGES.started });
    botId = r.body.id;
    const s = await until(async () => {
      const b = await status(alice);
      return b.bot && b.bot.inventory.binance?.base > 0 && b.bot.inventory.bybit?.base > 0 ? b : null;
    });
    expect(s).toMatchObject({ success: true, activo: true, connected: true });
    expect(s.bot).toMatchObject({
      id: botId,
      symbol: SYM,
      monto_usdt: 1000,
      pnl: 0,
      trips: 0,
      status: 'active',
    });
    // On each venue 1000 / 2 / 2 = 250 USDT of ETH at the ask 3,000.30: floor(250 / 3000.30, 0.0001) = 0.0833.
    for (const ex of ['binance', 'bybit']) {
      expect(s.bot.inventory[ex].base).toBe(0.0833);
      // 500 − 0.0833 × 3000.30 − its 0.1 % fee = 500 − 249.924990 − 0.249925 = 249.825085.
      expect(s.bot.inventory[ex].quote).toBeCloseTo(249.825085, 5);
      expect((await wallet(alice, ex)).ETH).toBeCloseTo(0.0833, 8);
    }
    // The next ticks bring the books: the live spread.
    await refresh('binance');
    await refresh('bybit');
    // No spread at equal prices: edge = 2999.70 / 3000.30 − 1 = −0.02 % in both directions, fees 0.2 %.
    const live = await until(async () => {
      const b = await status(alice);
      return b.bot?.spread?.binance_to_bybit && b.bot.spread.bybit_to_binance ? b.bot : null;
    });
    expect(live.spread.binance_to_bybit.edge_pct).toBeCloseTo(-0.02, 2);
    expect(live.spread.binance_to_bybit.fees_pct).toBeCloseTo(0.2, 6);
    expect(live.spread.bybit_to_binance.margin_pct).toBe(0.1);
    expect(live.books.binance).toEqual({ bid: 2999.7, ask: 3000.3 });
    expect(live.books.bybit).toEqual({ bid: 2999.7, ask: 3000.3 });
    const codes = (await log(alice)).map((e) => e.type);
    expect(codes.filter((c) => c === 'arb_prepared')).toHaveLength(2);
    // One arbitrage bot per user.
    const dup = await start(alice, { monto_usdt: '100' });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe(ARBITRAGE_MESSAGES.alreadyActive.replace('{symbol}', SYM));
    expect(await history(alice)).toEqual([]);
  });

  it('trades a round trip when a spread opens: real average fills, both fees and the profit in the history', async () => {
    // Bybit 1 % dearer: buy on Binance at its ask 3,000.30, sell on Bybit at its bid 3,030 − 0.303 → 3,029.70.
    // edge = 3029.70 / 3000.30 − 1 = 0.98 % > 0.1 % + 0.1 % fees + 0.1 % margin.
    await refresh('binance');
    await setPrice('bybit', 3_030);
    const [row] = await until(async () => {
      const h = await history(alice);
      return h.length >= 1 ? h : null;
    });
    expect(row).toMatchObject({
      exchange_compra: 'binance',
      exchange_venta: 'bybit',
      bot_id: botId,
      symbol: SYM,
    });
    // The history's prices are the legs' real average fills from the journal.
    const orders = await ordersOf(botId);
    const buy = orders.find((o) => o.role === 'arb_buy')!;
    const sell = orders.find((o) => o.role === 'arb_sell')!;
    expect(buy).toMatchObject({ status: 'filled', side: 'buy', exchange: null }); // binance: the bot's own
    expect(sell).toMatchObject({ status: 'filled', side: 'sell', exchange: 'bybit' });
    expect(row!.precio_compra).toBe(Number(buy.avgPrice));
    expect(row!.precio_venta).toBe(Number(sell.avgPrice));
    expect(row!.precio_compra).toBe(3000.3);
    expect(row!.precio_venta).toBe(3029.7);
    // qty = min(250 / 3000 → 0.0833, Bybit's base 0.0833, what Binance's quote buys with its fee:
    // 249.82508501 / (3000.30 × 1.001) = 0.083185 → 0.0831) = 0.0831 ETH.
    expect(row!.monto).toBe(0.0831);
    expect(Number(buy.filled)).toBe(0.0831);
    expect(Number(sell.filled)).toBe(0.0831);
    // Fees of both legs: 0.0831 × 3000.30 × 0.1 % + 0.0831 × 3029.70 × 0.1 % = 0.24932493 + 0.25176807 = 0.501093.
    expect(row!.comision_total).toBeCloseTo(Number(buy.fee) + Number(sell.fee), 8);
    expect(row!.comision_total).toBeCloseTo(0.501093, 8);
    // Profit = 0.0831 × (3029.70 − 3000.30) − 0.501093 = 2.443140 − 0.501093 = 1.942047 USDT.
    expect(row!.ganancia).toBeCloseTo(1.942047, 8);
    expect(row!.ganancia).toBeCloseTo(
      row!.monto * (row!.precio_venta - row!.precio_compra) - row!.comision_total,
      8,
    );
    expect(Date.parse(row!.timestamp)).toBeGreaterThan(Date.now() - 60_000);
    const s = await until(async () => {
      const b = await status(alice);
      return b.bot?.trips === 1 ? b : null;
    });
    expect(s.bot.pnl).toBeCloseTo(1.942047, 8);
    // Bybit's ETH went to Binance: 0.0833 − 0.0831 = 0.0002 left on Bybit, 0.1664 on Binance.
    expect(s.bot.inventory.bybit.base).toBeCloseTo(0.0002, 8);
    expect(s.bot.inventory.binance.base).toBeCloseTo(0.1664, 8);
    // The spread stays open but Bybit has no ETH left to sell: the bot waits and says why.
    const waiting = await until(async () => {
      await refresh('binance');
      const b = await status(alice);
      return b.bot?.waiting ? b.bot : null;
    });
    // Binance's quote is spent: 249.82508501 − 0.0831 × 3000.30 − 0.24932493 = 0.25083008 USDT (and
    // Bybit's 0.0002 ETH is short too).
    expect(waiting.waiting).toBe('quote_on_binance');
    expect(waiting.inventory.binance.quote).toBeCloseTo(0.25083008, 8);
    expect(waiting.spread.binance_to_bybit.edge_pct).toBeGreaterThan(0.9);
    const codes = (await log(alice)).map((e) => e.type);
    expect(codes).toContain('arb_opportunity');
    expect(codes).toContain('arb_round_trip');
    expect(codes).toContain('arb_waiting_inventory');
  });

  it('trades no more once the spread closes, and rebalances when the other direction pays', async () => {
    await refresh('binance');
    await setPrice('bybit', 3_000);
    await until(async () => {
      const b = await status(alice);
      const e = b.bot?.spread?.binance_to_bybit?.edge_pct;
      return typeof e === 'number' && e < 0 ? b : null;
    });
    // Over the 2 s cooldown and then some: no trip, no order.
    const before = (await ordersOf(botId)).length;
    await sleep(3_500);
    expect(await history(alice)).toHaveLength(1);
    expect((await ordersOf(botId)).length).toBe(before);
    // Binance 1 % dearer: buy back on Bybit (quote there) and sell on Binance (ETH there).
    await refresh('bybit');
    await setPrice('binance', 3_030);
    const h = await until(async () => {
      const rows = await history(alice);
      return rows.length >= 2 ? rows : null;
    });
    // Newest first.
    expect(h[0]).toMatchObject({ exchange_compra: 'bybit', exchange_venta: 'binance' });
    expect(h[0]!.ganancia).toBeGreaterThan(0);
    await refresh('bybit');
    await setPrice('binance', 3_000);
    await until(async () => {
      const b = await status(alice);
      const e = b.bot?.spread?.bybit_to_binance?.edge_pct;
      return typeof e === 'number' && e < 0 ? b : null;
    });
  });

  it('unwinds a filled leg when the other venue refuses its leg, and records the loss as its own row', async () => {
    // Someone sells the account's ETH on Bybit outside the bot: the bot's sell leg there will be refused.
    const bybit = await t.ctx.services.venues!.forUser(alice.id, 'bybit');
    const eth = (await bybit.fetchBalance()).ETH?.free ?? 0;
    expect(eth).toBeGreaterThan(0.05);
    await bybit.createOrder({
      symbol: SYM,
      side: 'sell',
      type: 'market',
      amount: eth,
      clientOrderId: 'manual-drain-1',
    });
    const rowsBefore = (await history(alice)).length;
    await sleep(2_100); // past the 2 s cooldown of the last trip: the next tick may open one
    await refresh('binance');
    await setPrice('bybit', 3_030);
    const unwound = await until(async () => {
      const h = await history(alice);
      return h.find((r) => r.exchange_compra === 'binance' && r.exchange_venta === 'binance') ?? null;
    });
    // Close the spread at once (the cooldown is 2 s) and give the account its ETH back on Bybit.
    await refresh('binance');
    await setPrice('bybit', 3_000);
    await bybit.createOrder({
      symbol: SYM,
      side: 'buy',
      type: 'market',
      amount: eth,
      clientOrderId: 'manual-refill-1',
    });
    const orders = await ordersOf(botId);
    const rejected = orders.filter((o) => o.role === 'arb_sell' && o.status === 'rejected');
    expect(rejected.length).toBeGreaterThanOrEqual(1);
    const unwind = orders.find((o) => o.role === 'arb_unwind' && o.status === 'filled')!;
    expect(unwind).toMatchObject({ side: 'sell', exchange: null }); // on Binance, the filled buy's venue
    // The unwind row: 0.0833 ETH bought on Binance at its ask 3,000.30 (the trip's size: min(250 / 3000,
    // Bybit's 0.0835, Binance's 252.37 USDT) → 0.0833), sold back there at its bid 2,999.70.
    // Fees 0.0833 × 3000.30 × 0.1 % + 0.0833 × 2999.70 × 0.1 % = 0.24992499 + 0.24987501 = 0.4998;
    // profit 0.0833 × (2999.70 − 3000.30) − 0.4998 = −0.04998 − 0.4998 = −0.54978 USDT: shown, not hidden.
    expect(unwound.precio_compra).toBe(3000.3);
    expect(unwound.precio_venta).toBe(Number(unwind.avgPrice));
    expect(unwound.precio_venta).toBe(2999.7);
    expect(unwound.monto).toBe(Number(unwind.filled));
    expect(unwound.monto).toBe(0.0833);
    expect(unwound.comision_total).toBeCloseTo(0.4998, 8);
    expect(unwound.ganancia).toBeCloseTo(-0.54978, 8);
    expect(unwound.ganancia).toBeCloseTo(
      unwound.monto * (unwound.precio_venta - unwound.precio_compra) - unwound.comision_total,
      8,
    );
    expect((await history(alice)).length).toBeGreaterThan(rowsBefore);
    const codes = (await log(alice)).map((e) => e.type);
    expect(codes).toContain('arb_leg_failed');
    expect(codes).toContain('arb_unwound');
    const b = await status(alice);
    expect(b.bot.pnl).toBeCloseTo(
      (await history(alice)).reduce((sum, r) => sum + r.ganancia, 0),
      6,
    );
    // A failed leg pauses new trips for 60 s: the same spread again opens nothing meanwhile (a venue
    // that keeps refusing one leg would otherwise turn every spread into a loss).
    expect(codes).toContain('arb_paused');
    expect(Date.parse(b.bot.paused_until)).toBeGreaterThan(Date.now() + 50_000);
    const rowsAfter = (await history(alice)).length;
    await refresh('binance');
    await setPrice('bybit', 3_030);
    await sleep(3_000);
    expect((await history(alice)).length).toBe(rowsAfter);
    await refresh('binance');
    await setPrice('bybit', 3_000);
  });

  it('stops: sells the inventory back on both venues and keeps the history', async () => {
    const s = await status(alice);
    expect(s.activo).toBe(true);
    const r = await call(alice, 'POST', '/api/stop_arbitraje', { user_id: alice.email });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ success: true, message: ARBITRAGE_MESSAGES.stopped });
    const after = await status(alice);
    expect(after).toMatchObject({ success: true, activo: false, connected: true, bot: null });
    // The bot's ETH is sold on both venues (what is left is below one amount step).
    for (const ex of ['binance', 'bybit'])
      expect((await wallet(alice, ex)).ETH ?? 0).toBeLessThan(0.0001 + 1e-9);
    const closes = (await ordersOf(botId)).filter((o) => o.role === 'arb_close');
    expect(closes.length).toBeGreaterThanOrEqual(1);
    expect((await log(alice)).map((e) => e.type)).toContain('arb_closed');
    expect((await history(alice)).length).toBeGreaterThanOrEqual(3);
    const again = await call(alice, 'POST', '/api/stop_arbitraje', {
      user_id: alice.email,
      keep_assets: true,
    });
    expect(again.body).toMatchObject({ success: true, already_stopped: true });
    // The same user can start again; keep_assets stops without selling.
    const re = await start(alice, { monto_usdt: 200 });
    expect(re.status, JSON.stringify(re.body)).toBe(200);
    await until(async () => ((await status(alice)).bot?.inventory?.bybit?.base > 0 ? true : null));
    const keep = await call(alice, 'POST', '/api/stop_arbitraje', {
      user_id: alice.email,
      keep_assets: 'true',
    });
    expect(keep.body).toMatchObject({ success: true, message: ARBITRAGE_MESSAGES.stoppedKeepAssets });
    expect((await wallet(alice, 'bybit')).ETH).toBeGreaterThan(0.01);
    expect((await status(bob)).activo).toBe(false);
    expect(await history(bob)).toEqual([]);
  });

  it('stops when the connection of either venue is removed, the one it does not belong to included', async () => {
    // Alice's bot row is on binance; its second venue is bybit. Removing bybit must stop it too.
    const re = await start(alice, { monto_usdt: 200 });
    expect(re.status, JSON.stringify(re.body)).toBe(200);
    await until(async () => ((await status(alice)).bot?.inventory?.bybit?.base > 0 ? true : null));
    expect((await call(alice, 'POST', '/api/eliminar_exchange', { exchange: 'bybit' })).status).toBe(200);
    const after = await status(alice);
    expect(after).toMatchObject({ success: true, activo: false, connected: false, bot: null });
    expect((await log(alice)).map((e) => e.type)).toContain('connection_changed');
  });
});
