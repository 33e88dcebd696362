// Account deletion with running bots (issue: per-user limits): the account holds BOTS Grid Bot DCA bots
// on two paper exchanges (each with its take profit and three ladder buys resting), then
// DELETE /api/delete_account stops them all (cancel_only), closes the venues and deletes the rows. The
// baseline, in the same process, is the deletion of an account with no bot; the ratio shows what the
// bots add. On the real store: the app on PGlite in a temporary DATA_DIR, the runner trading.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hash } from '@node-rs/argon2';
import { buildApp } from '../apps/server/src/app';
import { loadConfig } from '../apps/server/src/config';
import { users } from '../apps/server/src/db/schema/index';
import { SessionsRepository } from '../apps/server/src/modules/accounts/sessions.repository';
import { runners } from '../apps/server/src/modules/bots/routes';
import type { BenchSection } from './run';

const BOTS = 50;
const EXCHANGES = ['binance', 'bybit'];

async function deletion(bots: number) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bytx-bench-delete-'));
  const { app, ctx } = await buildApp(
    loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      MASTER_KEY: 'cd'.repeat(32),
      LOG_LEVEL: 'silent',
      BOT_RUNNER: '1',
      WEB_DIST_DIR: path.join(dataDir, 'no-web'),
    }),
    { logger: false },
  );
  await app.ready();
  try {
    const [row] = await ctx.db
      .insert(users)
      .values({ email: 'bench-delete@example.com', passwordHash: await hash('bench password 1') })
      .returning({ id: users.id });
    const token = await new SessionsRepository(ctx.db).create(row!.id);
    const headers = { authorization: `Bearer ${token}` };
    for (const exchange of EXCHANGES) {
      await app.inject({
        method: 'POST',
        url: '/api/conectar_exchange',
        headers,
        payload: { exchange, mode: 'paper' },
      });
    }
    const symbols = ctx.services.simulator!.symbols.filter((s) => s.endsWith('/USDT'));
    let started = 0;
    for (let i = 0; started < bots && i < symbols.length * EXCHANGES.length; i++) {
      const r = await app.inject({
        method: 'POST',
        url: '/api/start_bot_dca',
        headers,
        payload: {
          exchange: EXCHANGES[i % EXCHANGES.length],
          symbol: symbols[Math.floor(i / EXCHANGES.length)],
          amount: 20,
          tp: 1,
          separacion: 1,
          os: 3,
        },
      });
      if (r.statusCode === 200) started++;
    }
    if (started !== bots) throw new Error(`started ${started} of ${bots} bots`);
    await runners.get(ctx)!.idle();
    const t0 = performance.now();
    const del = await app.inject({ method: 'DELETE', url: '/api/delete_account', headers });
    const ms = performance.now() - t0;
    if (del.statusCode !== 200) throw new Error(`delete answered ${del.statusCode}: ${del.body}`);
    const open = await ctx.database.sql.query(
      `SELECT count(*)::int AS n FROM paper_orders WHERE status = 'open'`,
    );
    if (Number(open[0]!.n) !== 0) throw new Error('orders left open');
    return ms;
  } finally {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export default async function accountDeleteBench(): Promise<BenchSection[]> {
  await deletion(0); // warm-up
  const base = [await deletion(0), await deletion(0)];
  const withBots = [await deletion(BOTS), await deletion(BOTS)];
  const b = Math.min(...base);
  const w = Math.min(...withBots);
  const fmt = (x: number) => x.toFixed(0);
  return [
    {
      title: `Account deletion with ${BOTS} running bots (PGlite)`,
      markdown: [
        `An account with ${BOTS} Grid Bot DCA bots on two paper exchanges (200 resting orders) is deleted`,
        'through `DELETE /api/delete_account`: every bot stopped with cancel_only (side by side), venues',
        'closed, rows deleted. Baseline: the same deletion with no bot, in the same process. Best of two.',
        '',
        '| account | deletion ms |',
        '| --- | ---: |',
        `| no bot (baseline) | ${fmt(b)} |`,
        `| ${BOTS} bots | ${fmt(w)} |`,
        '',
        `Ratio: ${(w / b).toFixed(1)}× the baseline; goal: under 2,000 ms with ${BOTS} bots (${w < 2000 ? 'met' : 'not met'}).`,
      ].join('\n'),
    },
  ];
}
