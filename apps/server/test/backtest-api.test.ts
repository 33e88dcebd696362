/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- JSON answers read loosely */
import {
  BACKTEST_MESSAGES,
  CLASSIC_DCA_MESSAGES,
  DCA_MESSAGES,
  DERIVATIVES_MESSAGES,
  GRID_MESSAGES,
} from '@bytx/contract';
import { CcxtVenue } from '@bytx/venues/live';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/client';
import { backtestServices } from '../src/modules/backtest/routes';
import { runners } from '../src/modules/bots/routes';
import { MarketHubService } from '../src/modules/market/market.service';
import { until } from './bots.helpers';
import {
  apiCaller,
  binanceExchangeInfo,
  createTestUser,
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
type Row = [number, number, number, number, number, number?];

const EX = 'binance';
const SYM = 'BTC/USDT';
const MIN = 60_000;
const HOUR = 3_600_000;

/** The Grid Bot DCA form as /bot-dca sends it: 20 USDT a buy, TP 1 %, separation 1 %, 3 OS, spot. */
const DCA_FORM = {
  symbol: SYM,
  amount: '20',
  tp: '1',
  separacion: '1',
  os: '3',
  exchange: EX,
  apartado: 'Spot',
};
/** The classic DCA form (/dashboard) without the trend rule and the smart buys (they need 70 candles). */
const CLASSIC_FORM = {
  symbol: SYM,
  amount: '20',
  tp: '1',
  separacion: '1',
  os: '3',
  exchange: EX,
  apartado: 'Spot',
  trend_filter: false,
  smart_averaging: false,
};
/** The grid form (/grid-bot): levels 98, 98.98, 99.97, 100.97, 101.98 (1 % steps), 10 USDT a level. */
const GRID_FORM = {
  exchange: EX,
  pair: SYM,
  marketType: 'spot',
  lowPrice: '98',
  highPrice: '102',
  stepPercentage: '1',
  amountPerLevel: '10',
  profitCurrency: 'quote',
  position: 'long',
};

/**
 * The hand-built series (prices in USDT; the market: tick 0.01, amount step 0.00001, fees 0.1 % maker
 * and taker). Paths: a falling candle is walked open → high → low → close, a rising one open → low →
 * high → close.
 */
const SERIES: Row[] = [
  [0, 100, 100, 100, 100],
  [MIN, 100, 100, 98.9, 99],
  [2 * MIN, 99, 101.2, 99, 101],
  [3 * MIN, 101, 101.5, 100.5, 101],
];

const near = (a: number, b: number) => expect(a).toBeCloseTo(b, 7);

describe('backtests on the simulated market (issue 19)', () => {
  let t: TestApp;
  let alice: User;
  let bob: User;
  let carol: User;
  const call = apiCaller(() => t.app);
  const service = () => backtestServices.get(t.ctx)!;

  const setPrice = async (symbol: string, price: number) => {
    const r = await call(null, 'POST', '/api/dev/market/price', { exchange: EX, symbol, price });
    expect(r.status).toBe(200);
  };
  const post = (u: User, body: Json) => call(u, 'POST', '/api/backtest', body);
  /** POSTs a backtest (202) and waits until it has ended; its GET answer. */
  const run = async (u: User, body: Json): Promise<Json> => {
    const r = await post(u, body);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body).toEqual({ success: true, id: expect.any(String) });
    return until(async () => {
      const g = await call(u, 'GET', `/api/backtest/${r.body.id}`);
      return ['done', 'failed', 'cancelled'].includes(g.body.status) ? g.body : null;
    }, 60_000);
  };
  const rows = async (sql: string) => t.ctx.database.sql.query(sql);

  beforeAll(async () => {
    t = await makeTestApp({ BOT_RUNNER: '1', SIMULATOR_CONTROL: '1' });
    alice = await createTestUser(t);
    bob = await createTestUser(t);
    carol = await createTestUser(t);
    // This file sends every bad form as its own call, far more than a person's 30 a minute; the
    // per-user limit has its own test (backtest-uploads.test.ts).
    service().admission.limit = { max: 10_000, windowMs: 60_000 };
    // A paper account for the start calls the backtests are compared with (backtests need none).
    const c = await call(alice, 'POST', '/api/conectar_exchange', { exchange: EX, mode: 'paper' });
    expect(c.status).toBe(200);
    await setPrice(SYM, 100);
  });
  afterAll(async () => t?.close());

  it('runs the Grid Bot DCA to done: the entry, a ladder fill and two take profits', async () => {
    const bt = await run(alice, { kind: 'grid-dca', params: DCA_FORM, candles: SERIES, slippage_pct: 0 });
    expect(bt).toMatchObject({
      status: 'done',
      progress: 1,
      kind: 'grid-dca',
      exchange: EX,
      symbol: SYM,
      source: 'inline',
      from: 0,
      to: 4 * MIN,
      params: DCA_FORM,
      // Default budget: 5 × 20 × (3 + 1) + 1 % for fees.
      budget: 404,
    });
    // Candle 0: the entry, a market buy of 20 USDT at 100 → 0.2 BTC (fee 0.02); the ladder rests at
    // 99, 98.01, 97.02. Candle 1 (falling: 100 → 100 → 98.9 → 99): the buy at 99 fills, 20 / 99 →
    // 0.20202 BTC (fee 0.01999998); its take profit rests at 99 × 1.01 = 99.99. Candle 2 (rising:
    // 99 → 99 → 101.2 → 101): both take profits fill at 101.2's point, 99.99 and 100 × 1.01 = 101.
    //   lot 2: 0.20202 × (99.99 − 99) − 0.01999998 − 0.02019998 (0.1 % of 20.1999798) = 0.15979984
    //   lot 1: 0.2 × (101 − 100) − 0.02 − 0.0202 = 0.1598
    const trades = [...bt.trades].sort((a: Json, b: Json) => a.buyTime - b.buyTime);
    expect(trades).toHaveLength(2);
    expect(trades[0]).toMatchObject({ buyTime: 0, qty: 0.2, buyPrice: 100, sellPrice: 101 });
    near(trades[0].pnlNet, 0.1598);
    near(trades[0].fees, 0.0402);
    expect(trades[1]).toMatchObject({ qty: 0.20202, buyPrice: 99, sellPrice: 99.99 });
    near(trades[1].pnlNet, 0.15979984);
    expect(trades[1].buyTime).toBeGreaterThanOrEqual(MIN);
    expect(trades[1].sellTime).toBeGreaterThanOrEqual(2 * MIN);
    expect((bt.fills as Json[]).map((f) => [f.side, f.price, f.role])).toEqual([
      ['buy', 100, 'entry'],
      ['buy', 99, 'ladder_buy'],
      ['sell', 99.99, 'take_profit'],
      ['sell', 101, 'take_profit'],
    ]);
    expect(bt.summary).toMatchObject({ closedTrades: 2, candles: 4, fills: 4, cycles: null });
    near(bt.summary.realizedPnl, 0.31959984);
    near(bt.summary.netPnl, 0.31959984);
    near(bt.summary.feesPaid, 0.08039996);
    expect(bt.summary.openPosition).toEqual({ qty: 0, avgEntry: null, value: 0 });
    near(bt.summary.buyAndHoldPct, 1);
    expect(bt.equity.length).toBeGreaterThan(0);
    expect(bt.candles).toEqual(SERIES.map((c) => c.slice(0, 5)));
    expect((bt.assumptions as string[]).join(' ')).toMatch(/open → low → high → close/);
    expect(bt.truncated).toEqual({ trades: false, fills: false });
  });

  it("accepts a kind's id from before issue 39 (grid_dca), read as its id", async () => {
    const bt = await run(alice, { kind: 'grid_dca', params: DCA_FORM, candles: SERIES, slippage_pct: 0 });
    expect(bt).toMatchObject({ status: 'done', kind: 'grid-dca' });
    expect(bt.summary).toMatchObject({ closedTrades: 2, candles: 4, fills: 4 });
  });

  it('runs the classic DCA to done: the base order, a safety fill and the take profit', async () => {
    const bt = await run(alice, {
      kind: 'classic-dca',
      params: CLASSIC_FORM,
      candles: SERIES,
      slippage_pct: 0,
    });
    expect(bt.status, bt.error).toBe('done');
    // Base: market 20 USDT at 100 → 0.2 (fee 0.02); safety 1 at 99 → 0.20202 (fee 0.01999998). The
    // take profit sells the whole position at its average entry with fees × 1.01:
    //   (20 + 0.02 + 19.99998 + 0.01999998) / 0.40202 = 99.64673 → × 1.01 = 100.6432 → 100.6
    //   (the engine's TP price, rounded to the tick) filled on candle 2's rise.
    // pnl_net = 0.40202 × 100.6 − 0.04044321 (fee) − 40.05997998 (cost with fees) = 0.36278881
    expect(bt.trades).toHaveLength(1);
    expect(bt.trades[0]).toMatchObject({ qty: 0.40202, sellPrice: 100.6, buyTime: 0 });
    near(bt.trades[0].pnlNet, 0.36278881);
    expect((bt.fills as Json[]).map((f) => [f.side, f.price, f.qty, f.role])).toEqual([
      ['buy', 100, 0.2, 'base'],
      ['buy', 99, 0.20202, 'safety'],
      ['sell', 100.6, 0.40202, 'take_profit'],
    ]);
    expect(bt.summary).toMatchObject({ closedTrades: 1, cycles: 1 });
  });

  it('runs the grid to done: a buy level and its sell, and the base bought at start sold a level up', async () => {
    const series: Row[] = SERIES.slice(0, 3);
    const bt = await run(alice, { kind: 'grid', params: GRID_FORM, candles: series, slippage_pct: 0 });
    expect(bt.status, bt.error).toBe('done');
    // At 100: the base for the sells at 100.97 and 101.98 bought at market (10/99.97 + 10/100.97 =
    // 0.19906 BTC), buys rest at 98.98 and 98. Candle 1 falls to 98.9: the buy at 98.98 fills (0.10103);
    // its sell rests a level up at 99.97. Candle 2 rises to 101.2: the sells at 99.97 and 100.97 fill.
    //   98.98 → 99.97: 0.10103 × 0.99 − 0.00999995 − 0.01009997 = 0.07991978
    //   100 → 100.97:  0.10003 × 0.97 − 0.010003 − 0.01010003 = 0.07692607
    const trades = [...bt.trades].sort((a: Json, b: Json) => a.buyPrice - b.buyPrice);
    expect(trades.map((x: Json) => [x.buyPrice, x.sellPrice, x.qty])).toEqual([
      [98.98, 99.97, 0.10103],
      [100, 100.97, 0.10003],
    ]);
    near(trades[0].pnlNet, 0.07991978);
    near(trades[1].pnlNet, 0.07692607);
    expect((bt.fills as Json[]).map((f) => [f.side, f.price, f.role])).toEqual([
      ['buy', 100, 'grid_init'],
      ['buy', 98.98, 'grid_buy'],
      ['sell', 99.97, 'grid_sell'],
      ['sell', 100.97, 'grid_sell'],
    ]);
    // Budget by default: 4 slots × 10 × (1 + 0.1 %) + 1 %.
    expect(bt.budget).toBe(40.45);
  });

  it('refuses bad params with the start form’s own messages, before anything is stored', async () => {
    const before = await service()['repo'].count();
    const dcaCases: [Json, string | RegExp][] = [
      [{ tp: '0.3' }, DCA_MESSAGES.minPct],
      [{ separacion: '0,4' }, DCA_MESSAGES.minPct],
      [{ exchange: '' }, DCA_MESSAGES.noExchange],
      [{ exchange: 'nope' }, DCA_MESSAGES.notConnected],
      [{ symbol: '' }, DCA_MESSAGES.noPair],
      [{ symbol: 'NOPE/USDT' }, '⚠️ This pair is not available on Binance.'],
      [{ amount: 'veinte' }, DCA_MESSAGES.badAmount],
      [{ amount: '1' }, /^Monto insuficiente\. El mínimo para BTC\/USDT es ≈ 5 USDT/],
      [{ os: '2.5' }, /# OS must be a whole number/],
      [{ direction: 'SHORT' }, DERIVATIVES_MESSAGES.shortOnSpot],
    ];
    for (const [over, message] of dcaCases) {
      const form = { ...DCA_FORM, ...over };
      const bt = await post(alice, { kind: 'grid-dca', params: form, candles: SERIES });
      const start = await call(alice, 'POST', '/api/start_bot_dca', form);
      expect(bt.status, JSON.stringify(over)).toBe(400);
      expect(start.status, JSON.stringify(over)).toBe(400);
      expect(bt.body.error).toBe(start.body.error);
      if (typeof message === 'string') expect(bt.body.error).toBe(message);
      else expect(bt.body.error).toMatch(message);
    }
    const classicCases: [Json, string][] = [
      [{ tp: '0.1' }, DCA_MESSAGES.minPct],
      [{ tp_vnc: '7' }, CLASSIC_DCA_MESSAGES.badTpVnc],
      [{ direction: 'SHORT', apartado: 'Perpetual' }, DERIVATIVES_MESSAGES.classicLongOnly],
    ];
    for (const [over, message] of classicCases) {
      const form = { ...CLASSIC_FORM, ...over };
      const bt = await post(alice, { kind: 'classic-dca', params: form, candles: SERIES });
      const start = await call(alice, 'POST', '/api/start_bot', form);
      expect([bt.status, start.status], JSON.stringify(over)).toEqual([400, 400]);
      expect(bt.body.error).toBe(message);
      expect(start.body.error).toBe(message);
    }
    const gridCases: [Json, string | RegExp][] = [
      [{ exchange: '' }, GRID_MESSAGES.noExchange],
      [{ pair: '' }, GRID_MESSAGES.noPair],
      [{ highPrice: '' }, GRID_MESSAGES.incomplete],
      [{ lowPrice: '110' }, GRID_MESSAGES.lowNotBelowHigh],
      [{ stepPercentage: '0' }, GRID_MESSAGES.stepNotPositive],
      [{ profitCurrency: 'eur' }, GRID_MESSAGES.badProfitCurrency],
      [{ position: 'short' }, /^A short grid needs a derivatives market/],
      [{ amountPerLevel: '1' }, /^Amount per level must be at least [\d.]+ USDT/],
      [{ stepPercentage: '0.01' }, /levels between 98 and 102 at 0.01% steps; at most 200/],
    ];
    for (const [over, message] of gridCases) {
      const form = { ...GRID_FORM, ...over };
      const bt = await post(alice, { kind: 'grid', params: form, candles: SERIES });
      const start = await call(alice, 'POST', '/api/gridbot/start', { ...form, user_id: alice.email });
      expect([bt.status, start.status], JSON.stringify(over)).toEqual([400, 400]);
      expect(bt.body.error).toBe(start.body.error);
      if (typeof message === 'string') expect(bt.body.error).toBe(message);
      else expect(bt.body.error).toMatch(message);
    }
    // Spot only: a derivatives form is refused with a clear message (its start would trade it).
    for (const [kind, params] of [
      ['grid-dca', { ...DCA_FORM, apartado: 'Perpetual' }],
      ['grid', { ...GRID_FORM, marketType: 'perpetual' }],
    ] as const) {
      const r = await post(alice, { kind, params, candles: SERIES });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe(BACKTEST_MESSAGES.derivativesNotSupported);
    }
    // The call's own checks.
    const own: [Json, number, string | RegExp][] = [
      [{ kind: 'martingale', params: DCA_FORM, candles: SERIES }, 400, /kind must be/],
      [
        { kind: 'grid-dca', params: DCA_FORM, candles: [[0, '100', 100, 100, 100], SERIES[1]] },
        400,
        /candles\.0: each candle must be \[ts_ms, open, high, low, close, volume\?\]/,
      ],
      [
        { kind: 'grid-dca', params: { ...DCA_FORM, apartado: 'Nope' }, candles: SERIES },
        400,
        /params\.apartado/,
      ],
      [
        { kind: 'grid-dca', params: DCA_FORM, candles: SERIES, period: '7d' },
        400,
        BACKTEST_MESSAGES.oneSource,
      ],
      [{ kind: 'grid-dca', params: DCA_FORM, candles: [SERIES[0]] }, 400, BACKTEST_MESSAGES.tooFewCandles],
      [
        { kind: 'grid-dca', params: DCA_FORM, candles: [SERIES[0], [MIN, 100, 99, 98, 100]] },
        400,
        'Candle 1 is not valid: it must be [ts_ms, open, high, low, close, volume?] with prices > 0, low ≤ open, close ≤ high, and times ascending.',
      ],
      [
        { kind: 'grid-dca', params: DCA_FORM, candles: [SERIES[1], SERIES[0]] },
        400,
        /^Candle 1 is not valid/,
      ],
      [
        { kind: 'grid-dca', params: DCA_FORM, candles: SERIES, budget: '-5' },
        400,
        BACKTEST_MESSAGES.badBudget,
      ],
      [
        { kind: 'grid-dca', params: DCA_FORM, from: 'yesterday' },
        400,
        'from must be a time in ms or an ISO date.',
      ],
      [
        {
          kind: 'grid-dca',
          params: DCA_FORM,
          from: Date.now() - 3 * 86_400_000,
          to: Date.now() - 4 * 86_400_000,
        },
        400,
        BACKTEST_MESSAGES.badRange,
      ],
      [
        { kind: 'grid-dca', params: DCA_FORM, interval: '1m', from: Date.now() - 800 * 86_400_000 },
        400,
        /^The period has \d+ 1m candles; at most 600000 are allowed/,
      ],
    ];
    for (const [body, status, message] of own) {
      const r = await post(alice, body);
      expect(r.status, JSON.stringify(body).slice(0, 200)).toBe(status);
      if (typeof message === 'string') expect(r.body.error).toBe(message);
      else expect(r.body.error).toMatch(message);
    }
    expect(await service()['repo'].count()).toBe(before);
    expect((await call(null, 'POST', '/api/backtest', { kind: 'grid-dca', params: DCA_FORM })).status).toBe(
      401,
    );
    expect((await post(alice, { kind: 'grid-dca', params: DCA_FORM, user_id: bob.email })).status).toBe(403);
    // Nothing was started by the comparisons either.
    expect(await rows(`SELECT id FROM bots`)).toEqual([]);
  });

  it('imports candles from a CSV (header or not, seconds or ISO times) and names the line of a bad one', async () => {
    const csv = [
      'time,open,high,low,close,volume',
      ...SERIES.map(([ts, o, h, l, c]) => `${ts / 1000},${o},${h},${l},${c},12.5`),
    ].join('\n');
    const a = await run(bob, { kind: 'grid-dca', params: DCA_FORM, csv, slippage_pct: 0 });
    expect(a).toMatchObject({ status: 'done', source: 'csv', from: 0, to: 4 * MIN });
    expect(a.summary.closedTrades).toBe(2);
    near(a.summary.realizedPnl, 0.31959984);
    // No header, ISO times, semicolons, a blank line and CRLF line ends.
    const iso = SERIES.map(([ts, o, h, l, c]) => `${new Date(ts).toISOString()};${o};${h};${l};${c}`);
    const b = await run(bob, {
      kind: 'grid-dca',
      params: DCA_FORM,
      csv: `${iso.slice(0, 2).join('\r\n')}\r\n\r\n${iso.slice(2).join('\r\n')}\r\n`,
      slippage_pct: 0,
    });
    expect(b.status).toBe('done');
    expect(b.trades).toEqual(a.trades);

    const bad: [string, string | RegExp][] = [
      [
        'ts,open,high,low,close\n0,100,100,100,100\n60000,100,100,98.9\n',
        /^The CSV file is malformed at line 3: /,
      ],
      [
        'ts,open,high,low,close\n0,100,100,100,100\n60000,"100,100,98.9,99\n',
        /^The CSV file is malformed at line \d+: .*[Qq]uote/,
      ],
      [
        'ts,open,high,low,close\n0,100,100,100,100\n60000,100,100,98.9,99\n120000,abc,101.2,99,101\n',
        'The CSV file is malformed at line 4: open must be a number greater than 0',
      ],
      [
        'ts,open,high,low,close\n60000,100,100,98.9,99\n0,100,100,100,100\n',
        'The CSV file is malformed at line 3: the times must be ascending',
      ],
      ['name,price\nBTC,100\n', BACKTEST_MESSAGES.csvNoColumns],
      ['x'.repeat(8 * 1024 * 1024 + 1), BACKTEST_MESSAGES.csvTooLarge],
    ];
    for (const [text, message] of bad) {
      const r = await post(bob, { kind: 'grid-dca', params: DCA_FORM, csv: text });
      expect(r.status, text.slice(0, 80)).toBe(400);
      if (typeof message === 'string') expect(r.body.error).toBe(message);
      else expect(r.body.error).toMatch(message);
    }
  });

  it('cancels a running backtest, allows one running per user, and hides it from other users', async () => {
    // 30,000 candles zigzagging across the ladder: every candle is stepped (no quiet candle).
    const long: Row[] = [];
    for (let i = 0; i < 30_000; i++) {
      const up = i % 2 === 0;
      long.push([i * MIN, up ? 97 : 103, 103.5, 96.5, up ? 103 : 97]);
    }
    const first = await post(carol, { kind: 'grid-dca', params: DCA_FORM, candles: long });
    expect(first.status).toBe(202);
    const id = first.body.id as string;
    await until(
      async () => (await call(carol, 'GET', `/api/backtest/${id}`)).body.status === 'running',
      30_000,
    );
    // One running backtest per user.
    const second = await post(carol, { kind: 'grid-dca', params: DCA_FORM, candles: SERIES });
    expect(second.status).toBe(409);
    expect(second.body.error).toBe(BACKTEST_MESSAGES.alreadyRunning);
    // Another user's backtest does not exist for bob.
    expect((await call(bob, 'GET', `/api/backtest/${id}`)).status).toBe(404);
    expect((await call(bob, 'DELETE', `/api/backtest/${id}`)).status).toBe(404);
    expect(
      ((await call(bob, 'GET', '/api/backtest')).body.backtests as Json[]).map((b) => b.id),
    ).not.toContain(id);

    const del = await call(carol, 'DELETE', `/api/backtest/${id}`);
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({
      success: true,
      status: 'cancelled',
      message: BACKTEST_MESSAGES.cancelled,
    });
    await until(async () => service().runningCount === 0, 30_000);
    const after = await call(carol, 'GET', `/api/backtest/${id}`);
    expect(after.body.status).toBe('cancelled');
    expect(after.body.summary).toBeUndefined();
    // The slot is free again; a finished backtest is deleted by DELETE.
    const next = await run(carol, { kind: 'grid-dca', params: DCA_FORM, candles: SERIES });
    expect(next.status).toBe('done');
    const list = (await call(carol, 'GET', '/api/backtest')).body.backtests as Json[];
    expect(list.map((b) => [b.id, b.status])).toEqual([
      [next.id, 'done'],
      [id, 'cancelled'],
    ]);
    expect(list[0]!.net_pnl).toBeCloseTo(next.summary.netPnl, 8);
    expect((await call(carol, 'DELETE', `/api/backtest/${id}`)).body.status).toBe('deleted');
    expect((await call(carol, 'GET', `/api/backtest/${id}`)).status).toBe(404);
    expect((await call(carol, 'GET', '/api/backtest/not-a-uuid')).status).toBe(400);
  });

  it('backtests a period of the simulated market’s own history, generated once and cached', async () => {
    const body = { kind: 'grid-dca', params: DCA_FORM, period: '7d', interval: '1h' };
    await setPrice(SYM, 100_000);
    const a = await run(bob, { ...body, params: { ...DCA_FORM, amount: '20' } });
    expect(a.status, a.error).toBe('done');
    expect(a.source).toBe('exchange');
    expect(a.summary.candles).toBeGreaterThanOrEqual(167);
    expect(a.summary.candles).toBeLessThanOrEqual(168);
    expect(a.to - a.from).toBe(a.summary.candles * HOUR);
    const cached = Number(
      (
        await rows(
          `SELECT count(*)::int AS n FROM candle_cache WHERE exchange = 'sim:binance' AND "interval" = '1h'`,
        )
      )[0]!.n,
    );
    expect(cached).toBe(a.summary.candles);
    // The history ends at the current price (the newest candle closes within a few % of it).
    const last = a.candles[a.candles.length - 1];
    expect(Math.abs(last[4] / 100_000 - 1)).toBeLessThan(0.05);
    const b = await run(bob, body);
    expect(b.candles).toEqual(a.candles);
    expect(b.summary).toEqual(a.summary);
    // The classic DCA's trend rule is seeded with the candles before the period (72 more cached).
    const c = await run(bob, {
      ...body,
      kind: 'classic-dca',
      params: { ...CLASSIC_FORM, trend_filter: true },
    });
    expect(c.status, c.error).toBe('done');
    const withHistory = Number(
      (
        await rows(
          `SELECT count(*)::int AS n FROM candle_cache WHERE exchange = 'sim:binance' AND "interval" = '1h'`,
        )
      )[0]!.n,
    );
    expect(withHistory).toBe(cached + 72);
    await setPrice(SYM, 100);
  });

  it('gives the same fills as a live Grid Bot DCA on the paper market driven along the same path', async () => {
    // The paper market fills a market buy at the book's ask: price + 0.01 % (one tick at 100), so the
    // backtest uses that slippage.
    const bt = await run(alice, { kind: 'grid-dca', params: DCA_FORM, candles: SERIES, slippage_pct: 0.01 });
    expect(bt.status).toBe('done');
    // The same bot started on the paper account at the first open, then the path of every candle.
    await setPrice(SYM, SERIES[0]![1]);
    const started = await call(alice, 'POST', '/api/start_bot_dca', DCA_FORM);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const botId = started.body.bot.id as string;
    const handle = () => runners.get(t.ctx)!.handle(botId);
    const settle = async () => {
      await new Promise((r) => setTimeout(r, 150));
      await handle()?.idle();
    };
    await settle();
    for (const [, o, h, l, c] of SERIES.slice(1)) {
      const path = c >= o ? [o, l, h, c] : [o, h, l, c];
      for (const p of path) {
        await setPrice(SYM, p);
        await settle();
      }
    }
    const live = await until(async () => {
      const r = await call(alice, 'GET', `/api/dca/history?bot_id=${botId}&page=1&per_page=25`);
      return r.body.historial?.length >= bt.trades.length ? (r.body.historial as Json[]) : null;
    }, 15_000);
    const key = (x: { qty: number; buyPrice: number; sellPrice: number; pnlNet: number }) =>
      [x.buyPrice, x.sellPrice, x.qty, Number(x.pnlNet.toFixed(8))].join('|');
    const liveTrades = live
      .map((r) => key({ qty: r.qty, buyPrice: r.buy_price, sellPrice: r.sell_price, pnlNet: r.pnl_net }))
      .sort();
    const btTrades = (bt.trades as Json[]).map((x) => key(x as any)).sort();
    expect(liveTrades).toEqual(btTrades);
    // The entry: 20 USDT / 100 (the tick) = 0.2 BTC filled at 100.01; its take profit 100.01 × 1.01 ↑ 101.02.
    expect(btTrades).toContain('100.01|101.02|0.2|0.161794');
    await call(alice, 'POST', '/api/stop_bot_dca', { exchange: EX, symbol: SYM, mode: 'cancel_only' });
  });

  it('keeps results 24 h: after that they are gone (clock moved), and the sweep deletes them', async () => {
    const bt = await run(bob, { kind: 'grid-dca', params: DCA_FORM, candles: SERIES });
    expect(bt.status).toBe('done');
    const s = service();
    const realNow = s.now;
    try {
      s.now = () => Date.now() + 23 * HOUR;
      expect((await call(bob, 'GET', `/api/backtest/${bt.id}`)).status).toBe(200);
      s.now = () => Date.now() + 24 * HOUR + MIN;
      expect((await call(bob, 'GET', `/api/backtest/${bt.id}`)).status).toBe(404);
      expect((await call(bob, 'GET', '/api/backtest')).body.backtests).toEqual([]);
      const swept = await s.sweep();
      expect(swept.deleted).toBeGreaterThanOrEqual(1);
      expect(await rows(`SELECT id FROM backtests WHERE id = '${bt.id}'`)).toEqual([]);
    } finally {
      s.now = realNow;
    }
  });

  it('keeps the newest 20 backtests of a user (older finished ones are deleted)', async () => {
    const u = await createTestUser(t);
    for (let i = 0; i < 22; i++) {
      await t.ctx.database.sql.query(
        `INSERT INTO backtests (user_id, kind, exchange, symbol, interval, source, params, slippage_pct, budget, status, created_at)
         VALUES ($1, 'grid', 'binance', 'BTC/USDT', '1m', 'inline', '{}', 0.05, 100, 'done', now() - make_interval(mins => $2))`,
        [u.id, 30 - i],
      );
    }
    const bt = await run(u, { kind: 'grid-dca', params: DCA_FORM, candles: SERIES });
    expect(bt.status).toBe('done');
    const list = (await call(u, 'GET', '/api/backtest')).body.backtests as Json[];
    expect(list).toHaveLength(20);
    expect(list[0]!.id).toBe(bt.id);
    const [n] = await rows(`SELECT count(*)::int AS n FROM backtests WHERE user_id = '${u.id}'`);
    expect(Number(n!.n)).toBe(20);
  });
});

describe('a backtest running at a restart', () => {
  it('is marked failed ("interrupted by a restart, run it again")', async () => {
    const database: Database = await openTestDatabase();
    try {
      const a = await makeTestApp({}, { database });
      const u = await createTestUser(a);
      await database.sql.query(
        `INSERT INTO backtests (user_id, kind, exchange, symbol, interval, source, params, slippage_pct, budget, status, progress)
         VALUES ($1, 'grid-dca', 'binance', 'BTC/USDT', '1m', 'inline', '{}', 0.05, 100, 'running', 0.4)`,
        [u.id],
      );
      await a.close();
      const b = await makeTestApp({}, { database });
      try {
        const list = await apiCaller(() => b.app)(u, 'GET', '/api/backtest');
        expect(list.body.backtests).toHaveLength(1);
        expect(list.body.backtests[0]).toMatchObject({
          status: 'failed',
          error: BACKTEST_MESSAGES.interrupted,
        });
      } finally {
        await b.close();
      }
    } finally {
      await database.close();
    }
  });
});

/** Binance's REST API as recorded responses behind ccxt's fetch: markets, ticker and 1h klines. */
function fakeBinance(now: number) {
  const klineCalls: string[] = [];
  const json = (b: unknown) =>
    new Response(JSON.stringify(b), { status: 200, headers: { 'content-type': 'application/json' } });
  const price = (ts: number) => 100 + 5 * Math.sin(ts / (7 * HOUR));
  const fetchImplementation = async (url: string): Promise<Response> => {
    await Promise.resolve();
    const u = new URL(url);
    if (u.pathname === '/api/v3/exchangeInfo') return json(binanceExchangeInfo());
    if (u.pathname === '/api/v3/ticker/24hr') {
      return json({
        symbol: 'BTCUSDT',
        lastPrice: '100.00',
        bidPrice: '99.99',
        askPrice: '100.01',
        closeTime: now,
      });
    }
    if (u.pathname === '/api/v3/klines') {
      klineCalls.push(url);
      const iv = HOUR;
      const limit = Math.min(Number(u.searchParams.get('limit') ?? 500), 1000);
      let ts = Math.ceil(Number(u.searchParams.get('startTime') ?? 0) / iv) * iv;
      const out: unknown[] = [];
      // Closed candles and the forming one, as Binance answers.
      while (out.length < limit && ts <= now) {
        const o = price(ts);
        const c = price(ts + iv);
        out.push([
          ts,
          o.toFixed(2),
          (Math.max(o, c) + 0.3).toFixed(2),
          (Math.min(o, c) - 0.3).toFixed(2),
          c.toFixed(2),
          '12.5',
          ts + iv - 1,
          '0',
          1,
          '0',
          '0',
          '0',
        ]);
        ts += iv;
      }
      return json(out);
    }
    return json({ code: -1000, msg: `not recorded: ${u.pathname}` });
  };
  return { fetchImplementation, klineCalls };
}

describe('backtests on live candles (MARKET_DATA=live, ccxt fetch mocked)', () => {
  let t: TestApp;
  let alice: User;
  let bob: User;
  const call = apiCaller(() => t.app);
  const fake = fakeBinance(Date.now());

  beforeAll(async () => {
    t = await makeTestApp({ MARKET_DATA: 'live' });
    const hub = new MarketHubService({
      source: (exchange) => CcxtVenue.publicData(exchange, { fetchImplementation: fake.fetchImplementation }),
    });
    t.ctx.services.market = hub;
    alice = await createTestUser(t);
    bob = await createTestUser(t);
  });
  afterAll(async () => t?.close());

  const run = async (u: User, body: Json): Promise<Json> => {
    const r = await call(u, 'POST', '/api/backtest', body);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    return until(async () => {
      const g = await call(u, 'GET', `/api/backtest/${r.body.id}`);
      return ['done', 'failed', 'cancelled'].includes(g.body.status) ? g.body : null;
    }, 60_000);
  };

  it('fetches the range page by page through fetchOHLCV, caches it, and fetches it once for every user', async () => {
    const to = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
    const from = to - 90 * 24 * HOUR;
    const body = { kind: 'grid-dca', params: DCA_FORM, interval: '1h', from, to: new Date(to).toISOString() };
    const a = await run(alice, body);
    expect(a.status, a.error).toBe('done');
    expect(a).toMatchObject({ source: 'exchange', from, to, interval: '1h' });
    expect(a.summary.candles).toBe(2160);
    // 2,160 hours: pages of 1,000 candles (Binance's most), each from the last one received.
    expect(fake.klineCalls).toHaveLength(3);
    const starts = fake.klineCalls.map((u) => Number(new URL(u).searchParams.get('startTime')));
    expect(starts).toEqual([from, from + 1000 * HOUR, from + 2000 * HOUR]);
    const cached = await t.ctx.database.sql.query(
      `SELECT count(*)::int AS n FROM candle_cache WHERE exchange = 'binance' AND symbol = 'BTC/USDT' AND "interval" = '1h'`,
    );
    expect(Number(cached[0]!.n)).toBe(2160);
    // Another user, the same range: from the cache, no call to the exchange.
    const b = await run(bob, body);
    expect(b.status).toBe('done');
    expect(fake.klineCalls).toHaveLength(3);
    expect(b.candles).toEqual(a.candles);
    expect(b.summary).toEqual(a.summary);
    // A longer range fetches only what the cache lacks (the 10 days before).
    const c = await run(bob, { ...body, from: from - 10 * 24 * HOUR });
    expect(c.summary.candles).toBe(2400);
    expect(fake.klineCalls).toHaveLength(4);
    expect(Number(new URL(fake.klineCalls[3]!).searchParams.get('startTime'))).toBe(from - 10 * 24 * HOUR);
  });
});

if (!PG_URL) console.log(`[skip] ${PG_SKIP_REASON}`);
describe.skipIf(!PG_URL)('backtests on PostgreSQL', () => {
  let t: TestApp;
  let database: Database;
  let drop: () => Promise<void>;
  let user: User;
  const call = apiCaller(() => t.app);

  beforeAll(async () => {
    const fresh = await freshPostgresUrl();
    drop = fresh.drop;
    database = await openDatabase({ databaseUrl: fresh.url, dataDir: tempDir() });
    t = await makeTestApp({ SIMULATOR_CONTROL: '1' }, { database });
    user = await createTestUser(t);
  });
  afterAll(async () => {
    await t?.close();
    await database?.close();
    await drop?.();
  });

  const run = async (body: Json): Promise<Json> => {
    const r = await call(user, 'POST', '/api/backtest', body);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    return until(async () => {
      const g = await call(user, 'GET', `/api/backtest/${r.body.id}`);
      return ['done', 'failed', 'cancelled'].includes(g.body.status) ? g.body : null;
    }, 60_000);
  };

  it('caches the simulated history, runs, and fails a backtest whose process stopped reporting', async () => {
    const body = { kind: 'grid-dca', params: DCA_FORM, period: '7d', interval: '1h' };
    const a = await run(body);
    expect(a.status, a.error).toBe('done');
    const cached = await database.sql.query(
      `SELECT count(*)::int AS n FROM candle_cache WHERE exchange = 'sim:binance' AND "interval" = '1h'`,
    );
    expect(Number(cached[0]!.n)).toBe(a.summary.candles);
    const b = await run(body);
    expect(b.candles).toEqual(a.candles);
    expect(b.summary).toEqual(a.summary);
    // Another process's backtest: failed once it has not reported for 30 s, not before.
    const insert = (heartbeat: string) =>
      database.sql.query(
        `INSERT INTO backtests (user_id, kind, exchange, symbol, interval, source, params, slippage_pct, budget, status, heartbeat_at)
         VALUES ($1, 'grid', 'binance', 'BTC/USDT', '1m', 'inline', '{}', 0.05, 100, 'running', ${heartbeat}) RETURNING id`,
        [user.id],
      );
    const [stale] = await insert(`now() - interval '1 minute'`);
    await backtestServices.get(t.ctx)!.sweep();
    const [row] = await database.sql.query(`SELECT status, error FROM backtests WHERE id = $1`, [stale!.id]);
    expect(row).toEqual({ status: 'failed', error: BACKTEST_MESSAGES.interrupted });
    const [fresh] = await insert('now()');
    await backtestServices.get(t.ctx)!.sweep();
    const [row2] = await database.sql.query(`SELECT status FROM backtests WHERE id = $1`, [fresh!.id]);
    expect(row2).toEqual({ status: 'running' });
  });
});
