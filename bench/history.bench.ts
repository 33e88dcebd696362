// The global history at volume (issue 13): one user with 100,000 history rows among other users'
// rows (150,000 more), on the real store — the app on PGlite in a temporary DATA_DIR, and on
// PostgreSQL too when DATABASE_URL is set (a fresh database, dropped after). Timed through the HTTP app
// (`inject`: auth, validation, service, SQL, JSON): GET /api/dca/all_history page 1, a middle page and
// the last page (12 rows a page), and page 1 with aggregates=1 (per-symbol totals, 24 h window, USD
// through the market hub, daily cumulative series). Baseline, in the same process: the same four calls
// for a user with 100 rows. The goal: page + aggregates under 100 ms at 100,000 rows.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../apps/server/src/app';
import { loadConfig } from '../apps/server/src/config';
import { openDatabase } from '../apps/server/src/db/client';
import { users } from '../apps/server/src/db/schema/index';
import { SessionsRepository } from '../apps/server/src/modules/accounts/sessions.repository';
import { freshPostgresUrl } from '../apps/server/test/helpers';
import type { BenchSection } from './run';

const BIG = 100_000;
const SMALL = 100;
const OTHERS = [{ rows: 100_000 }, { rows: 50_000 }];
const PER_PAGE = 12;
/** Measured runs per call (after WARMUP unmeasured ones); p99 of 200 runs is the second slowest. */
const RUNS = 200;
const WARMUP = 5;
const GOAL_MS = 100;
/** Spread over a year, over 8 pairs on two exchanges; ETH/BTC's PnL is quoted in BTC (USD via BTC/USDT). */
const SYMBOLS = [
  'BTC/USDT',
  'ETH/USDT',
  'SOL/USDT',
  'XRP/USDT',
  'BNB/USDC',
  'ETH/BTC',
  'DOGE/USDT',
  'ADA/USDT',
];

type Inject = Awaited<ReturnType<typeof buildApp>>['app']['inject'];

interface Row {
  call: string;
  rows: number;
  p50: number;
  p99: number;
  max: number;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

async function seed(q: (text: string, params?: unknown[]) => Promise<unknown>, userId: string, n: number) {
  const [bot] = (await q(
    `INSERT INTO bots (user_id, exchange, symbol, config, state, status) VALUES ($1, 'binance', 'BTC/USDT', '{}', '{}', 'stopped') RETURNING id`,
    [userId],
  )) as { id: string }[];
  // One sale every ~5 minutes back from now, a year for 100,000 rows; PnL between −0.037 and +0.037.
  const step = Math.max(1, Math.floor((365 * 86_400) / Math.max(n, 1)));
  await q(
    `INSERT INTO bot_trades (bot_id, user_id, exchange, symbol, lot_key, lot_id, buy_time, sell_time, qty, buy_price, sell_price, pnl_net)
     SELECT $1, $2, CASE WHEN g % 3 = 0 THEN 'bybit' ELSE 'binance' END, ($3::text[])[1 + g % ${SYMBOLS.length}],
       'b-' || g, 'b-' || g,
       now() - make_interval(secs => g * $4::int + 3600), now() - make_interval(secs => g * $4::int),
       0.001, 100, 101, (g % 7 - 3) * 0.01234567
     FROM generate_series(1, $5::int) g`,
    [bot!.id, userId, SYMBOLS, step, n],
  );
}

async function measure(
  driver: 'pglite' | 'postgres',
): Promise<{ rows: Row[]; plans: string[]; setupS: number; deleteAllMs: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bytx-bench-history-'));
  const fresh = driver === 'postgres' ? await freshPostgresUrl('bytx_bench_history') : null;
  const databaseUrl = fresh?.url;
  const database = await openDatabase({ databaseUrl, dataDir: path.join(dataDir, 'db') });
  const { app, ctx } = await buildApp(
    loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      MASTER_KEY: 'ef'.repeat(32),
      LOG_LEVEL: 'silent',
      BOT_RUNNER: '0',
      WEB_DIST_DIR: path.join(dataDir, 'no-web'),
    }),
    { database, logger: false },
  );
  await app.ready();
  try {
    const t0 = performance.now();
    const q = (text: string, params?: unknown[]) => ctx.database.sql.query(text, params);
    const user = async (email: string, rows: number) => {
      const [row] = await ctx.db
        .insert(users)
        .values({ email, passwordHash: 'x' })
        .returning({ id: users.id });
      if (rows > 0) await seed(q, row!.id, rows);
      const token = await new SessionsRepository(ctx.db).create(row!.id);
      return { authorization: `Bearer ${token}` };
    };
    for (const [i, o] of OTHERS.entries()) await user(`bench-other-${i}@example.com`, o.rows);
    const big = await user('bench-big@example.com', BIG);
    const small = await user('bench-small@example.com', SMALL);
    await ctx.database.sql.exec('ANALYZE');
    const setupS = (performance.now() - t0) / 1000;

    const inject: Inject = app.inject.bind(app);
    const time = async (headers: Record<string, string>, url: string) => {
      const a = performance.now();
      const res = await inject({ method: 'GET', url, headers });
      const ms = performance.now() - a;
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
      return ms;
    };
    const calls = (n: number) => {
      const pages = Math.ceil(n / PER_PAGE);
      return [
        { call: 'page 1', url: `/api/dca/all_history?page=1&per_page=${PER_PAGE}` },
        {
          call: `middle page (${Math.ceil(pages / 2)})`,
          url: `/api/dca/all_history?page=${Math.ceil(pages / 2)}&per_page=${PER_PAGE}`,
        },
        { call: `last page (${pages})`, url: `/api/dca/all_history?page=${pages}&per_page=${PER_PAGE}` },
        {
          call: 'page 1 + aggregates',
          url: `/api/dca/all_history?page=1&per_page=${PER_PAGE}&aggregates=1`,
        },
      ];
    };
    const rows: Row[] = [];
    for (const [headers, n] of [
      [small, SMALL],
      [big, BIG],
    ] as const) {
      for (const c of calls(n)) {
        for (let i = 0; i < WARMUP; i++) await time(headers, c.url);
        const lat: number[] = [];
        for (let i = 0; i < RUNS; i++) lat.push(await time(headers, c.url));
        lat.sort((a, b) => a - b);
        rows.push({ call: c.call, rows: n, p50: pct(lat, 50), p99: pct(lat, 99), max: lat.at(-1)! });
      }
    }

    // The plans of the big user's queries: which index each one reads.
    const [bigUser] = await q(`SELECT id FROM users WHERE email = 'bench-big@example.com'`);
    const uid = String(bigUser!.id);
    const planOf = async (label: string, sql: string, params: unknown[]) => {
      const plan = await q(`EXPLAIN ${sql}`, params);
      const text = plan.map((r) => String(Object.values(r)[0])).join('\n');
      const scans = [
        ...text.matchAll(
          /(Index Only Scan|Index Scan|Bitmap Index Scan|Seq Scan)(?: Backward)? (?:using (\S+) )?on (\S+)/g,
        ),
      ]
        .map((m) => `${m[1]}${m[2] ? ` using ${m[2]}` : ''} on ${m[3]}`)
        .filter((s, i, all) => all.indexOf(s) === i);
      return `${label}: ${scans.join('; ')}`;
    };
    const plans = [
      await planOf(
        'page (newest first)',
        `SELECT * FROM bot_trades WHERE user_id = $1 AND deleted_at IS NULL ORDER BY sell_time DESC, id DESC LIMIT 12 OFFSET 0`,
        [uid],
      ),
      await planOf(
        'page (older half, read oldest first)',
        `SELECT * FROM bot_trades WHERE user_id = $1 AND deleted_at IS NULL ORDER BY sell_time ASC, id ASC LIMIT 12 OFFSET 0`,
        [uid],
      ),
      await planOf(
        '24 h window',
        `SELECT sum(pnl_net) FROM bot_trades WHERE user_id = $1 AND deleted_at IS NULL AND sell_time >= now() - interval '24 hours'`,
        [uid],
      ),
      await planOf(
        'totals and tokens',
        `SELECT symbol, sum(pnl) FROM bot_trade_symbols WHERE user_id = $1 GROUP BY symbol`,
        [uid],
      ),
      await planOf(
        'daily series',
        `SELECT day, sum(pnl) FROM bot_trade_daily WHERE user_id = $1 GROUP BY day`,
        [uid],
      ),
    ];
    // Once, at the end: Eliminar todo for the big user (100,000 rows hidden, both rollups updated).
    const d0 = performance.now();
    const del = await inject({ method: 'DELETE', url: '/api/dca/history/delete_all', headers: big });
    const deleteAllMs = performance.now() - d0;
    if (del.statusCode !== 200 || del.json<{ deleted: number }>().deleted !== BIG) {
      throw new Error(`delete_all answered ${del.statusCode}: ${del.body}`);
    }
    return { rows, plans, setupS, deleteAllMs };
  } finally {
    await app.close();
    await database.close();
    await fresh?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function section(driver: 'pglite' | 'postgres', r: Awaited<ReturnType<typeof measure>>): BenchSection {
  const name = driver === 'pglite' ? 'PGlite' : 'PostgreSQL';
  const fmt = (x: number) => x.toFixed(1);
  const base = new Map(
    r.rows.filter((x) => x.rows === SMALL).map((x) => [x.call.replace(/ \(\d+\)/, ''), x]),
  );
  const big = r.rows.filter((x) => x.rows === BIG);
  const agg = big.find((x) => x.call === 'page 1 + aggregates')!;
  const worst = Math.max(...big.map((x) => x.p99));
  return {
    title: `Global history with 100,000 rows (${name})`,
    markdown: [
      `One user with ${BIG.toLocaleString('en')} history rows (a year of sales, 8 pairs, two exchanges, one pair quoted in`,
      `BTC) among ${OTHERS.reduce((s, o) => s + o.rows, 0).toLocaleString('en')} rows of two other users, on ${name}; timed through the HTTP app`,
      `(\`inject\`: session, validation, SQL, JSON), ${PER_PAGE} rows a page, ${RUNS} runs per call after ${WARMUP} unmeasured ones.`,
      `Baseline: the same calls for a user with ${SMALL} rows, in the same process. Setup (rows written, rollups kept by`,
      `the triggers): ${r.setupS.toFixed(0)} s.`,
      '',
      '| call | rows | p50 ms | p99 ms | max ms | baseline p50 / p99 ms | ratio p50 |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...big.map((x) => {
        const b = base.get(x.call.replace(/ \(\d+\)/, ''));
        return `| ${x.call} | ${x.rows.toLocaleString('en')} | ${fmt(x.p50)} | ${fmt(x.p99)} | ${fmt(x.max)} | ${
          b ? `${fmt(b.p50)} / ${fmt(b.p99)}` : '—'
        } | ${b ? `${(x.p50 / b.p50).toFixed(1)}×` : '—'} |`;
      }),
      '',
      'Plans (EXPLAIN of the queries behind the calls, big user):',
      ...r.plans.map((p) => `- ${p}`),
      '',
      'The rollups hold a few thousand rows per user here, and with three users the planner reads them whole;',
      'their primary keys start with user_id, which serves one user among many.',
      '',
      `\`DELETE /api/dca/history/delete_all\` of the ${BIG.toLocaleString('en')} rows (once, at the end): ${r.deleteAllMs.toFixed(0)} ms.`,
      '',
      `Goal: page + aggregates under ${GOAL_MS} ms at 100,000 rows: ${
        agg.p99 < GOAL_MS ? 'met' : agg.p50 < GOAL_MS ? 'met at p50, not at p99' : 'not met'
      } (p50 ${fmt(agg.p50)} ms, p99 ${fmt(agg.p99)} ms; slowest call p99 ${fmt(worst)} ms).`,
    ].join('\n'),
  };
}

export default async function historyBench(): Promise<BenchSection[]> {
  const out: BenchSection[] = [section('pglite', await measure('pglite'))];
  if (process.env.DATABASE_URL) out.push(section('postgres', await measure('postgres')));
  else console.log('[skip] history bench on PostgreSQL: DATABASE_URL is not set');
  return out;
}
