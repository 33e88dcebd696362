/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers read loosely */
import { arbitrageSummary, type ArbitrageState } from '@bytx/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runners } from '../src/modules/bots/routes';
import { untilSettled, until as waitFor } from './bots.helpers';
import { apiCaller, createTestUser, makeTestApp, type TestApp } from './helpers';

type User = Awaited<ReturnType<typeof createTestUser>>;
type Json = Record<string, any>;

const until = <T>(fn: () => Promise<T | null | undefined | false>) => waitFor(fn, 20_000);

/**
 * The Grid, Arbitrage and Signal bots' reads answered from the bots read cache (read-cache.ts;
 * docs/read-path.md): `POST /api/gridbot/historial`, `GET /api/gridbot/{id}`, `GET /api/arbitraje/log`,
 * `GET /api/signalbot/bots`, `GET /api/signalbot/bots/{id}/signals`, and the bot row behind
 * `POST /api/estado_bot_arbitraje`. Each read is made twice first (the second is the kept answer), then
 * right after a write it must show, with no wait in between: a fill, a tick, a trade, a signal, and raw
 * SQL that no repository told the cache about.
 */
describe('the Grid, Arbitrage and Signal reads kept in memory stay exact', () => {
  let t: TestApp;
  let alice: User;
  let bob: User;
  const call = apiCaller(() => t.app);
  const sql = (text: string, params: unknown[] = []) => t.ctx.database.sql.query(text, params);
  const setPrice = async (exchange: string, symbol: string, price: number) => {
    const r = await call(null, 'POST', '/api/dev/market/price', { exchange, symbol, price });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };
  const ok = async (u: User, method: 'GET' | 'POST', url: string, body?: Json) => {
    const r = await call(u, method, url, body);
    expect(r.status, `${method} ${url}: ${JSON.stringify(r.body)}`).toBe(200);
    return r.body as Json;
  };

  beforeAll(async () => {
    t = await makeTestApp({ BOT_RUNNER: '1', SIMULATOR_CONTROL: '1' });
    alice = await createTestUser(t);
    bob = await createTestUser(t);
    for (const exchange of ['binance', 'bybit']) {
      await ok(alice, 'POST', '/api/conectar_exchange', { exchange, mode: 'paper', user_id: alice.email });
    }
    await ok(bob, 'POST', '/api/conectar_exchange', {
      exchange: 'binance',
      mode: 'paper',
      user_id: bob.email,
    });
    await setPrice('binance', 'BTC/USDT', 100_000);
    await setPrice('binance', 'ETH/USDT', 3_000);
    await setPrice('bybit', 'ETH/USDT', 3_000);
  });
  afterAll(async () => t?.close());

  it('a grid: its fills, its price and its closed rows show at the next read', async () => {
    const started = await ok(alice, 'POST', '/api/gridbot/start', {
      user: alice.email,
      exchange: 'binance',
      pair: 'BTC/USDT',
      marketType: 'spot',
      highPrice: '105000',
      lowPrice: '95000',
      amountPerLevel: '20',
      stepPercentage: '1',
      profitCurrency: 'quote',
      position: 'long',
    });
    const id = started.id as string;
    const detail = async () => (await ok(alice, 'GET', `/api/gridbot/${id}`)).bot as Json;
    /** The grid's resting orders as the journal has them (what the detail must show). */
    const journal = async () =>
      (
        await sql(
          `SELECT side, price::float8 AS price FROM bot_orders
            WHERE bot_id = $1 AND type = 'limit' AND price IS NOT NULL AND NOT cancel_requested
              AND status IN ('pending', 'open', 'partially_filled')`,
          [id],
        )
      )
        .map((o) => `${o.side as string}@${o.price as number}`)
        .sort();
    const shown = (b: Json) =>
      (b.orders as Json[]).map((o) => `${o.side as string}@${o.price as number}`).sort();
    await until(async () => ((await detail()).orders as Json[]).length === 10);
    const first = await detail();
    expect(await detail()).toEqual(first); // kept now
    expect(first.price).toBe(100_000);

    // A tick inside a gap (no fill): the next read has the new price.
    await setPrice('binance', 'BTC/USDT', 100_100);
    expect((await detail()).price).toBe(100_100);

    // Fills (the runner's writes, group-committed): once they are in the journal, the next read has them.
    await setPrice('binance', 'BTC/USDT', 98_500);
    await untilSettled(async () => {
      const b = await detail();
      return b.open_sells >= 6 ? b : null;
    }, 15_000);
    const afterFill = await detail();
    expect(shown(afterFill)).toEqual(await journal());
    expect(afterFill.open_sells).toBeGreaterThanOrEqual(6);

    // Raw SQL on the journal, no repository: the order is gone from the next read.
    const [one] = await sql(
      `SELECT client_order_id FROM bot_orders WHERE bot_id = $1 AND type = 'limit' AND NOT cancel_requested
        AND status IN ('pending', 'open', 'partially_filled') LIMIT 1`,
      [id],
    );
    await sql(`UPDATE bot_orders SET cancel_requested = true WHERE client_order_id = $1`, [
      one!.client_order_id,
    ]);
    const cancelled = await detail();
    expect(cancelled.orders).toHaveLength((afterFill.orders as Json[]).length - 1);
    expect(shown(cancelled)).toEqual(await journal());

    // The history: stopping through the API, then a raw change of the stored PnL.
    const history = async () =>
      (await ok(alice, 'POST', '/api/gridbot/historial', { user_id: alice.email })).history as Json[];
    expect(await history()).toEqual([]);
    expect(await history()).toEqual([]); // kept now
    await ok(alice, 'POST', '/api/gridbot/detener', { grid_id: id, vender: false });
    const closed = await history();
    expect(closed.map((h) => h.id as string)).toEqual([id]);
    expect(closed[0]!.stop_reason).toBe('user_cancel_only');
    expect((await detail()).status).toBe('stopped');
    await sql(`UPDATE bots SET pnl = '12.5' WHERE id = $1`, [id]);
    expect((await history())[0]!.pnl_quote).toBe(12.5);
    await sql(`UPDATE bots SET stop_reason = 'fresh_test' WHERE id = $1`, [id]);
    expect((await detail()).stop_reason).toBe('fresh_test');

    // Another user never gets alice's answers.
    expect((await call(bob, 'GET', `/api/gridbot/${id}`)).status).toBe(404);
    expect((await ok(bob, 'POST', '/api/gridbot/historial', { user_id: bob.email })).history).toEqual([]);
  });

  it('an arbitrage bot: its log, its row and its trades show at the next read', async () => {
    const log = async () =>
      (await ok(alice, 'GET', `/api/arbitraje/log?user_id=${encodeURIComponent(alice.email)}`)) as {
        bot_id: string | null;
        events: Json[];
      };
    const status = async () => ok(alice, 'POST', '/api/estado_bot_arbitraje', { user_id: alice.email });
    expect(await log()).toEqual({ success: true, bot_id: null, events: [] });
    expect((await status()).activo).toBe(false);
    expect((await status()).activo).toBe(false); // kept now

    const started = await ok(alice, 'POST', '/api/start_arbitraje', {
      user_id: alice.email,
      symbol: 'ETH/USDT',
      monto_usdt: 1000,
    });
    const botId = started.id as string;
    // The start's write: both reads have the bot at once.
    const s = await status();
    expect(s.activo).toBe(true);
    expect(s.bot.id).toBe(botId);
    expect(s.bot.monto_usdt).toBe(1000);
    const before = await log();
    expect(before.bot_id).toBe(botId);
    expect(await log()).toEqual(before); // kept now

    // Raw SQL, no repository: an event and a changed row show at the next read.
    await sql(`INSERT INTO bot_events (bot_id, code, params) VALUES ($1, 'fresh_test_event', '{}')`, [botId]);
    const withEvent = await log();
    expect(withEvent.events).toHaveLength(before.events.length + 1);
    expect(withEvent.events[0]!.type).toBe('fresh_test_event');
    await sql(`UPDATE bots SET config = jsonb_set(config, '{monto_usdt}', '999') WHERE id = $1`, [botId]);
    expect((await status()).bot.monto_usdt).toBe(999);

    // A round trip (Bybit 1 % dearer): once its trade is in the history, its events are in the log.
    await setPrice('binance', 'ETH/USDT', 3_000.01);
    await setPrice('binance', 'ETH/USDT', 3_000);
    await setPrice('bybit', 'ETH/USDT', 3_030);
    await until(async () => {
      const h = await ok(alice, 'POST', '/api/historial_arbitraje', { user_id: alice.email });
      return (h.historial as Json[]).length >= 1;
    });
    // The status's live figures are the runner's state at the moment of the read, tick after tick (the
    // answer's text is kept while the state object is the same one).
    const live = () => {
      const st = runners.get(t.ctx)!.handle(botId)!.state as ArbitrageState;
      const sum = arbitrageSummary(st);
      return { books: sum.books, trips: sum.trips, waiting: sum.waiting };
    };
    for (const price of [3_031, 3_029.5, 3_030]) {
      await setPrice('bybit', 'ETH/USDT', price);
      for (let i = 0; i < 5; i++) {
        const want = live();
        const b = (await status()).bot;
        expect({ books: b.books, trips: b.trips, waiting: b.waiting }).toEqual(want);
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    const codes = (await log()).events.map((e) => e.type as string);
    expect(codes).toContain('arb_round_trip');
    const [n] = await sql(`SELECT count(*)::int AS n FROM bot_events WHERE bot_id = $1`, [botId]);
    expect((await log()).events.length).toBe(Math.min(100, n!.n as number));

    // Stopped through the API: inactive at the next read; the log is the latest bot's.
    await ok(alice, 'POST', '/api/stop_arbitraje', { user_id: alice.email, keep_assets: true });
    expect((await status()).activo).toBe(false);
    expect((await log()).events[0]!.type).toBe('stopped');
    const other = await call(bob, 'GET', `/api/arbitraje/log?user_id=${encodeURIComponent(bob.email)}`);
    expect(other.body).toEqual({ success: true, bot_id: null, events: [] });
  });

  it('a signal bot: a new signal, its execution and raw writes show at the next read', async () => {
    const created = await ok(alice, 'POST', '/api/signalbot/bots', {
      exchange: 'binance',
      symbol: 'ETH/USDT',
      amount: 100,
      max_position: 250,
    });
    const id = created.id as string;
    const list = async (u: User = alice) => (await ok(u, 'GET', '/api/signalbot/bots')).bots as Json[];
    const mine = async () => (await list()).find((b) => b.id === id)!;
    const signals = async (query = '') => ok(alice, 'GET', `/api/signalbot/bots/${id}/signals${query}`);
    const first = await mine();
    expect(first).toMatchObject({ signals_accepted: 0, signals_rejected: 0, position_qty: 0, price: 3_000 });
    expect(await mine()).toEqual(first); // kept now
    expect((await signals()).total).toBe(0);
    expect((await signals()).total).toBe(0); // kept now

    // A tick: the next list has the new price.
    await setPrice('binance', 'ETH/USDT', 3_001);
    expect((await mine()).price).toBe(3_001);

    // A signal: recorded when the webhook answers, so the next reads have it.
    const hook = await t.app.inject({
      method: 'POST',
      url: `/api/signalbot/webhook/${id}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ secret: created.secret, action: 'buy', symbol: 'ETH/USDT' }),
    });
    expect(hook.statusCode, hook.body).toBe(200);
    const logged = await signals();
    expect(logged.total).toBe(1);
    expect((await mine()).signals_accepted).toBe(1);
    // Executed (the runner's writes and the signal's settle): the log and the position follow.
    const executed = await until(async () => {
      const l = await signals();
      return l.signals[0]?.status === 'executed' ? l : null;
    });
    expect((executed.signals[0].orders as Json[]).length).toBeGreaterThan(0);
    const bot = await until(async () => {
      const b = await mine();
      return b.position_qty > 0 ? b : null;
    });
    expect(bot.avg_entry).toBeGreaterThan(0);

    // Raw SQL, no repository: a rejected signal, a changed order, a rotated secret.
    await sql(
      `INSERT INTO signal_events (bot_id, status, reason, reason_text, action) VALUES ($1, 'rejected', 'bad_action', 'x', 'hold')`,
      [id],
    );
    const raw = await signals();
    expect(raw.total).toBe(2);
    expect(raw.signals[0].status).toBe('rejected');
    expect((await mine()).signals_rejected).toBe(1);
    const cid = (executed.signals[0].orders as Json[])[0]!.client_order_id as string;
    await sql(`UPDATE bot_orders SET avg_price = 1234.5 WHERE client_order_id = $1`, [cid]);
    expect((await signals('?page=1&per_page=20')).signals[1].orders[0].price).toBe(1234.5);
    expect((await signals()).signals[1].orders[0].price).toBe(1234.5);
    await sql(
      `UPDATE signal_bots SET secret_rotated_reason = 'password_change', secret_rotated_at = now() WHERE bot_id = $1`,
      [id],
    );
    expect((await mine()).secret_rotated_reason).toBe('password_change');
    // Through the API, inside the repository's transaction.
    await ok(alice, 'POST', `/api/signalbot/bots/${id}/secret`);
    expect((await mine()).secret_rotated_reason).toBe('user');

    // Another user never gets alice's answers.
    expect(await list(bob)).toEqual([]);
    expect((await call(bob, 'GET', `/api/signalbot/bots/${id}/signals`)).status).toBe(404);
  });
});
