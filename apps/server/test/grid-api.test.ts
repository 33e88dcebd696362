/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-argument -- JSON answers read loosely */
import { DERIVATIVES_MESSAGES, GRID_MESSAGES } from '@bytx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { untilSettled, until as waitFor } from './bots.helpers';
import { apiCaller, createTestUser, makeTestApp, type TestApp } from './helpers';

type User = Awaited<ReturnType<typeof createTestUser>>;
type Json = Record<string, any>;

const EX = 'binance';
const SYM = 'BTC/USDT';
const until = <T>(fn: () => Promise<T | null | undefined | false>) => waitFor(fn, 15_000);

describe('Grid bot calls (/grid-bot, spec part 2 §5 and §7) on a paper account', () => {
  let t: TestApp;
  let alice: User;
  let bob: User;
  const call = apiCaller(() => t.app);
  const setPrice = async (symbol: string, price: number) => {
    const r = await call(null, 'POST', '/api/dev/market/price', { exchange: EX, symbol, price });
    expect(r.status).toBe(200);
  };
  const form = (u: User, over: Json = {}) => ({
    user: u.email,
    exchange: EX,
    pair: SYM,
    marketType: 'spot',
    highPrice: '105000',
    lowPrice: '95000',
    amountPerLevel: '20',
    stepPercentage: '1',
    profitCurrency: 'quote',
    position: 'long',
    ...over,
  });
  const start = (u: User, over: Json = {}) => call(u, 'POST', '/api/gridbot/start', form(u, over));
  const active = async (u: User) =>
    (await call(u, 'POST', '/api/gridbot/activos', { user_id: u.email })).body.bots as Json[];

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

  it('answers the levels of a range (niveles) and refuses bad input with the spec messages', async () => {
    const body = {
      exchange: EX,
      pair: SYM,
      price: 100_000,
      highPrice: 105_000,
      lowPrice: 95_000,
      stepPercentage: 1,
    };
    const r = await call(alice, 'POST', '/api/gridbot/niveles', body);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.ok).toBe(true);
    const levels = r.body.levels as number[];
    expect(levels.length).toBe(11);
    expect(levels[0]).toBe(95_000);
    for (let i = 1; i < levels.length; i++) expect(levels[i]! / levels[i - 1]!).toBeCloseTo(1.01, 4);
    expect((r.body.buyLevels as number[]).every((p) => p < 100_000)).toBe(true);
    expect((r.body.sellLevels as number[]).every((p) => p > 100_000)).toBe(true);
    // The level nearest the price is left empty.
    expect(r.body.buyLevels.length + r.body.sellLevels.length).toBe(levels.length - 1);
    const cases: [Json, string][] = [
      [{ exchange: '' }, GRID_MESSAGES.noExchange],
      [{ pair: '' }, GRID_MESSAGES.noPair],
      [{ highPrice: '' }, GRID_MESSAGES.incomplete],
      [{ stepPercentage: null }, GRID_MESSAGES.incomplete],
      [{ lowPrice: 106_000 }, GRID_MESSAGES.lowNotBelowHigh],
      [{ stepPercentage: 0 }, GRID_MESSAGES.stepNotPositive],
      [{ pair: 'NOPE/USDT' }, '⚠️ This pair is not available on Binance.'],
      [{ stepPercentage: 0.001 }, 'This grid has'],
    ];
    for (const [over, message] of cases) {
      const bad = await call(alice, 'POST', '/api/gridbot/niveles', { ...body, ...over });
      expect(bad.status, JSON.stringify(over)).toBe(400);
      expect(bad.body.ok).toBe(false);
      expect(String(bad.body.error).startsWith(message), bad.body.error).toBe(true);
    }
    // Without a price the server reads it.
    const noPrice = await call(alice, 'POST', '/api/gridbot/niveles', { ...body, price: undefined });
    expect(noPrice.body.price).toBe(100_000);
    expect((await call(null, 'POST', '/api/gridbot/niveles', body)).status).toBe(401);
  });

  it('refuses a start in the spec order with its messages, then ours with the numbers', async () => {
    const cases: [Json, number, string | RegExp][] = [
      [{ user: undefined }, 400, GRID_MESSAGES.noSession],
      [{ user: '' }, 400, GRID_MESSAGES.noSession],
      [{ exchange: '', pair: '' }, 400, GRID_MESSAGES.noExchange],
      [{ pair: '', highPrice: '' }, 400, GRID_MESSAGES.noPair],
      [{ amountPerLevel: '', lowPrice: '200000' }, 400, GRID_MESSAGES.incomplete],
      [{ profitCurrency: '' }, 400, GRID_MESSAGES.incomplete],
      [{ lowPrice: '105000', stepPercentage: '0' }, 400, GRID_MESSAGES.lowNotBelowHigh],
      [{ stepPercentage: '0', exchange: 'kraken' }, 400, GRID_MESSAGES.stepNotPositive],
      [{ exchange: 'kraken' }, 400, GRID_MESSAGES.notConnected],
      [{ exchange: 'nope' }, 400, GRID_MESSAGES.notConnected],
      [{ highPrice: 'abc' }, 400, 'High Price must be a number greater than 0.'],
      [{ amountPerLevel: '-5' }, 400, 'Amount per level must be a number greater than 0.'],
      [{ profitCurrency: 'eur' }, 400, GRID_MESSAGES.badProfitCurrency],
      [{ marketType: 'futures' }, 400, GRID_MESSAGES.badMarketType],
      [{ position: 'sideways' }, 400, GRID_MESSAGES.badPosition],
      [{ position: 'short' }, 400, /^A short grid needs a derivatives market/],
      [{ position: 'neutral' }, 400, /^A neutral grid needs a derivatives market/],
      [{ leverage: 201 }, 400, 'Leverage must be a whole number from 1 to 200.'],
      [{ leverage: '2.5' }, 400, 'Leverage must be a whole number from 1 to 200.'],
      [{ leverage: 0 }, 400, 'Leverage must be a whole number from 1 to 200.'],
      [{ pair: 'NOPE/USDT' }, 400, '⚠️ This pair is not available on Binance.'],
      [
        { stepPercentage: '0.01' },
        400,
        /^This grid has 1\d\d\d levels between 95000 and 105000 at 0\.01% steps; at most 200 are allowed\./,
      ],
      [
        { lowPrice: '104990', stepPercentage: '1' },
        400,
        'No grid level fits between 104990 and 105000 at 1% steps. Widen the range or use a smaller step.',
      ],
      [
        { amountPerLevel: '1' },
        400,
        /^Amount per level must be at least 6\.\d\d USDT: the smallest order BTC\/USDT accepts at level 10[\d.]+ costs/,
      ],
      [
        { amountPerLevel: '2000' },
        400,
        /^This grid needs 20020 USDT \(10 levels × 2000 USDT \+ fees\) but the account has 10000 USDT available\./,
      ],
      [
        { leverage: 5, marketType: 'perpetual', position: 'neutral', amountPerLevel: '10000' },
        400,
        /^This grid needs 20000 USDT \(10 levels × 10000 USDT at 5x\)/,
      ],
    ];
    for (const [over, status, message] of cases) {
      const r = await start(alice, over);
      expect(r.status, JSON.stringify(over)).toBe(status);
      expect(r.body.ok).toBe(false);
      if (typeof message === 'string') expect(r.body.error).toBe(message);
      else expect(r.body.error).toMatch(message);
    }
    expect(await active(alice)).toEqual([]);
    expect((await start(alice, { user: bob.email })).status).toBe(403);
    expect((await call(null, 'POST', '/api/gridbot/start', form(alice))).status).toBe(401);
  });

  let gridId = '';

  it('starts a long spot grid: the base for the sells bought, a buy below and a sell above each gap', async () => {
    const r = await start(alice);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ ok: true, message: GRID_MESSAGES.started });
    gridId = r.body.id;
    const [bot] = await until(async () => {
      const b = await active(alice);
      return b[0] && b[0].open_buys + b[0].open_sells === 10 ? b : null;
    });
    expect(bot).toMatchObject({
      id: gridId,
      exchange: EX,
      symbol: SYM,
      market_type: 'spot',
      market_symbol: SYM,
      pnl_quote: 0,
      quote: 'USDT',
      position: 'long',
      profit_currency: 'quote',
      low_price: 95_000,
      high_price: 105_000,
      step_percentage: 1,
      amount_per_level: 20,
      leverage: 1,
      levels: 11,
      rounds: 0,
      status: 'active',
    });
    expect(bot!.open_buys).toBeGreaterThan(0);
    expect(bot!.open_sells).toBeGreaterThan(0);
    expect(bot!.base_held).toBeGreaterThan(0);
    const d = await call(alice, 'GET', `/api/gridbot/${gridId}`);
    expect(d.status).toBe(200);
    expect(d.body.bot.level_prices).toHaveLength(11);
    expect(d.body.bot.price).toBe(100_000);
    const orders = d.body.bot.orders as Json[];
    expect(orders).toHaveLength(10);
    for (const o of orders) expect(o.side === 'buy' ? o.price < 100_000 : o.price > 100_000).toBe(true);
    // One grid per pair; another user's grid is not revealed.
    const dup = await start(alice);
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe(`A Grid Bot is already active for ${SYM} on ${EX}.`);
    expect((await call(bob, 'GET', `/api/gridbot/${gridId}`)).status).toBe(404);
    expect((await call(alice, 'GET', '/api/gridbot/not-a-uuid')).status).toBe(400);
    expect(await active(bob)).toEqual([]);
  });

  it('completes rounds as the price crosses levels: PnL in quote and one history row per round', async () => {
    await setPrice(SYM, 98_500);
    await until(async () => ((await active(alice))[0]?.open_sells ?? 0) >= 6);
    await setPrice(SYM, 101_600);
    // Settled: the move crosses several levels, and each filled sell's new buy is placed in turn.
    const [bot] = await untilSettled(async () => {
      const b = await active(alice);
      return (b[0]?.rounds ?? 0) >= 1 ? b : null;
    }, 15_000);
    expect(bot!.pnl_quote).toBeGreaterThan(0);
    // Profit per round ≈ amount × (step − 2 × fee) = 20 × (1 % − 0.2 %) = 0.16 USDT.
    expect(bot!.pnl_quote / bot!.rounds).toBeCloseTo(0.16, 1);
    const h = await call(alice, 'GET', `/api/dca/history?bot_id=${gridId}&page=1&per_page=25`);
    expect(h.body.historial).toHaveLength(bot!.rounds);
    const all = await call(alice, 'GET', `/api/dca/all_history?user_id=${alice.email}`);
    expect((all.body.history as Json[]).filter((r) => r.bot_id === gridId)).toHaveLength(bot!.rounds);
    const pnls = await call(alice, 'POST', '/api/pnls_actuales', { user_id: alice.email });
    expect((pnls.body.pnls as Json[]).find((p) => p.kind === 'grid')!.pnl).toBeCloseTo(bot!.pnl_quote, 6);
    const ev = await call(alice, 'GET', `/api/bots/${gridId}/events`);
    expect((ev.body.events as Json[]).length).toBeGreaterThan(0);
  });

  it('stops with Sell All (vender): nothing left open, the grid in History with its PnL', async () => {
    expect((await call(bob, 'POST', '/api/gridbot/detener', { grid_id: gridId, vender: true })).status).toBe(
      404,
    );
    expect((await call(alice, 'POST', '/api/gridbot/detener', { grid_id: 'x', vender: true })).status).toBe(
      400,
    );
    expect(
      (await call(alice, 'POST', '/api/gridbot/detener', { grid_id: gridId, vender: 'maybe' })).status,
    ).toBe(400);
    const before = (await active(alice))[0]!;
    const r = await call(alice, 'POST', '/api/gridbot/detener', { grid_id: gridId, vender: true });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ ok: true, message: GRID_MESSAGES.stopped });
    expect(await active(alice)).toEqual([]);
    const again = await call(alice, 'POST', '/api/gridbot/detener', { grid_id: gridId, vender: false });
    expect(again.body).toMatchObject({ ok: true, already_stopped: true });
    const hist = await call(alice, 'POST', '/api/gridbot/historial', { user_id: alice.email });
    expect(hist.status).toBe(200);
    expect(hist.body.history).toHaveLength(1);
    expect(hist.body.history[0]).toMatchObject({
      id: gridId,
      symbol: SYM,
      exchange: EX,
      market_type: 'spot',
      position: 'long',
      stop_reason: 'user_close_market',
    });
    // Selling what the grid held at market closes its open legs as trades too (at 101,600, above their cost).
    expect(hist.body.history[0].rounds).toBeGreaterThanOrEqual(before.rounds);
    expect(hist.body.history[0].pnl_quote).toBeGreaterThanOrEqual(before.pnl_quote);
    expect(hist.body.history[0].stopped_at).not.toBeNull();
    const d = await call(alice, 'GET', `/api/gridbot/${gridId}`);
    expect(d.body.bot).toMatchObject({ status: 'stopped', orders: [], open_buys: 0, open_sells: 0 });
    const wallet = await call(alice, 'GET', '/api/wallet?exchange=binance');
    expect(wallet.body.balances.BTC ?? 0).toBeLessThan(1e-4);
    expect((await call(bob, 'POST', '/api/gridbot/historial', { user_id: bob.email })).body.history).toEqual(
      [],
    );
    expect((await call(alice, 'POST', '/api/gridbot/historial', { user_id: bob.email })).status).toBe(403);
  });

  it('runs a short grid on the perpetual market with leverage; one derivatives bot per market', async () => {
    await setPrice(SYM, 100_000);
    const r = await start(bob, { marketType: 'perpetual', position: 'short', leverage: 3 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const [bot] = await until(async () => {
      const b = await active(bob);
      return b[0] && b[0].open_buys + b[0].open_sells === 10 ? b : null;
    });
    expect(bot).toMatchObject({
      market_type: 'perpetual',
      market_symbol: 'BTC/USDT:USDT',
      position: 'short',
      leverage: 3,
    });
    expect(bot!.base_held).toBeLessThan(0);
    // A Grid Bot DCA on the same perpetual market is refused: the exchange keeps one position per market.
    const dca = await call(bob, 'POST', '/api/start_bot_dca', {
      symbol: SYM,
      amount: '20',
      tp: '1',
      separacion: '1',
      os: '3',
      exchange: EX,
      apartado: 'Perpetual',
      direction: 'SHORT',
    });
    expect(dca.status).toBe(409);
    expect(dca.body.error).toBe(
      'Another bot already trades BTC/USDT:USDT on Binance (Perpetual). The exchange keeps one position per market, so only one derivatives bot can run on it: stop that bot first.',
    );
    // Keep assets: the short stays open on the account.
    const stop = await call(bob, 'POST', '/api/gridbot/detener', { grid_id: bot!.id, vender: 'mantener' });
    expect(stop.body.ok).toBe(true);
    const hist = await call(bob, 'POST', '/api/gridbot/historial', {});
    expect(hist.body.history[0]).toMatchObject({ market_type: 'perpetual', stop_reason: 'user_cancel_only' });
    expect(DERIVATIVES_MESSAGES.oneBotPerMarket).toContain('one position per market');
  });
});
