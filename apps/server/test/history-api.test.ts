/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- JSON answers read loosely */
// The global history calls (spec part 2 §2, §7; docs/bots/history.md): paging, totals, the
// aggregates and their arithmetic, USD conversion through the market hub, the 24 h window, soft
// deletes and the rollup the triggers keep. On PGlite always, on PostgreSQL too when DATABASE_URL is set.
import { HISTORY_MESSAGES } from '@bytx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/client';
import { bots, botTrades } from '../src/db/schema/index';
import {
  apiCaller,
  createTestUser,
  freshPostgresUrl,
  makeTestApp,
  PG_SKIP_REASON,
  PG_URL,
  type TestApp,
} from './helpers';

type User = Awaited<ReturnType<typeof createTestUser>>;
type Json = Record<string, any>;

const HOUR = 3_600_000;

const drivers = [
  { name: 'PGlite', pg: false },
  { name: 'PostgreSQL', pg: true },
];
if (!PG_URL) console.log(`[skip] history-api on PostgreSQL: ${PG_SKIP_REASON}`);

describe.each(drivers)('global history calls on $name', ({ pg }) => {
  let t: TestApp;
  let database: Database | undefined;
  let drop: (() => Promise<void>) | undefined;
  const call = apiCaller(() => t.app);
  const now = Date.now();

  /** A Grid Bot DCA row of the user (stopped: the runner never touches it). */
  const newBot = async (u: User, exchange = 'binance', symbol = 'BTC/USDT') => {
    const [row] = await t.ctx.db
      .insert(bots)
      .values({ userId: u.id, exchange, symbol, config: {}, state: {}, status: 'stopped' })
      .returning({ id: bots.id });
    return row!.id;
  };
  let lot = 0;
  /** Inserts sales as the runner writes them (one row each) and returns their ids in order. */
  const addTrades = async (
    u: User,
    botId: string,
    rows: { symbol?: string; exchange?: string; pnl: string; sell: Date; qty?: string }[],
  ) => {
    const inserted = await t.ctx.db
      .insert(botTrades)
      .values(
        rows.map((r) => {
          lot++;
          return {
            botId,
            userId: u.id,
            exchange: r.exchange ?? 'binance',
            symbol: r.symbol ?? 'BTC/USDT',
            lotKey: `lot-${lot}`,
            lotId: `lot-${lot}`,
            buyTime: new Date(r.sell.getTime() - HOUR),
            sellTime: r.sell,
            qty: r.qty ?? '0.001',
            buyPrice: '100',
            sellPrice: '101',
            pnlNet: r.pnl,
          };
        }),
      )
      .returning({ id: botTrades.id });
    return inserted.map((r) => r.id);
  };
  /** The rollups recomputed from bot_trades must equal the ones the triggers keep. */
  const rollupMatches = async () => {
    const q = (text: string) => t.ctx.database.sql.query(text);
    const norm = (rows: Record<string, unknown>[]) =>
      rows.map((r) => ({ ...r, pnl: Number(r.pnl), trades: Number(r.trades) }));
    expect(
      norm(
        await q(
          `SELECT user_id::text, exchange, symbol, pnl::text AS pnl, trades FROM bot_trade_symbols ORDER BY 1, 2, 3`,
        ),
      ),
    ).toEqual(
      norm(
        await q(
          `SELECT user_id::text, exchange, symbol, sum(pnl_net)::text AS pnl, count(*)::int AS trades
           FROM bot_trades WHERE deleted_at IS NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
        ),
      ),
    );
    expect(
      norm(
        await q(
          `SELECT user_id::text, day::text, exchange, quote, pnl::text AS pnl, trades FROM bot_trade_daily ORDER BY 1, 2, 3, 4`,
        ),
      ),
    ).toEqual(
      norm(
        await q(
          `SELECT user_id::text, ((sell_time AT TIME ZONE 'UTC')::date)::text AS day, exchange,
             split_part(split_part(symbol, '/', 2), ':', 1) AS quote, sum(pnl_net)::text AS pnl, count(*)::int AS trades
           FROM bot_trades WHERE deleted_at IS NULL GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
        ),
      ),
    );
  };
  const list = async (u: User, query = '') =>
    call(u, 'GET', `/api/dca/all_history?user_id=${encodeURIComponent(u.email)}${query}`);

  let alice: User;
  let bob: User;
  let aliceBot = '';
  let bobBot = '';
  let aliceIds: number[] = [];
  let bobIds: number[] = [];

  beforeAll(async () => {
    if (pg) {
      if (!PG_URL) return;
      const fresh = await freshPostgresUrl();
      drop = fresh.drop;
      database = await openDatabase({ databaseUrl: fresh.url, dataDir: 'memory://' });
    }
    t = await makeTestApp({ SIMULATOR_CONTROL: '1' }, database ? { database } : {});
    alice = await createTestUser(t);
    bob = await createTestUser(t);
    // The hub's BTC/USDT on binance converts alice's ETH/BTC PnL (quoted in BTC).
    const p = await call(null, 'POST', '/api/dev/market/price', {
      exchange: 'binance',
      symbol: 'BTC/USDT',
      price: 50_000,
    });
    expect(p.status).toBe(200);
    aliceBot = await newBot(alice);
    bobBot = await newBot(bob);
    // Worked numbers (every figure below follows from these six rows):
    //   BTC/USDT binance  +0.8    1 h ago      USD 0.8
    //   BTC/USDT binance  −0.3    30 h ago     USD −0.3   (outside the 24 h window)
    //   ETH/BTC  binance  +0.0001 BTC, 2 h ago USD 0.0001 × 50,000 = 5
    //   ETH/USDT bybit    +1.5    3 days ago   USD 1.5
    //   XRP/EUR  binance  +2 EUR  5 h ago      no EUR/USDT on the hub → USD n/d
    //   SOL/USDC binance  +0.25   23 h 59 m ago USD 0.25 (inside the window)
    aliceIds = await addTrades(alice, aliceBot, [
      { pnl: '0.8', sell: new Date(now - 1 * HOUR) },
      { pnl: '-0.3', sell: new Date(now - 30 * HOUR) },
      { symbol: 'ETH/BTC', pnl: '0.0001', sell: new Date(now - 2 * HOUR) },
      { symbol: 'ETH/USDT', exchange: 'bybit', pnl: '1.5', sell: new Date(now - 72 * HOUR) },
      { symbol: 'XRP/EUR', pnl: '2', sell: new Date(now - 5 * HOUR) },
      { symbol: 'SOL/USDC', pnl: '0.25', sell: new Date(now - 23 * HOUR - 59 * 60_000) },
    ]);
    bobIds = await addTrades(bob, bobBot, [
      { pnl: '9', sell: new Date(now - HOUR) },
      { pnl: '-4', sell: new Date(now - 2 * HOUR) },
    ]);
  });
  afterAll(async () => {
    await t?.close();
    await database?.close();
    await drop?.();
  });

  it.skipIf(pg && !PG_URL)(
    'lists only the user’s rows, newest sale first, with totals and pages',
    async () => {
      const r = await list(alice);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ success: true, page: 1, pages: 1, per_page: 12, total: 6 });
      // 0.8 − 0.3 + 0.0001 + 1.5 + 2 + 0.25 = 4.2501 (quotes not converted)
      expect(r.body.total_pnl).toBeCloseTo(4.2501, 10);
      expect(r.body.aggregates).toBeUndefined();
      const rows = r.body.history as Json[];
      expect(rows.map((x) => x.symbol)).toEqual([
        'BTC/USDT',
        'ETH/BTC',
        'XRP/EUR',
        'SOL/USDC',
        'BTC/USDT',
        'ETH/USDT',
      ]);
      expect(Object.keys(rows[0]!).sort()).toEqual(
        [
          'id',
          'bot_id',
          'symbol',
          'exchange',
          'qty',
          'buy_price',
          'sell_price',
          'buy_time',
          'sell_time',
          'pnl_net',
        ].sort(),
      );
      expect(rows[0]).toMatchObject({
        id: aliceIds[0],
        bot_id: aliceBot,
        exchange: 'binance',
        qty: 0.001,
        buy_price: 100,
        sell_price: 101,
        pnl_net: 0.8,
        sell_time: new Date(now - HOUR).toISOString(),
        buy_time: new Date(now - 2 * HOUR).toISOString(),
      });
      const b = await list(bob);
      expect(b.body.total).toBe(2);
      expect(b.body.total_pnl).toBe(5);
      expect((b.body.history as Json[]).every((x) => x.bot_id === bobBot)).toBe(true);
    },
  );

  it.skipIf(pg && !PG_URL)(
    'computes the aggregates: per-symbol totals, 24 h window, USD through the hub',
    async () => {
      const r = await list(alice, '&aggregates=1');
      expect(r.status).toBe(200);
      const a = r.body.aggregates as Json;
      // Largest absolute PnL first: XRP/EUR 2, ETH/USDT 1.5, BTC/USDT 0.8 − 0.3 = 0.5, SOL/USDC 0.25, ETH/BTC 0.0001.
      expect(a.tokens).toEqual([
        { symbol: 'XRP/EUR', base: 'XRP', quote: 'EUR', pnl: 2, trades: 1, usd: null },
        { symbol: 'ETH/USDT', base: 'ETH', quote: 'USDT', pnl: 1.5, trades: 1, usd: 1.5 },
        { symbol: 'BTC/USDT', base: 'BTC', quote: 'USDT', pnl: 0.5, trades: 2, usd: 0.5 },
        { symbol: 'SOL/USDC', base: 'SOL', quote: 'USDC', pnl: 0.25, trades: 1, usd: 0.25 },
        { symbol: 'ETH/BTC', base: 'ETH', quote: 'BTC', pnl: 0.0001, trades: 1, usd: 5 },
      ]);
      // Total: 4.2501 unconverted; in USD 0.8 − 0.3 + 5 + 1.5 + 0.25 = 7.25 (the EUR row has no price).
      expect(a.total_pnl).toBeCloseTo(4.2501, 10);
      expect(a.total_pnl_usd).toBeCloseTo(7.25, 10);
      // 24 h by sell time: 0.8 + 0.0001 + 2 + 0.25 = 3.0501; in USD 0.8 + 5 + 0.25 = 6.05.
      expect(a.pnl_24h).toBeCloseTo(3.0501, 10);
      expect(a.pnl_24h_usd).toBeCloseTo(6.05, 10);
      expect(Date.parse(a.window_start)).toBeGreaterThan(now - 24 * HOUR - 60_000);
      expect(a.unpriced).toEqual(['EUR']);
      const prices = Object.fromEntries((a.prices as Json[]).map((p) => [`${p.exchange}:${p.quote}`, p.usd]));
      expect(prices).toEqual({
        'binance:USDT': 1,
        'binance:USDC': 1,
        'binance:BTC': 50_000,
        'binance:EUR': null,
        'bybit:USDT': 1,
      });
      // The daily series ends at the totals and adds up day by day.
      const daily = a.daily as Json[];
      expect(daily.length).toBeGreaterThanOrEqual(3);
      expect(daily.at(-1)!.cumulative).toBeCloseTo(4.2501, 10);
      expect(daily.at(-1)!.cumulative_usd).toBeCloseTo(7.25, 10);
      let running = 0;
      for (const d of daily) {
        running += d.pnl;
        expect(d.cumulative).toBeCloseTo(running, 10);
        expect(d.day).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      }
      expect([...daily].map((d) => d.day).sort()).toEqual(daily.map((d) => d.day));
      // The page rows come with the aggregates in the same call.
      expect(r.body.history).toHaveLength(6);
    },
  );

  it.skipIf(pg && !PG_URL)('builds the daily series by UTC day of the sale', async () => {
    const carol = await createTestUser(t);
    const bot = await newBot(carol);
    await addTrades(carol, bot, [
      { pnl: '1', sell: new Date('2024-01-01T00:00:00Z') },
      { pnl: '2', sell: new Date('2024-01-01T23:59:59Z') },
      { pnl: '-0.5', sell: new Date('2024-01-03T00:00:00Z') },
      { symbol: 'ETH/BTC', pnl: '0.001', sell: new Date('2024-01-03T12:00:00Z') },
    ]);
    const a = (await list(carol, '&aggregates=true')).body.aggregates as Json;
    // 2024-01-01: 1 + 2 = 3; 2024-01-03: −0.5 + 0.001 = −0.499 (USD: −0.5 + 0.001 × 50,000 = 49.5).
    expect(a.daily).toEqual([
      { day: '2024-01-01', pnl: 3, pnl_usd: 3, cumulative: 3, cumulative_usd: 3 },
      { day: '2024-01-03', pnl: -0.499, pnl_usd: 49.5, cumulative: 2.501, cumulative_usd: 52.5 },
    ]);
    expect(a.pnl_24h).toBe(0);
    expect(a.pnl_24h_usd).toBe(0);
  });

  it.skipIf(pg && !PG_URL)(
    'pages newest first from either end of the index, and clamps a page past the end',
    async () => {
      const dave = await createTestUser(t);
      const bot = await newBot(dave);
      // 30 sales a minute apart; the two newest share their sell time (the id breaks the tie).
      const rows = Array.from({ length: 30 }, (_, i) => ({
        pnl: String(i + 1),
        sell: new Date(now - (i === 0 ? 1 : i) * 60_000),
      }));
      const ids = await addTrades(dave, bot, rows);
      // Newest first: ids[1] and ids[0] share a time, the larger id first; then ids[2], ids[3] …
      const expected = [ids[1]!, ids[0]!, ...ids.slice(2)];
      const seen: number[] = [];
      for (const page of [1, 2, 3]) {
        const r = await list(dave, `&page=${page}&per_page=12`);
        expect(r.body).toMatchObject({ page, pages: 3, total: 30 });
        seen.push(...(r.body.history as Json[]).map((x) => x.id));
      }
      expect(seen).toEqual(expected);
      const last = await list(dave, '&page=99&per_page=12');
      expect(last.body).toMatchObject({ page: 3, pages: 3 });
      expect((last.body.history as Json[]).map((x) => x.id)).toEqual(expected.slice(24));
      // 1 + 2 + … + 30 = 465
      expect(last.body.total_pnl).toBe(465);
      const big = await list(dave, '&per_page=600');
      expect(big.body).toMatchObject({ pages: 1, per_page: 600 });
      expect((big.body.history as Json[]).map((x) => x.id)).toEqual(expected);
      const odd = await list(dave, '&page=4&per_page=7');
      expect((odd.body.history as Json[]).map((x) => x.id)).toEqual(expected.slice(21, 28));
      // A user with no history: one empty page.
      const empty = await list(await createTestUser(t), '&aggregates=1');
      expect(empty.body).toMatchObject({ history: [], page: 1, pages: 1, total: 0, total_pnl: 0 });
      expect(empty.body.aggregates).toMatchObject({ tokens: [], daily: [], total_pnl_usd: 0, unpriced: [] });
    },
  );

  it.skipIf(pg && !PG_URL)('refuses bad input with messages naming the field', async () => {
    const cases: [string, string][] = [
      ['&per_page=0', 'Invalid request: per_page: must be at least 1'],
      ['&per_page=601', 'Invalid request: per_page: must be at most 600'],
      ['&page=0', 'Invalid request: page: must be at least 1'],
      ['&page=abc', 'Invalid request: page: must be a whole number'],
      ['&page=1.5', 'Invalid request: page: must be a whole number'],
      ['&aggregates=yes', 'Invalid request: aggregates: must be 1, 0, true or false'],
      ['&per_page=1e400', 'Invalid request: per_page: must be a whole number'],
      ['&page=1&page=2', 'Invalid request: page: must be a whole number'],
    ];
    for (const [query, message] of cases) {
      const r = await list(alice, query);
      expect(r.status, query).toBe(400);
      expect(r.body).toMatchObject({ success: false, error: message });
    }
    // A control character is refused by the platform's input rule before the schema (docs/limits.md).
    expect((await call(alice, 'DELETE', `/api/dca/history/%00?user_id=${alice.email}`)).status).toBe(400);
    // A path segment over the router's limit (100 characters) is 414 before any route runs.
    expect((await call(alice, 'DELETE', `/api/dca/history/${'9'.repeat(500)}`)).status).toBe(414);
    for (const id of ['abc', '0', '-1', '1.5', '12345678901234567', '1%20', 'x'.repeat(90)]) {
      const r = await call(alice, 'DELETE', `/api/dca/history/${id}?user_id=${alice.email}`);
      expect(r.status, id).toBe(400);
      expect(r.body.error).toBe('Invalid request: id: must be a history record id (a positive whole number)');
    }
    expect((await call(alice, 'GET', `/api/dca/all_history?user_id=${bob.email}`)).status).toBe(403);
    expect((await call(alice, 'DELETE', `/api/dca/history/delete_all?user_id=${bob.email}`)).status).toBe(
      403,
    );
    expect((await call(null, 'GET', '/api/dca/all_history')).status).toBe(401);
    expect((await call(null, 'DELETE', `/api/dca/history/${aliceIds[0]}`)).status).toBe(401);
    expect((await list(alice)).body.total).toBe(6);
  });

  it.skipIf(pg && !PG_URL)(
    'deletes one row once; another user’s or an unknown id is 404 and changes nothing',
    async () => {
      const del = (u: User, id: number | string) =>
        call(u, 'DELETE', `/api/dca/history/${id}?user_id=${encodeURIComponent(u.email)}`);
      // Bob cannot delete alice's row; the answer is the same as for an unknown id.
      const foreign = await del(bob, aliceIds[0]!);
      const unknown = await del(bob, 999_999_999);
      expect(foreign).toMatchObject({
        status: 404,
        body: { success: false, error: HISTORY_MESSAGES.notFound },
      });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toBe(foreign.body.error);
      expect((await list(alice)).body.total).toBe(6);

      // Alice deletes her newest row (BTC/USDT +0.8): gone from the list, the totals and the aggregates.
      expect(await del(alice, aliceIds[0]!)).toMatchObject({ status: 200, body: { success: true } });
      const again = await del(alice, aliceIds[0]!);
      expect(again).toMatchObject({
        status: 404,
        body: { success: false, error: HISTORY_MESSAGES.notFound },
      });
      const r = await list(alice, '&aggregates=1');
      expect(r.body.total).toBe(5);
      expect((r.body.history as Json[]).map((x) => x.id)).not.toContain(aliceIds[0]);
      // 4.2501 − 0.8 = 3.4501; USD 7.25 − 0.8 = 6.45; 24 h 3.0501 − 0.8 = 2.2501 (USD 6.05 − 0.8 = 5.25).
      expect(r.body.total_pnl).toBeCloseTo(3.4501, 10);
      const a = r.body.aggregates as Json;
      expect(a.total_pnl_usd).toBeCloseTo(6.45, 10);
      expect(a.pnl_24h).toBeCloseTo(2.2501, 10);
      expect(a.pnl_24h_usd).toBeCloseTo(5.25, 10);
      expect((a.tokens as Json[]).find((x) => x.symbol === 'BTC/USDT')).toMatchObject({
        pnl: -0.3,
        trades: 1,
      });
      // The row is kept (soft delete), with its time of deletion.
      const kept = await t.ctx.database.sql.query(`SELECT deleted_at FROM bot_trades WHERE id = $1`, [
        aliceIds[0],
      ]);
      expect(kept[0]!.deleted_at).not.toBeNull();
      await rollupMatches();
    },
  );

  it.skipIf(pg && !PG_URL)('hides deleted rows from the per-bot history and its total', async () => {
    const r = await call(alice, 'GET', `/api/dca/history?bot_id=${aliceBot}&page=1&per_page=25`);
    expect(r.status).toBe(200);
    const ids = (r.body.historial as Json[]).map((x) => x.id);
    expect(ids).toHaveLength(5);
    expect(ids).not.toContain(aliceIds[0]);
    expect(r.body.total).toBe(5);
    expect(r.body.total_pnl).toBeCloseTo(3.4501, 10);
  });

  it.skipIf(pg && !PG_URL)('deletes everything of the user (and only that) with delete_all', async () => {
    const r = await call(alice, 'DELETE', `/api/dca/history/delete_all?user_id=${alice.email}`);
    expect(r).toMatchObject({ status: 200, body: { success: true, deleted: 5 } });
    const after = await list(alice, '&aggregates=1');
    expect(after.body).toMatchObject({ history: [], total: 0, total_pnl: 0, pages: 1 });
    expect(after.body.aggregates).toMatchObject({ tokens: [], daily: [], pnl_24h: 0, total_pnl_usd: 0 });
    expect((await call(alice, 'DELETE', `/api/dca/history/delete_all`)).body).toEqual({
      success: true,
      deleted: 0,
    });
    // Bob's rows are untouched.
    const b = await list(bob);
    expect(b.body.total).toBe(2);
    expect((b.body.history as Json[]).map((x) => x.id).sort()).toEqual([...bobIds].sort());
    const per = await call(alice, 'GET', `/api/dca/history?bot_id=${aliceBot}`);
    expect(per.body).toMatchObject({ historial: [], total: 0, total_pnl: 0 });
    await rollupMatches();
  });

  it.skipIf(pg && !PG_URL)(
    'keeps the rollups exact through inserts, updates and cascading deletes',
    async () => {
      const erin = await createTestUser(t);
      const bot = await newBot(erin, 'bybit', 'ETH/USDT');
      const ids = await addTrades(erin, bot, [
        { symbol: 'ETH/USDT', exchange: 'bybit', pnl: '1.25', sell: new Date(now - HOUR) },
        { symbol: 'ETH/USDT', exchange: 'bybit', pnl: '-0.5', sell: new Date(now - 48 * HOUR) },
      ]);
      await rollupMatches();
      // A replayed write of the same lot is ignored (the runner's onConflictDoNothing): no double count.
      await t.ctx.database.sql.query(
        `INSERT INTO bot_trades (bot_id, user_id, exchange, symbol, lot_key, lot_id, buy_time, sell_time, qty, buy_price, sell_price, pnl_net)
       SELECT bot_id, user_id, exchange, symbol, lot_key, lot_id, buy_time, sell_time, qty, buy_price, sell_price, pnl_net
       FROM bot_trades WHERE id = $1 ON CONFLICT DO NOTHING`,
        [ids[0]],
      );
      await t.ctx.database.sql.query(`UPDATE bot_trades SET pnl_net = 2 WHERE id = $1`, [ids[1]]);
      await t.ctx.database.sql.query(`UPDATE bot_trades SET deleted_at = now() WHERE id = $1`, [ids[0]]);
      await t.ctx.database.sql.query(`UPDATE bot_trades SET deleted_at = NULL WHERE id = $1`, [ids[0]]);
      await rollupMatches();
      expect((await list(erin)).body.total_pnl).toBe(3.25);
      // Deleting the bot cascades into its trades, and the triggers take them out of the rollup.
      await t.ctx.database.sql.query(`DELETE FROM bots WHERE id = $1`, [bot]);
      await rollupMatches();
      expect((await list(erin)).body).toMatchObject({ total: 0, total_pnl: 0 });
      const left = await t.ctx.database.sql.query(
        `SELECT (SELECT count(*) FROM bot_trade_symbols WHERE user_id = $1)::int
            + (SELECT count(*) FROM bot_trade_daily WHERE user_id = $1)::int AS n`,
        [erin.id],
      );
      expect(Number(left[0]!.n)).toBe(0);
    },
  );
});
