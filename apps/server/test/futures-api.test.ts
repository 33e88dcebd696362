/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- JSON answers read loosely */
import { DERIVATIVES_MESSAGES, fillMessage, SPOT_MESSAGES } from '@bytx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until as waitFor } from './bots.helpers';
import { apiCaller, createTestUser, makeTestApp, type TestApp } from './helpers';

type User = Awaited<ReturnType<typeof createTestUser>>;
type Json = Record<string, any>;

const EX = 'binance';
const SYM = 'BTC/USDT';
const PERP = 'BTC/USDT:USDT';
const until = <T>(fn: () => Promise<T | null | undefined | false>) => waitFor(fn, 15_000);

/**
 * The futures screen's calls (issue 16, docs/trading.md) on paper accounts: an order on the linear
 * perpetual (`BTC/USDT:USDT`) with the user's stored leverage, its margin check, reduce-only, closing the
 * whole position, the funding rate, TP and SL on a short, and a manual futures order next to a
 * derivatives bot on the same market. Paper swaps: market orders fill 0.01 % off the price (a buy above,
 * a sell below), resting limits at their own price; fees 0.05 % taker, 0.02 % maker; the derivatives
 * wallet starts with 10,000 USDT. Market orders stay under 500 USD, the smallest level of the simulated
 * book (drawn each second): a larger one can take the second level in an unlucky second.
 */
describe('Futures orders (/api/spot/order on a perpetual, /api/futures/*) on paper accounts', () => {
  let t: TestApp;
  let alice: User;
  let bob: User;
  let erin: User;
  const call = apiCaller(() => t.app);
  const setPrice = async (price: number) => {
    const r = await call(null, 'POST', '/api/dev/market/price', { exchange: EX, symbol: SYM, price });
    expect(r.status).toBe(200);
  };
  const order = (u: User, body: Json) =>
    call(u, 'POST', '/api/spot/order', { exchange: EX, symbol: PERP, type: 'market', ...body });
  const position = async (u: User) => {
    const r = await call(u, 'GET', `/api/wallet/derivatives?exchange=${EX}`);
    expect(r.status).toBe(200);
    return (r.body.positions as Json[]).find((p) => p.symbol === PERP) ?? null;
  };
  const marginFree = async (u: User) => {
    const r = await call(u, 'GET', `/api/spot/market?exchange=${EX}&symbol=${encodeURIComponent(PERP)}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.quote_free as number;
  };
  const one = async (u: User, id: string) => {
    const r = await call(u, 'GET', `/api/spot/orders?exchange=${EX}&symbol=${encodeURIComponent(PERP)}`);
    return [...(r.body.open as Json[]), ...(r.body.recent as Json[])].find((o) => o.id === id)!;
  };

  beforeAll(async () => {
    t = await makeTestApp({ BOT_RUNNER: '1', SIMULATOR_CONTROL: '1', TRADING_SCREENS: 'all' });
    alice = await createTestUser(t);
    bob = await createTestUser(t);
    erin = await createTestUser(t);
    for (const u of [alice, bob, erin]) {
      const r = await call(u, 'POST', '/api/conectar_exchange', { exchange: EX, mode: 'paper' });
      expect(r.status).toBe(200);
    }
    await setPrice(100_000);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers the perpetual’s figures: its steps, maximum leverage and the derivatives wallet', async () => {
    const r = await call(alice, 'GET', `/api/spot/market?exchange=${EX}&symbol=${encodeURIComponent(PERP)}`);
    expect(r.body).toMatchObject({
      success: true,
      symbol: PERP,
      listed: true,
      market: 'swap',
      base: 'BTC',
      quote: 'USDT',
      amount_step: 0.00001,
      price_step: 0.01,
      taker: 0.0005,
      maker: 0.0002,
      max_leverage: 125,
      price: 100_000,
      quote_free: 10_000,
    });
    // An inverse swap is not traded on this screen.
    const inv = await order(alice, { symbol: 'BTC/USD:BTC', side: 'long', quantity: '1' });
    expect(inv.status).toBe(400);
    expect(inv.body.error).toBe('❌ BTC/USD:BTC is not available on Binance.');
  });

  it('a long uses the stored leverage: margin = value ÷ leverage, checked with the numbers', async () => {
    expect(
      (await call(alice, 'POST', '/api/set_leverage', { exchange: EX, symbol: SYM, leverage: 5 })).status,
    ).toBe(200);
    // 1 BTC × 100,000 ÷ 5 = 20,000 USDT of margin; the derivatives wallet has 10,000.
    const big = await order(alice, { side: 'long', quantity: '1' });
    expect(big.status).toBe(400);
    expect(big.body.error).toBe('❌ Insufficient balance. Required: 20000.00, Available: 10000.00');
    // A short needs margin the same way (it opens a position, it does not sell held coins).
    const short = await order(alice, { side: 'short', type: 'limit', price: '100000', quantity: '0.50001' });
    expect(short.body.error).toBe('❌ Insufficient balance. Required: 10000.20, Available: 10000.00');
    expect(await position(alice)).toBeNull();

    const preview = await order(alice, { side: 'long', quantity: '0.004', dry_run: true });
    expect(preview.body.preview).toMatchObject({ symbol: PERP, side: 'buy', price: 100_000, value: 400 });

    const r = await order(alice, { side: 'long', quantity: '0.004' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.message).toBe('✅ Order filled: buy 0.004 BTC at 100010 USDT.');
    expect(r.body.order).toMatchObject({
      symbol: PERP,
      market: 'swap',
      side: 'buy',
      status: 'filled',
      filled: 0.004,
      average: 100_010,
      fee: 0.20002,
      reduce_only: false,
    });
    // Margin 0.004 × 100,010 ÷ 5 = 80.008, fee 0.05 % = 0.20002.
    expect(await position(alice)).toMatchObject({
      side: 'long',
      contracts: 0.004,
      entry_price: 100_010,
      leverage: 5,
      margin: 80.008,
    });
    expect(await marginFree(alice)).toBeCloseTo(10_000 - 80.008 - 0.20002, 8);
    // The spot wallet did not move.
    expect((await call(alice, 'GET', `/api/wallet?exchange=${EX}`)).body.balances).toMatchObject({
      USDT: 10_000,
      BTC: 0,
    });
  });

  it('reduce-only needs a position on the other side, and only reduces it', async () => {
    const none = await order(bob, { side: 'sell', quantity: '0.001', reduce_only: true });
    expect(none.status).toBe(400);
    expect(none.body.error).toBe('❌ Reduce-only: there is no long position on BTC/USDT:USDT to reduce.');
    const wrongSide = await order(alice, { side: 'buy', quantity: '0.001', reduce_only: 'true' });
    expect(wrongSide.body.error).toBe(
      '❌ Reduce-only: there is no short position on BTC/USDT:USDT to reduce.',
    );
    const r = await order(alice, { side: 'sell', quantity: '0.0016', reduce_only: true });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.order).toMatchObject({ side: 'sell', reduce_only: true, status: 'filled', filled: 0.0016 });
    expect(await position(alice)).toMatchObject({ side: 'long', contracts: 0.0024 });
    const journal = await t.ctx.database.sql.query(`SELECT o.amount FROM bot_orders o WHERE o.bot_id = $1`, [
      r.body.order.id,
    ]);
    expect(journal).toEqual([{ amount: '0.0016' }]);
  });

  it('closes the whole position at market with a reduce-only order', async () => {
    const r = await call(alice, 'POST', '/api/futures/close', { exchange: EX, symbol: PERP });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ success: true, message: '✅ Closing the position at market.' });
    expect(r.body.order).toMatchObject({
      side: 'sell',
      type: 'market',
      quantity: 0.0024,
      filled: 0.0024,
      reduce_only: true,
      status: 'filled',
    });
    expect(await position(alice)).toBeNull();
    const list = await call(
      alice,
      'GET',
      `/api/spot/orders?exchange=${EX}&symbol=${encodeURIComponent(PERP)}`,
    );
    expect((list.body.fills as Json[]).map((f) => [f.role, f.side, f.quantity])).toEqual([
      ['close', 'sell', 0.0024],
      ['entry', 'sell', 0.0016],
      ['entry', 'buy', 0.004],
    ]);
    const again = await call(alice, 'POST', '/api/futures/close', { exchange: EX, symbol: PERP });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('❌ There is no open position on BTC/USDT:USDT.');
    expect(
      (await call(alice, 'POST', '/api/futures/close', { exchange: 'kraken', symbol: PERP })).body.error,
    ).toBe(SPOT_MESSAGES.notConnected);
  });

  it('a short’s take profit (a reduce-only limit buy) closes it with the round trip’s PnL', async () => {
    await setPrice(100_000);
    const r = await order(bob, { side: 'short', quantity: '0.004', tp: '99000', sl: '102000' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = r.body.order.id as string;
    expect(r.body.order).toMatchObject({ side: 'sell', average: 99_990, exit_state: 'active' });
    const tp = await t.ctx.database.sql.query(
      `SELECT side, type, price FROM bot_orders WHERE bot_id = $1 AND role = 'manual_tp'`,
      [id],
    );
    expect(tp).toEqual([{ side: 'buy', type: 'limit', price: '99000' }]);
    await setPrice(99_000);
    const done = await until(async () => {
      const o = await one(bob, id);
      return o.exit_state === 'tp_filled' ? o : null;
    });
    // 0.004 × (99,990 − 99,000) − 0.19998 (taker 0.05 %) − 0.0792 (maker 0.02 %) = 3.68082 USDT.
    expect(done.pnl).toBeCloseTo(3.68082, 8);
    expect(await position(bob)).toBeNull();
  });

  it('a short’s stop loss closes it at market (reduce-only) and cancels the take profit', async () => {
    await setPrice(100_000);
    const r = await order(bob, { side: 'short', quantity: '0.004', tp: '95000', sl: '101000' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = r.body.order.id as string;
    await setPrice(101_100);
    const done = await until(async () => {
      const o = await one(bob, id);
      return o.exit_state === 'sl_filled' ? o : null;
    });
    // Bought back at 101,100 × 1.0001 = 101,110.11: 0.004 × (99,990 − 101,110.11) − 0.19998 − 0.20222022.
    expect(done.pnl).toBeCloseTo(-4.88264022, 8);
    expect(await position(bob)).toBeNull();
    const rows = await t.ctx.database.sql.query(
      `SELECT role, side, status FROM bot_orders WHERE bot_id = $1 ORDER BY created_at`,
      [id],
    );
    expect(rows.map((o) => [o.role, o.side, o.status])).toEqual([
      ['manual_entry', 'sell', 'filled'],
      ['manual_tp', 'buy', 'cancelled'],
      ['manual_sl', 'buy', 'filled'],
    ]);
  });

  it('answers the funding rate, the next funding time and the mark price', async () => {
    await setPrice(100_000);
    const r = await call(
      alice,
      'GET',
      `/api/futures/funding?exchange=${EX}&symbol=${encodeURIComponent(PERP)}`,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ success: true, exchange: EX, symbol: PERP, mark_price: 100_000 });
    expect(typeof r.body.rate).toBe('number');
    expect(Math.abs(r.body.rate as number)).toBeLessThan(0.01);
    // Funding at 00:00, 08:00 and 16:00 UTC: within the next 8 hours.
    const next = r.body.next_funding_time as number;
    expect(next % (8 * 3_600_000)).toBe(0);
    expect(next).toBeGreaterThan(Date.now() - 60_000);
    expect(next - Date.now()).toBeLessThanOrEqual(8 * 3_600_000);
    // A plain pair names its perpetual here too; an unknown one is refused.
    expect((await call(alice, 'GET', `/api/futures/funding?exchange=${EX}&symbol=${SYM}`)).body.symbol).toBe(
      PERP,
    );
    const bad = await call(alice, 'GET', `/api/futures/funding?exchange=${EX}&symbol=NOPE/USDT`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('❌ NOPE/USDT is not available on Binance.');
  });

  it('refuses a stored leverage above the market’s maximum', async () => {
    // The exchange-wide leverage (no symbol) is not checked against a market when it is stored.
    expect((await call(erin, 'POST', '/api/set_leverage', { exchange: EX, leverage: 150 })).status).toBe(200);
    const r = await order(erin, { side: 'long', quantity: '0.001' });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe(
      fillMessage(DERIVATIVES_MESSAGES.leverageAboveMarket, {
        leverage: 150,
        symbol: PERP,
        exchange: EX,
        max: 125,
      }),
    );
    expect((await call(erin, 'POST', '/api/set_leverage', { exchange: EX, leverage: 2 })).status).toBe(200);
  });

  it('a manual futures order may sit next to a derivatives bot on the same market', async () => {
    const bot = await call(erin, 'POST', '/api/start_bot_dca', {
      symbol: SYM,
      amount: '50',
      tp: '1',
      separacion: '1',
      os: '3',
      exchange: EX,
      apartado: 'Perpetual',
      direction: 'SHORT',
    });
    expect(bot.status, JSON.stringify(bot.body)).toBe(200);
    const r = await order(erin, { side: 'buy', type: 'limit', price: '50000', quantity: '0.001' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.order).toMatchObject({ status: 'open', market: 'swap' });
    // The bot list shows the bot alone.
    const bots = (await call(erin, 'GET', '/api/bots_activos_dca')).body.bots as Json[];
    expect(bots).toHaveLength(1);
    expect(JSON.stringify(bots)).not.toContain(r.body.order.id);
    const del = await call(erin, 'DELETE', `/api/spot/orders/${r.body.order.id}`);
    expect(del.body.message).toBe('✅ Order cancelled.');
  });
});
