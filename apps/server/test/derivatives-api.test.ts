/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- JSON answers read loosely */
import { DCA_MESSAGES, DERIVATIVES_MESSAGES } from '@bytx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until as waitFor } from './bots.helpers';
import { apiCaller, createTestUser, makeTestApp, type TestApp } from './helpers';

type User = Awaited<ReturnType<typeof createTestUser>>;
type Json = Record<string, any>;

const EX = 'binance';
const SYM = 'BTC/USDT';
const PERP = 'BTC/USDT:USDT';
const until = <T>(fn: () => Promise<T | null | undefined | false>) => waitFor(fn, 15_000);

describe('Derivatives: leverage, SHORT and liquidation on a paper account (issue 14 §1, §2)', () => {
  let t: TestApp;
  let alice: User;
  let bob: User;
  let carol: User;
  const call = apiCaller(() => t.app);
  const setPrice = async (symbol: string, price: number) => {
    const r = await call(null, 'POST', '/api/dev/market/price', { exchange: EX, symbol, price });
    expect(r.status).toBe(200);
  };
  const start = (u: User, over: Json = {}) =>
    call(u, 'POST', '/api/start_bot_dca', {
      symbol: SYM,
      amount: '50',
      tp: '1',
      separacion: '1',
      os: '3',
      exchange: EX,
      apartado: 'Perpetual',
      direction: 'SHORT',
      ...over,
    });
  const bots = async (u: User) => (await call(u, 'GET', '/api/bots_activos_dca')).body.bots as Json[];

  beforeAll(async () => {
    t = await makeTestApp({ BOT_RUNNER: '1', SIMULATOR_CONTROL: '1' });
    alice = await createTestUser(t);
    bob = await createTestUser(t);
    carol = await createTestUser(t);
    for (const u of [alice, bob, carol]) {
      const r = await call(u, 'POST', '/api/conectar_exchange', { exchange: EX, mode: 'paper' });
      expect(r.status).toBe(200);
    }
    await setPrice(SYM, 100_000);
    await setPrice('ETH/USDT', 3_000);
  });
  afterAll(async () => t?.close());

  it('stores leverage per exchange and pair (set_leverage) and answers it back, 1 by default', async () => {
    const get = (q: string) => call(alice, 'GET', `/api/set_leverage?${q}`);
    expect((await get(`exchange=${EX}&symbol=${encodeURIComponent(SYM)}`)).body).toMatchObject({
      success: true,
      exchange: EX,
      symbol: SYM,
      leverage: 1,
      max_leverage: 125,
    });
    const ok = await call(alice, 'POST', '/api/set_leverage', {
      user_id: alice.email,
      exchange: EX,
      symbol: SYM,
      leverage: 5,
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({
      success: true,
      leverage: 5,
      max_leverage: 125,
      message: 'Leverage configured to 5x',
    });
    expect((await get(`exchange=${EX}&symbol=${encodeURIComponent(SYM)}`)).body.leverage).toBe(5);
    expect((await get(`exchange=${EX}&symbol=${encodeURIComponent('ETH/USDT')}`)).body.leverage).toBe(1);
    expect((await get(`exchange=bybit&symbol=${encodeURIComponent(SYM)}`)).body.leverage).toBe(1);
    // Another user's setting is their own.
    expect(
      (await call(bob, 'GET', `/api/set_leverage?exchange=${EX}&symbol=${encodeURIComponent(SYM)}`)).body
        .leverage,
    ).toBe(1);
    const cases: [Json, number, string | RegExp][] = [
      [{ leverage: 2 }, 400, DERIVATIVES_MESSAGES.leverageNoExchange],
      [{ exchange: '', leverage: 2 }, 400, DERIVATIVES_MESSAGES.leverageNoExchange],
      [{ exchange: EX, symbol: SYM, leverage: 0 }, 400, /leverage must be at least 1/],
      [{ exchange: EX, symbol: SYM, leverage: 201 }, 400, /leverage must be at most 200/],
      [{ exchange: EX, symbol: SYM, leverage: 1.5 }, 400, /leverage must be an integer/],
      [{ exchange: EX, symbol: SYM, leverage: 'x' }, 400, /leverage must be a number/],
      [
        { exchange: EX, symbol: SYM, leverage: 126 },
        400,
        'Leverage 126x is above the maximum of BTC/USDT on Binance (125x). Choose 125x or less.',
      ],
      [{ exchange: EX, symbol: 'SOL/USDT', leverage: 76 }, 400, /maximum of SOL\/USDT on Binance \(75x\)/],
      [{ exchange: 'nope', symbol: SYM, leverage: 2 }, 400, 'Unknown exchange: nope'],
      [{ exchange: EX, symbol: 'NOPE/USDT', leverage: 2 }, 400, '⚠️ This pair is not available on Binance.'],
    ];
    for (const [body, status, message] of cases) {
      const r = await call(alice, 'POST', '/api/set_leverage', { user_id: alice.email, ...body });
      expect(r.status, JSON.stringify(body)).toBe(status);
      if (typeof message === 'string') expect(r.body.error).toBe(message);
      else expect(r.body.error).toMatch(message);
    }
    expect((await get(`exchange=${EX}&symbol=${encodeURIComponent(SYM)}`)).body.leverage).toBe(5);
    expect((await call(alice, 'GET', '/api/set_leverage')).status).toBe(400);
    expect(
      (await call(alice, 'POST', '/api/set_leverage', { user_id: bob.email, exchange: EX, leverage: 2 }))
        .status,
    ).toBe(403);
    expect((await call(null, 'POST', '/api/set_leverage', { exchange: EX, leverage: 2 })).status).toBe(401);
  });

  it('refuses SHORT on Spot and a market the exchange lacks, with clear messages', async () => {
    const spot = await start(alice, { apartado: 'Spot' });
    expect(spot.status).toBe(400);
    expect(spot.body.error).toBe(DERIVATIVES_MESSAGES.shortOnSpot);
    const tooMuch = await start(alice, { leverage: 130 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.error).toMatch(/above the maximum of BTC\/USDT:USDT on binance \(125x\)/);
    const classic = await call(alice, 'POST', '/api/start_bot', {
      symbol: SYM,
      amount: '50',
      tp: '1',
      separacion: '1',
      os: '3',
      exchange: EX,
      apartado: 'Perpetual',
      direction: 'SHORT',
    });
    expect(classic.status).toBe(400);
    expect(classic.body.error).toBe(DERIVATIVES_MESSAGES.classicLongOnly);
    expect(await bots(alice)).toEqual([]);
  });

  let shortId = '';

  it('starts a SHORT Grid Bot DCA on the perpetual with the stored leverage: entry sell, ladder sells above', async () => {
    const r = await start(alice);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.message).toBe(DCA_MESSAGES.botStarted);
    shortId = r.body.bot.id;
    const [bot] = await until(async () => {
      const b = await bots(alice);
      return b[0]?.open_lots === 1 && b[0]?.waiting_buys === 3 ? b : null;
    });
    expect(bot).toMatchObject({ apartado: 'Perpetual', direction: 'SHORT', leverage: 5, symbol: SYM });
    const venue = await t.ctx.services.venues!.forUser(alice.id, EX);
    const positions = (await venue.fetchPositions!([PERP])) as Json[];
    expect(positions).toHaveLength(1);
    expect(positions[0]).toMatchObject({ symbol: PERP, side: 'short', leverage: 5 });
    // The user sees it: the derivatives wallet and the position with its liquidation price and funding.
    const dw = await call(alice, 'GET', `/api/wallet/derivatives?exchange=${EX}`);
    expect(dw.status).toBe(200);
    expect(dw.body).toMatchObject({ success: true, exchange: EX, mode: 'paper', supported: true });
    expect(dw.body.wallet).toMatchObject({ BTC: 0.1, ETH: 3 });
    const [pos] = dw.body.positions as Json[];
    expect(pos).toMatchObject({ symbol: PERP, market_type: 'Perpetual', side: 'short', leverage: 5 });
    expect(pos!.settle).toBe('USDT');
    expect(pos!.entry_price).toBeGreaterThan(99_000);
    // A 5x short is liquidated about 19.5 % above its entry (1/5 − 0.5 % maintenance).
    expect(pos!.liquidation_price).toBeGreaterThan(pos!.entry_price * 1.15);
    expect(Math.abs(pos!.funding_rate)).toBeLessThanOrEqual(0.0005);
    expect(pos!.next_funding_time % (8 * 3_600_000)).toBe(0);
    // Bob has no position; nobody reads without a session.
    const bobs = await call(bob, 'GET', `/api/wallet/derivatives?exchange=${EX}`);
    expect(bobs.body).toMatchObject({ supported: true, positions: [] });
    expect((await call(null, 'GET', `/api/wallet/derivatives?exchange=${EX}`)).status).toBe(401);
    const orders = await venue.fetchOpenOrders(PERP);
    // The take profit (a buy below) and the 3 ladder sells above, all on the swap symbol.
    expect(orders.filter((o) => o.side === 'sell' && (o.price ?? 0) > 100_000)).toHaveLength(3);
    expect(orders.filter((o) => o.side === 'buy' && (o.price ?? 0) < 100_000)).toHaveLength(1);
    expect(await venue.fetchOpenOrders(SYM)).toEqual([]);
    // A second bot on the same perpetual market is refused.
    const again = await start(alice);
    expect(again.status).toBe(409);
  });

  it('closes a SHORT lot at its take profit below: a history row with a positive PnL', async () => {
    await setPrice(SYM, 98_900);
    const h = await until(async () => {
      const r = await call(alice, 'GET', `/api/dca/history?bot_id=${shortId}`);
      return r.body.historial?.length >= 1 ? r.body : null;
    });
    expect(h.historial[0].pnl_net).toBeGreaterThan(0);
    expect(h.historial[0].buy_price).toBeLessThan(h.historial[0].sell_price);
    const stop = await call(alice, 'POST', '/api/stop_bot_dca', {
      exchange: EX,
      symbol: SYM,
      mode: 'close_market',
    });
    expect(stop.status, JSON.stringify(stop.body)).toBe(200);
    const venue = await t.ctx.services.venues!.forUser(alice.id, EX);
    expect(await venue.fetchPositions!([PERP])).toEqual([]);
  });

  it('a leveraged SHORT is liquidated when the price rises past its liquidation price: stopped, logged, in history', async () => {
    await setPrice(SYM, 100_000);
    const r = await start(bob, { leverage: 50 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = r.body.bot.id as string;
    await until(async () => (await bots(bob))[0]?.open_lots === 1);
    const venue = await t.ctx.services.venues!.forUser(bob.id, EX);
    const [pos] = (await venue.fetchPositions!([PERP])) as Json[];
    expect(pos!.liquidationPrice).toBeGreaterThan(100_000);
    expect(pos!.liquidationPrice).toBeLessThan(102_500);
    // Above the liquidation price (and every ladder sell: they fill first and add to the short).
    await setPrice(SYM, 104_000);
    await setPrice(SYM, 106_000);
    await until(async () => (await bots(bob)).length === 0);
    const ev = await call(bob, 'GET', `/api/bots/${id}/events`);
    const events = ev.body.events as Json[];
    const liq = events.find((e) => e.code === 'liquidated');
    expect(liq, JSON.stringify(events.map((e) => e.code))).toBeDefined();
    expect(liq!.level).toBe('warn');
    expect(events.find((e) => e.code === 'stopped')!.params).toEqual({ reason: 'liquidated' });
    const closed = await call(bob, 'GET', '/api/historial');
    expect(closed.body.historial[0]).toMatchObject({ id, symbol: SYM });
    expect(closed.body.historial[0].pnl).toBeLessThan(0);
    const h = await call(bob, 'GET', `/api/dca/history?bot_id=${id}`);
    expect(h.body.historial.length).toBeGreaterThanOrEqual(1);
    expect(h.body.total_pnl).toBeLessThan(0);
    const all = await call(bob, 'GET', '/api/dca/all_history');
    expect((all.body.history as Json[]).some((row) => row.bot_id === id)).toBe(true);
    expect(await venue.fetchPositions!([PERP])).toEqual([]);
    expect(await venue.fetchOpenOrders(PERP)).toEqual([]);
  });

  it('a liquidation while no runner held the bot is found at the next attach (fetchMyLiquidations)', async () => {
    await setPrice(SYM, 100_000);
    const r = await start(carol, { leverage: 50 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = r.body.bot.id as string;
    await until(async () => (await bots(carol))[0]?.open_lots === 1);
    const { runners } = await import('../src/modules/bots/routes');
    const runner = runners.get(t.ctx)!;
    // The process stops running the bot (as if it died); the venue liquidates meanwhile.
    runner.drop(id);
    await setPrice(SYM, 104_000);
    await setPrice(SYM, 106_000);
    const venue = await t.ctx.services.venues!.forUser(carol.id, EX);
    await until(async () => ((await venue.fetchMyLiquidations!(PERP)) as Json[]).length > 0);
    expect((await bots(carol)).length).toBe(1);
    // Resuming attaches and reconciles it: the liquidation is applied.
    await call(carol, 'POST', '/api/reanudar_bots_activos', {});
    await until(async () => (await bots(carol)).length === 0);
    const codes = ((await call(carol, 'GET', `/api/bots/${id}/events`)).body.events as Json[]).map(
      (e) => e.code,
    );
    expect(codes).toContain('reconcile_liquidation');
    expect(codes).toContain('liquidated');
  });
});
