/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- JSON answers read loosely */
import { DCA_MESSAGES, DERIVATIVES_MESSAGES } from '@bytx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotsRepository } from '../src/modules/bots/bots.repository';
import { runners } from '../src/modules/bots/routes';
import { until as waitFor } from './bots.helpers';
import { createTestUser, makeTestApp, type TestApp } from './helpers';

type User = Awaited<ReturnType<typeof createTestUser>>;
type Json = Record<string, any>;

const EX = 'binance';
const SYM = 'BTC/USDT';

const until = <T>(fn: () => Promise<T | null | undefined | false>) => waitFor(fn, 10_000);

describe('Grid Bot DCA calls (spec part 2 §7) on a paper account', () => {
  let t: TestApp;
  let alice: User;
  let bob: User;

  const call = async (user: User | null, method: 'GET' | 'POST', url: string, body?: unknown) => {
    const res = await t.app.inject({
      method,
      url,
      headers: user ? user.auth : {},
      ...(body === undefined ? {} : { payload: body as Json }),
    });
    return { status: res.statusCode, body: res.json<Json>() };
  };
  const setPrice = async (symbol: string, price: number) => {
    const r = await call(null, 'POST', '/api/dev/market/price', { exchange: EX, symbol, price });
    expect(r.status).toBe(200);
  };
  const bots = async (u: User) =>
    (await call(u, 'GET', `/api/bots_activos_dca?user_id=${u.email}`)).body.bots as Json[];
  const start = (u: User, over: Json = {}) =>
    call(u, 'POST', '/api/start_bot_dca', {
      symbol: SYM,
      amount: '20',
      tp: '1',
      separacion: '1',
      os: '3',
      exchange: EX,
      user_id: u.email,
      apartado: 'Spot',
      ...over,
    });

  beforeAll(async () => {
    t = await makeTestApp({ BOT_RUNNER: '1', SIMULATOR_CONTROL: '1' });
    alice = await createTestUser(t);
    bob = await createTestUser(t);
    for (const u of [alice, bob]) {
      const r = await call(u, 'POST', '/api/conectar_exchange', {
        exchange: EX,
        mode: 'paper',
        user_id: u.email,
      });
      expect(r.status).toBe(200);
    }
    await setPrice(SYM, 100_000);
    await setPrice('ETH/USDT', 3_000);
  });
  afterAll(async () => t?.close());

  it('refuses bad start input with the spec messages and creates nothing', async () => {
    const cases: [Json, number, string | RegExp][] = [
      [{ tp: '0.3' }, 400, DCA_MESSAGES.minPct],
      [{ separacion: '0,4' }, 400, DCA_MESSAGES.minPct],
      [{ tp: 'abc' }, 400, DCA_MESSAGES.minPct],
      [{ exchange: '' }, 400, DCA_MESSAGES.noExchange],
      [{ exchange: 'kraken' }, 400, DCA_MESSAGES.notConnected],
      [{ symbol: '' }, 400, DCA_MESSAGES.noPair],
      [{ symbol: 'NOPE/USDT' }, 400, '⚠️ This pair is not available on Binance.'],
      [{ amount: 'veinte' }, 400, DCA_MESSAGES.badAmount],
      [{ amount: '' }, 400, DCA_MESSAGES.badAmount],
      [
        { amount: '1' },
        400,
        /^Monto insuficiente\. El mínimo para BTC\/USDT es ≈ 5 USDT \([\d.]+ unidades a precio 100000\)$/,
      ],
      [{ os: '2.5' }, 400, /# OS/],
      [{ direction: 'SHORT' }, 400, DERIVATIVES_MESSAGES.shortOnSpot],
      [{ direction: 'SHORT', apartado: undefined }, 400, DERIVATIVES_MESSAGES.shortOnSpot],
      [{ apartado: 'Perpetual', leverage: 201 }, 400, /leverage must be at most 200/],
      [
        { apartado: 'Perpetual', leverage: 126 },
        400,
        /above the maximum of BTC\/USDT:USDT on binance \(125x\)/,
      ],
      [{ apartado: 'Nope' }, 400, /apartado/],
    ];
    for (const [over, status, message] of cases) {
      const r = await start(alice, over);
      expect(r.status, JSON.stringify(over)).toBe(status);
      expect(r.body.success).toBe(false);
      if (typeof message === 'string') expect(r.body.error).toBe(message);
      else expect(r.body.error).toMatch(message);
    }
    expect(await bots(alice)).toEqual([]);
    const forged = await start(alice, { user_id: bob.email });
    expect(forged.status).toBe(403);
    expect((await call(null, 'POST', '/api/start_bot_dca', { symbol: SYM })).status).toBe(401);
    expect(await bots(alice)).toEqual([]);
    expect(await bots(bob)).toEqual([]);
  });

  it('answers min_cost for a pair and refuses a pair the exchange lacks', async () => {
    const r = await call(alice, 'POST', '/api/min_cost', { exchange: EX, symbol: SYM, user_id: alice.email });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, min_cost: 5, price: 100_000 });
    expect(r.body.min_amount).toBeGreaterThan(0);
    expect((await call(alice, 'POST', '/api/min_cost', { exchange: EX, symbol: 'NOPE/USDT' })).status).toBe(
      400,
    );
    expect((await call(alice, 'POST', '/api/min_cost', { exchange: EX })).status).toBe(400);
    expect(
      (await call(alice, 'POST', '/api/min_cost', { exchange: EX, symbol: SYM, user_id: bob.email })).status,
    ).toBe(403);
  });

  let botId = '';

  it('starts a bot: entry market buy, N waiting buys; a second bot on the pair is refused', async () => {
    const r = await start(alice);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ success: true, message: 'Bot started successfully' });
    botId = r.body.bot.id;
    const list = await until(async () => {
      const b = await bots(alice);
      return b[0]?.open_lots === 1 && b[0]?.waiting_buys === 3 ? b : null;
    });
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      exchange: EX,
      symbol: SYM,
      monto: 20,
      tp_pct: 1,
      os: 3,
      sep_pct: 1,
      precio: 100_000,
    });
    expect(list[0]!.range_low).toBeCloseTo(100_000 * 0.99 ** 3, 2);
    expect(list[0]!.range_high).toBeCloseTo(101_000, 2);
    const dup = await start(alice);
    expect(dup.status).toBe(409);
    expect(await bots(alice)).toHaveLength(1);
  });

  it('fills a ladder buy when the price drops: two pending orders, each with its take profit', async () => {
    await setPrice(SYM, 98_950);
    const page = await until(async () => {
      const r = await call(
        alice,
        'GET',
        `/api/dca/pending_orders?user_id=${alice.email}&exchange=${EX}&symbol=${encodeURIComponent(SYM)}&page=1&per_page=6`,
      );
      return r.body.orders?.length === 2 ? r.body : null;
    });
    expect(page).toMatchObject({ success: true, page: 1, pages: 1 });
    const entries = (page.orders as Json[]).map((o) => o.entry_price).sort((a, b) => a - b);
    expect(entries[0]).toBeCloseTo(99_000, 0);
    expect(entries[1]).toBeCloseTo(100_000, -2);
    for (const o of page.orders as Json[]) {
      expect(o.limit_price).toBeCloseTo(o.entry_price * 1.01, -1);
      expect(o.amount_quote).toBeGreaterThan(19);
      expect(o).toMatchObject({ exchange: EX, symbol: SYM, quote: 'USDT', status: 'open' });
    }
  });

  it('closes lots at their take profit: history rows with net PnL, total_pnl and pages', async () => {
    await setPrice(SYM, 101_200);
    const h = await until(async () => {
      const r = await call(alice, 'GET', `/api/dca/history?bot_id=${botId}&page=1&per_page=25`);
      return r.body.historial?.length === 2 ? r.body : null;
    });
    expect(h).toMatchObject({ success: true, pages: 1 });
    let sum = 0;
    for (const row of h.historial as Json[]) {
      expect(row.pnl_net).toBeGreaterThan(0);
      expect(row.sell_price).toBeGreaterThan(row.buy_price);
      expect(new Date(row.sell_time).getTime()).toBeGreaterThanOrEqual(new Date(row.buy_time).getTime());
      const gross = row.qty * (row.sell_price - row.buy_price);
      expect(row.pnl_net).toBeLessThan(gross);
      sum += row.pnl_net;
    }
    expect(h.total_pnl).toBeCloseTo(sum, 8);
    const pnls = await call(alice, 'POST', '/api/pnls_actuales', {
      user_id: alice.email,
      bots: [{ symbol: SYM, exchange: EX }],
    });
    expect(pnls.body.total_pnl).toBeCloseTo(sum, 6);
    expect(pnls.body.pnls[0]).toMatchObject({ symbol: SYM, exchange: EX });
    // Another user's bot is not revealed.
    expect((await call(bob, 'GET', `/api/dca/history?bot_id=${botId}`)).status).toBe(404);
    expect((await call(alice, 'GET', `/api/dca/history?bot_id=not-a-uuid`)).status).toBe(400);
    expect((await call(alice, 'GET', `/api/dca/history?bot_id=${botId}&user_id=${bob.email}`)).status).toBe(
      403,
    );
  });

  it('updates SL and TP+ (and clears them), refuses bad values, unknown bots and other users', async () => {
    const base = { user_id: alice.email, exchange: EX, symbol: SYM };
    expect((await call(alice, 'POST', '/api/update_sl', { ...base, sl: '80000' })).status).toBe(200);
    expect((await call(alice, 'POST', '/api/update_tp_plus', { ...base, tp_plus: 150000 })).status).toBe(200);
    let b = (await bots(alice))[0]!;
    expect(b.sl).toBe(80_000);
    expect(b.tp_plus).toBe(150_000);
    expect((await call(alice, 'POST', '/api/actualizar_bot_dca', { ...base, sl: '' })).status).toBe(200);
    b = (await bots(alice))[0]!;
    expect(b.sl).toBeNull();
    expect((await call(alice, 'POST', '/api/update_sl', { ...base, sl: 'abc' })).status).toBe(400);
    expect((await call(alice, 'POST', '/api/update_sl', { ...base, sl: -5 })).status).toBe(400);
    expect((await call(alice, 'POST', '/api/actualizar_bot_dca', base)).status).toBe(400);
    expect((await call(alice, 'POST', '/api/update_sl', { ...base, symbol: 'ETH/USDT', sl: 1 })).status).toBe(
      404,
    );
    expect((await call(alice, 'POST', '/api/update_sl', { ...base, user_id: bob.email, sl: 1 })).status).toBe(
      403,
    );
    expect(
      (await call(bob, 'POST', '/api/update_tp_plus', { ...base, user_id: bob.email, tp_plus: 1 })).status,
    ).toBe(404);
    expect((await bots(alice))[0]!.tp_plus).toBe(150_000);
  });

  it('toggles RA, relocates with the spec message, and refuses bad input', async () => {
    const base = { user_id: alice.email, exchange: EX, symbol: SYM };
    expect((await call(alice, 'POST', '/api/dca/ra/toggle', { ...base, enabled: true })).body).toMatchObject({
      success: true,
    });
    expect((await bots(alice))[0]!.ra_enabled).toBe(true);
    expect((await call(alice, 'POST', '/api/dca/ra/toggle', { ...base, enabled: 'yes' })).status).toBe(400);
    expect((await call(alice, 'POST', '/api/dca/ra/toggle', { ...base, enabled: false })).status).toBe(200);
    await setPrice(SYM, 100_500);
    await until(async () => ((await bots(alice))[0]!.waiting_buys === 3 ? true : null));
    const r = await call(alice, 'POST', '/api/dca/relocate', base);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, message: DCA_MESSAGES.relocated });
    const b = await until(async () => {
      const x = (await bots(alice))[0]!;
      return x.precio > 100_000 && x.waiting_buys === 3 ? x : null;
    });
    expect(b.precio).toBeCloseTo(100_500, -1);
    expect((await call(alice, 'POST', '/api/dca/relocate', { ...base, symbol: 'ETH/USDT' })).status).toBe(
      404,
    );
    expect((await call(alice, 'POST', '/api/dca/relocate', { ...base, user_id: bob.email })).status).toBe(
      403,
    );
  });

  it('saves leverage and market type; refuses bad values', async () => {
    expect(
      (
        await call(alice, 'POST', '/api/set_leverage', {
          user_id: alice.email,
          exchange: EX,
          symbol: SYM,
          leverage: 5,
        })
      ).body,
    ).toMatchObject({ success: true, leverage: 5 });
    expect(
      (await call(alice, 'POST', '/api/set_leverage', { user_id: alice.email, exchange: EX, leverage: 0 }))
        .status,
    ).toBe(400);
    expect(
      (await call(alice, 'POST', '/api/set_leverage', { user_id: alice.email, exchange: EX, leverage: 1.5 }))
        .status,
    ).toBe(400);
    const noEx = await call(alice, 'POST', '/api/set_leverage', { user_id: alice.email, leverage: 2 });
    expect(noEx.status).toBe(400);
    expect(noEx.body.error).toBe(DCA_MESSAGES.leverageNoExchange);
    expect(
      (await call(alice, 'POST', '/api/apartado_usuario', { user_id: alice.email, apartado: 'Margin' }))
        .status,
    ).toBe(200);
    expect((await call(alice, 'GET', '/api/apartado_usuario')).body.apartado).toBe('Margin');
    expect(
      (await call(alice, 'POST', '/api/apartado_usuario', { user_id: alice.email, apartado: 'Futures' }))
        .status,
    ).toBe(400);
    expect(
      (await call(alice, 'POST', '/api/apartado_usuario', { user_id: bob.email, apartado: 'Spot' })).status,
    ).toBe(403);
    expect((await call(alice, 'GET', '/api/apartado_usuario')).body.apartado).toBe('Margin');
    // The saved type is used when a start names none: with Inverse saved, the start is refused (bots
    // size their orders in the base coin, an inverse contract is 1 USD: not available to bots yet).
    const r = await start(bob, { apartado: undefined, symbol: 'ETH/USDT' });
    expect(r.status).toBe(200);
    await call(bob, 'POST', '/api/apartado_usuario', { user_id: bob.email, apartado: 'Inverse' });
    const r2 = await start(bob, { apartado: undefined, symbol: 'SOL/USDT' });
    expect(r2.status).toBe(400);
    expect(r2.body.error).toBe(DERIVATIVES_MESSAGES.inverseBotsNotYet);
    // A Perpetual bot's margin comes from the derivatives wallet (10,000 USDT on paper): 50,000 USDT at
    // 2x needs 25,000 of it, refused with the numbers.
    const r3 = await start(bob, { apartado: 'Perpetual', symbol: 'SOL/USDT', amount: '50000', leverage: 2 });
    expect(r3.status).toBe(400);
    expect(r3.body.error).toMatch(
      /^This bot needs 25000 USDT of margin \(50000 USDT at 2x\) but the derivatives wallet has 10000 USDT available\./,
    );
  });

  it('lists current prices, resumes, and shows the event log (404 for another user)', async () => {
    const prices = await call(alice, 'POST', '/api/precios_actuales', { user_id: alice.email });
    expect(prices.body).toEqual([{ exchange: EX, symbol: SYM, price: 100_500 }]);
    expect((await call(alice, 'POST', '/api/precios_actuales', { user_id: bob.email })).status).toBe(403);
    const res = await call(alice, 'POST', '/api/reanudar_bots_activos', { user_id: alice.email });
    expect(res.body).toMatchObject({ success: true, active: 1 });
    const ev = await call(alice, 'GET', `/api/bots/${botId}/events`);
    const codes = (ev.body.events as Json[]).map((e) => e.code);
    for (const c of ['started', 'lot_opened', 'lot_closed', 'sl_set', 'tp_plus_set', 'ra_set', 'relocated']) {
      expect(codes).toContain(c);
    }
    expect((await call(bob, 'GET', `/api/bots/${botId}/events`)).status).toBe(404);
    expect((await call(alice, 'GET', `/api/bots/xyz/events`)).status).toBe(400);
  });

  it('stops with cancel_only: no order left on the venue, the bot moves to the closed history', async () => {
    const bad = await call(alice, 'POST', '/api/stop_bot_dca', {
      user_id: alice.email,
      exchange: EX,
      symbol: SYM,
      mode: 'sell',
    });
    expect(bad.status).toBe(400);
    expect(
      (
        await call(alice, 'POST', '/api/stop_bot_dca', {
          user_id: bob.email,
          exchange: EX,
          symbol: SYM,
          mode: 'cancel_only',
        })
      ).status,
    ).toBe(403);
    expect(await bots(alice)).toHaveLength(1);
    const r = await call(alice, 'POST', '/api/stop_bot_dca', {
      user_id: alice.email,
      exchange: EX,
      symbol: SYM,
      mode: 'cancel_only',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ success: true, message: 'Bot stopped successfully' });
    expect(await bots(alice)).toEqual([]);
    const venue = await t.ctx.services.venues!.forUser(alice.id, EX);
    expect(await venue.fetchOpenOrders(SYM)).toEqual([]);
    const hist = await call(alice, 'GET', '/api/historial');
    expect(hist.body.historial).toHaveLength(1);
    expect(hist.body.historial[0]).toMatchObject({ exchange: EX, symbol: SYM, amount: 20, tp: 1, os: 3 });
    expect(hist.body.historial[0].pnl).toBeGreaterThan(0);
    expect(
      (
        await call(alice, 'POST', '/api/stop_bot_dca', {
          user_id: alice.email,
          exchange: EX,
          symbol: SYM,
          mode: 'cancel_only',
        })
      ).status,
    ).toBe(404);
  });

  it('stops with close_market: lots sold, the base balance back to what it was', async () => {
    const venue = await t.ctx.services.venues!.forUser(bob.id, EX);
    await until(async () => ((await bots(bob))[0]?.open_lots === 1 ? true : null));
    const r = await call(bob, 'POST', '/api/stop_bot_dca', {
      user_id: bob.email,
      exchange: EX,
      symbol: 'ETH/USDT',
      mode: 'close_market',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const bal = await venue.fetchBalance();
    expect(bal.ETH?.total ?? 0).toBeLessThan(1e-6);
    expect(await venue.fetchOpenOrders('ETH/USDT')).toEqual([]);
  });
  it('removing the exchange connection stops its running bots first: orders cancelled, event logged', async () => {
    const carol = await createTestUser(t);
    await call(carol, 'POST', '/api/conectar_exchange', { exchange: EX, mode: 'paper' });
    expect((await start(carol)).status).toBe(200);
    const [bot] = await bots(carol);
    expect(bot?.waiting_buys).toBe(3);
    // The venue instance the bot trades on (the registry closes it when the connection goes).
    const venue = await t.ctx.services.venues!.forUser(carol.id, EX);
    // Three ladder buys and the entry lot's take profit.
    expect(await venue.fetchOpenOrders(SYM)).toHaveLength(4);
    expect((await call(carol, 'POST', '/api/eliminar_exchange', { exchange: EX })).status).toBe(200);
    expect(venue.closed).toBe(true);
    // Cancelled on the paper venue before it closed; the bought BTC stayed.
    expect(await venue.fetchOpenOrders(SYM)).toEqual([]);
    expect(await bots(carol)).toEqual([]);
    const hist = await call(carol, 'GET', '/api/historial');
    expect(hist.body.historial).toHaveLength(1);
    const ev = await call(carol, 'GET', `/api/bots/${bot!.id}/events`);
    const events = ev.body.events as Json[];
    expect(events.find((e) => e.code === 'connection_changed')).toMatchObject({
      level: 'warn',
      params: { exchange: EX },
    });
    expect(events.map((e) => e.code)).toContain('stopped');
    const runner = runners.get(t.ctx)!;
    expect(runner.has(bot!.id)).toBe(false);
    const repo = new BotsRepository(t.ctx.db);
    expect((await repo.byId(bot!.id))?.stopReason).toBe('connection_changed');
    const journal = await repo.ordersOf(bot!.id);
    expect(journal.filter((o) => o.role !== 'entry').map((o) => o.status)).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
    // The entry's BTC stays on the account (cancel_only keeps assets).
    expect(journal.find((o) => o.role === 'entry')?.status).toBe('filled');
    expect(journal.some((o) => o.status === 'open' || o.status === 'pending_submit')).toBe(false);
    // Nothing left to stop.
    const r = await call(carol, 'POST', '/api/stop_bot_dca', {
      exchange: EX,
      symbol: SYM,
      mode: 'cancel_only',
    });
    expect(r.status).toBe(404);
  });
});
