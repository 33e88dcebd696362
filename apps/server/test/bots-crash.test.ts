import { spawn } from 'node:child_process';
import path from 'node:path';
import { gridSummary, type GridState } from '@bytx/engine';
import { describe, expect, it } from 'vitest';
import { loginViaApi, registerViaApi } from '../../../e2e/helpers/accounts';
import { serverArgs, startServer } from '../../../e2e/harness';
import { openDatabase } from '../src/db/client';
import { kill9, seededRandom } from './crash.helpers';

/**
 * Crash safety of the bot runner (DESIGN.md principle 5): the real server runs as a child process
 * on an embedded database while Grid Bot DCA bots trade on paper accounts; the test drives the
 * simulated price and kills the process with SIGKILL at random moments, restarts it on the same
 * data, and at the end proves from the database: no client order id placed twice on the venue,
 * no fill lost (paper balances equal what the journal and the lots say), and no order open on the
 * venue that the journal does not know. Users also add funds to and sell pending orders (open lots)
 * while the kills land, so those actions are crash-tested too.
 */

// Kills in `npm test`: 3, one of each crash point the file covers, at a chosen moment where it can be:
//  1. while trading (prices moving, fills, users' add-funds/sell of open lots in flight), every bot kind
//     running (Grid Bot DCA spot and SHORT perpetual, classic DCA, Grid), on a server that started fresh;
//  2. while trading again, on a server that reconciled after kill 1 (its own writes are then cut);
//  3. during the next start-up's reconcile: that server is killed at the first answer of
//     GET /api/dev/runner, i.e. once the app serves and the runner's first scan has begun (the soak's
//     random 1.5-7.5 s often landed in the module import, before the database was even opened).
// The last server then reconciles after two kills in a row and is checked.
// Each trading spell lasts 2.5-4 s (the soak's: 0.3-1.8 s), so the two spells trade about as long as
// the eight kills did (every bot must fill more than one order). Each restart is ~10 s of a 2-core
// machine: 8 kills (6 restarts + 3 killed start-ups) made this file ~100 s. The soak: CRASH_KILLS=20 (or
// `npm run bench -- crash-soak`, 20 kills): half while trading, half at a random moment of a start-up.
const SOAK = process.env.CRASH_KILLS !== undefined;
const KILLS = SOAK ? Number(process.env.CRASH_KILLS) : 3;
/** Trading time before each kill while trading, ms: least and random extra. */
const [TRADE_MIN_MS, TRADE_EXTRA_MS] = SOAK ? [300, 1_500] : [2_500, 1_500];
/** Grid Bot DCA users, then classic DCA users (one paper account each, so balances check per bot). */
const USERS = 3;
const CLASSIC_USERS = 2;
/** Then one Grid bot user (spot, long) and one user with a SHORT Grid Bot DCA on the perpetual (issue 14). */
const GRID_USERS = 1;
const SHORT_USERS = 1;
const PERP = 'BTC/USDT:USDT';
const EX = 'binance';
const SYM = 'BTC/USDT';
const PASSWORD = 'Crash-Test-Passw0rd!';
const ENV = { SIMULATOR_CONTROL: '1', BOT_RUNNER: '1', LOG_LEVEL: 'warn' };

type Json = Record<string, unknown>;

/** A POST as a well-behaved client makes it: a 503 of the load shedding is tried again after Retry-After. */
async function post(base: string, path: string, body: unknown, token?: string): Promise<Json> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Json;
    if (res.status === 503 && attempt < 5) {
      const wait = Math.min(2, Number(res.headers.get('retry-after') ?? 1) || 1);
      await new Promise((r) => setTimeout(r, wait * 1000));
      continue;
    }
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }
}

/** A request as a well-behaved client makes it: a 503 of the load shedding is tried again after Retry-After. */
async function request(url: string, init: RequestInit): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(url, init);
    if (res.status !== 503 || attempt >= 5) return res;
    const wait = Math.min(2, Number(res.headers.get('retry-after') ?? 1) || 1);
    await new Promise((r) => setTimeout(r, wait * 1000));
  }
}

/** Adds 10 USDT to, or sells, one of the user's open lots (`pick` in [0, 1) chooses which); the answer's status. */
async function pendingAction(base: string, token: string, pick: number, buy: boolean): Promise<string> {
  const auth = { authorization: `Bearer ${token}` };
  const res = await request(`${base}/api/dca/pending_orders?per_page=200`, { headers: auth });
  if (!res.ok) return `list ${res.status}`;
  const lots = ((await res.json()) as { orders: { id: string; busy: string | null }[] }).orders.filter(
    (o) => o.busy === null,
  );
  const lot = lots[Math.floor(pick * lots.length)];
  if (!lot) return 'no lot';
  const r = await request(`${base}/api/dca/pending_orders/${buy ? 'add_funds' : 'sell'}`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(buy ? { id: lot.id, amount_quote: '10' } : { id: lot.id }),
  });
  return `${buy ? 'add_funds' : 'sell'} ${r.status}`;
}

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** Waits until the server's runner has reconciled every bot it leased at start (GET /api/dev/runner). */
async function untilRunnerStarted(base: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await request(`${base}/api/dev/runner`, {});
    const s = (await res.json()) as { started: boolean; attaching: number };
    if (s.started && s.attaching === 0) return;
    if (Date.now() > deadline) throw new Error(`the runner did not finish its start: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Spawns the real server on `dataDir` and SIGKILLs it during its start: after `ms` (healthy or not), or
 * with `ms` null at the first answer of GET /api/dev/runner (the app serves, the runner's first scan,
 * which leases and reconciles every bot, has begun). Resolves to whether the runner was seen still
 * starting (false for a kill after `ms`).
 */
async function startAndKillAfter(dataDir: string, port: number, ms: number | null): Promise<boolean> {
  const child = spawn(process.execPath, serverArgs(), {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ...ENV,
    },
    stdio: 'ignore',
  });
  let gone = false;
  const exited = new Promise<void>((r) => child.once('exit', () => ((gone = true), r())));
  // Known only when the kill waits for the runner's answer (a kill after `ms` is not looked at).
  let starting = false;
  if (ms !== null) await Promise.race([new Promise((r) => setTimeout(r, ms)), exited]);
  else {
    // Until the app answers (the early listener says 503 meanwhile); a minute at most, then kill anyway.
    for (const deadline = Date.now() + 60_000; !gone && Date.now() < deadline;) {
      const res = await fetch(`http://127.0.0.1:${port}/api/dev/runner`).catch(() => null);
      if (res?.status === 200) {
        starting = !((await res.json()) as { started: boolean }).started;
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  child.kill('SIGKILL');
  await exited;
  return starting;
}

describe('bot runner crash safety (SIGKILL while trading, restart, reconcile)', () => {
  it(
    `survives ${KILLS} kills: nothing placed twice, no fill lost, no unknown open order`,
    async () => {
      const t0 = Date.now();
      let server = await startServer(ENV);
      const dataDir = server.dataDir;
      const rand = seededRandom(12345);
      const users: { email: string; token: string }[] = [];
      let p0 = 0;
      let kills = 0;
      let acted = 0;
      /** Start-up kills that landed before the runner's first scan was over. */
      let reconcileKills = 0;
      const answers: Record<string, number> = {};
      try {
        for (let i = 0; i < USERS + CLASSIC_USERS + GRID_USERS + SHORT_USERS; i++) {
          const email = `crash${i}@example.com`;
          await registerViaApi(server.baseUrl, server.outboxDir, email, PASSWORD);
          const token = await loginViaApi(server.baseUrl, email, PASSWORD);
          await post(server.baseUrl, '/api/conectar_exchange', { exchange: EX, mode: 'paper' }, token);
          users.push({ email, token });
        }
        const mc = await post(
          server.baseUrl,
          '/api/min_cost',
          { exchange: EX, symbol: SYM },
          users[0]!.token,
        );
        p0 = Math.round(Number(mc.price));
        await post(server.baseUrl, '/api/dev/market/price', { exchange: EX, symbol: SYM, price: p0 });
        for (const u of users.slice(USERS + CLASSIC_USERS, USERS + CLASSIC_USERS + GRID_USERS)) {
          // A long spot grid 0.5 % apart over the walk's range: it buys and sells as the price moves.
          await post(
            server.baseUrl,
            '/api/gridbot/start',
            {
              user: u.email,
              exchange: EX,
              pair: SYM,
              marketType: 'spot',
              lowPrice: String(Math.round(p0 * 0.965)),
              highPrice: String(Math.round(p0 * 1.035)),
              amountPerLevel: '20',
              stepPercentage: '0.5',
              profitCurrency: 'quote',
              position: 'long',
            },
            u.token,
          );
        }
        for (const u of users.slice(USERS + CLASSIC_USERS + GRID_USERS)) {
          // A SHORT Grid Bot DCA on the perpetual at 2x (its liquidation price is far above the walk).
          await post(
            server.baseUrl,
            '/api/start_bot_dca',
            {
              symbol: SYM,
              amount: '25',
              tp: '0.5',
              separacion: '0.5',
              os: '4',
              exchange: EX,
              apartado: 'Perpetual',
              direction: 'SHORT',
              leverage: 2,
            },
            u.token,
          );
        }
        for (const u of users.slice(USERS, USERS + CLASSIC_USERS)) {
          // Classic DCA: base order at once (no trend rule), safety orders 0.5 % apart, new cycles (r) and
          // re-armed levels (r_os), so the walk below keeps it buying and selling.
          await post(
            server.baseUrl,
            '/api/start_bot',
            {
              symbol: SYM,
              amount: '25',
              tp: '0.5',
              separacion: '0.5',
              os: '4',
              exchange: EX,
              apartado: 'Spot',
              r: true,
              r_os: true,
              trend_filter: false,
            },
            u.token,
          );
        }
        for (const u of users.slice(0, USERS)) {
          await post(
            server.baseUrl,
            '/api/start_bot_dca',
            {
              symbol: SYM,
              amount: '25',
              tp: '0.5',
              separacion: '0.5',
              os: '4',
              exchange: EX,
              apartado: 'Spot',
            },
            u.token,
          );
        }

        let price = p0;
        for (let k = 0; kills < KILLS; k++) {
          kills++;
          // Trade for a random while: a random walk of held prices around P0, then SIGKILL mid-move.
          const until = Date.now() + TRADE_MIN_MS + rand() * TRADE_EXTRA_MS;
          const moves: Promise<unknown>[] = [];
          while (Date.now() < until) {
            price = Math.max(p0 * 0.96, Math.min(p0 * 1.03, price * (1 + (rand() - 0.5) * 0.012)));
            moves.push(
              post(server.baseUrl, '/api/dev/market/price', {
                exchange: EX,
                symbol: SYM,
                price: Math.round(price),
              }).catch(() => undefined),
            );
            // Now and then a user acts on a pending order (add funds or sell at market), often
            // killed in the middle of it: neither may double or lose an order.
            if (rand() < 0.35) {
              const u = users[Math.floor(rand() * users.length)]!;
              const pick = rand();
              const buy = rand() < 0.6;
              moves.push(
                pendingAction(server.baseUrl, u.token, pick, buy)
                  .then((outcome) => {
                    answers[outcome] = (answers[outcome] ?? 0) + 1;
                    if (outcome.endsWith(' 200')) acted += 1;
                  })
                  .catch(() => (answers['cut by the kill'] = (answers['cut by the kill'] ?? 0) + 1)),
              );
            }
            await new Promise((r) => setTimeout(r, 40 + rand() * 120));
          }
          await kill9(server);
          await Promise.all(moves);
          // Every other time, also kill a start-up: in the soak at a random moment, else mid-reconcile.
          if (k % 2 === 1) {
            const at = rand();
            const port = Number(new URL(server.baseUrl).port);
            if (await startAndKillAfter(dataDir, port, SOAK ? 1500 + at * 6000 : null)) reconcileKills++;
            kills++;
          }
          server = await startServer(ENV, dataDir);
          await post(server.baseUrl, '/api/dev/market/price', {
            exchange: EX,
            symbol: SYM,
            price: Math.round(price),
          });
        }
        // Let the last run reconcile every bot (a loaded machine can take longer than any fixed wait),
        // settle at a steady price, then stop gracefully and read the database.
        await untilRunnerStarted(server.baseUrl);
        // On a loaded machine every action of the campaign can be cut by its kill (seen at load average
        // 16-18): then act on the last server, which is not killed, so the checks below always cover an
        // action carried out (and its orders) as well as the ones the kills cut.
        for (let tries = 0; acted === 0 && tries < 20; tries++) {
          const u = users[Math.floor(rand() * users.length)]!;
          const outcome = await pendingAction(server.baseUrl, u.token, rand(), rand() < 0.6);
          answers[`${outcome} (after the kills)`] = (answers[`${outcome} (after the kills)`] ?? 0) + 1;
          if (outcome.endsWith(' 200')) acted += 1;
        }
        await new Promise((r) => setTimeout(r, 3000));
      } finally {
        await server.stop();
      }

      const database = await openDatabase({ dataDir });
      try {
        const q = (text: string, params?: unknown[]) => database.sql.query(text, params);
        const bots = await q(`SELECT id, user_id, kind, state, status, market_type FROM bots`);
        expect(bots.filter((b) => b.kind === 'grid-dca')).toHaveLength(USERS + SHORT_USERS);
        expect(bots.filter((b) => b.kind === 'grid-dca' && b.market_type === 'Perpetual')).toHaveLength(
          SHORT_USERS,
        );
        expect(bots.filter((b) => b.kind === 'classic-dca')).toHaveLength(CLASSIC_USERS);
        expect(bots.filter((b) => b.kind === 'grid')).toHaveLength(GRID_USERS);
        const problems: string[] = [];
        for (const bot of bots) {
          const botId = String(bot.id);
          const state = bot.state as { botId: string; lots?: { qty: number }[]; position?: { qty: string } };
          const prefix = `${state.botId}-`;
          const journal = await q(`SELECT * FROM bot_orders WHERE bot_id = $1`, [botId]);
          const byCid = new Map(journal.map((r) => [String(r.client_order_id), r]));
          const venueOrders = await q(
            `SELECT client_order_id, status, data FROM paper_orders WHERE user_id = $1 AND exchange = $2`,
            [bot.user_id, EX],
          );
          const ours = venueOrders.filter(
            (o) => typeof o.client_order_id === 'string' && o.client_order_id.startsWith(prefix),
          );
          // 1. Nothing placed twice.
          const seen = new Set<string>();
          for (const o of ours) {
            const cid = String(o.client_order_id);
            if (seen.has(cid)) problems.push(`${cid} placed twice on the venue`);
            seen.add(cid);
          }
          // 3. Every venue order is journaled, with the same fate.
          for (const o of ours) {
            const cid = String(o.client_order_id);
            const j = byCid.get(cid);
            const data = o.data as { status: string; filled: number };
            if (!j) {
              problems.push(`${cid} (${data.status}) on the venue is unknown to the journal`);
              continue;
            }
            const want = data.status === 'closed' ? 'filled' : data.status === 'open' ? 'open' : 'cancelled';
            if (String(j.status) !== want)
              problems.push(`${cid}: venue ${data.status}, journal ${String(j.status)}`);
            if (Math.abs(Number(j.filled) - data.filled) > 1e-12)
              problems.push(`${cid}: venue filled ${data.filled}, journal ${String(j.filled)}`);
          }
          for (const j of journal) {
            const cid = String(j.client_order_id);
            if ((j.status === 'open' || j.status === 'filled') && !seen.has(cid))
              problems.push(`${cid}: journal ${String(j.status)} but the venue has no such order`);
            if (j.status === 'pending_submit') problems.push(`${cid}: still pending_submit after reconcile`);
          }
          // 2. No fill lost: balances equal what the journal's fills and the open lots say.
          const [acct] = await q(
            `SELECT balances, derivatives FROM paper_accounts WHERE user_id = $1 AND exchange = $2`,
            [bot.user_id, EX],
          );
          if (bot.market_type !== 'Spot') {
            // A derivatives bot: its position on the venue equals the journal's net fills and its open lots.
            const d = acct!.derivatives as {
              positions?: { symbol: string; side: string; contracts: number }[];
            };
            const pos = (d?.positions ?? []).find((p) => p.symbol === PERP);
            const onVenue = pos ? (pos.side === 'short' ? -pos.contracts : pos.contracts) : 0;
            let net = 0;
            for (const j of journal) net += (j.side === 'buy' ? 1 : -1) * Number(j.filled);
            const lots = -(state.lots ?? []).reduce((sum, l) => sum + l.qty, 0);
            if (Math.abs(onVenue - net) > 1e-8)
              problems.push(`bot ${botId}: venue position ${onVenue}, journal fills ${net}`);
            if (Math.abs(onVenue - lots) > 1e-8)
              problems.push(`bot ${botId} (SHORT): venue position ${onVenue}, strategy holds ${lots}`);
            expect(journal.filter((j) => j.status === 'filled').length, 'the bots traded').toBeGreaterThan(1);
            continue;
          }
          const bal = acct!.balances as Record<string, { free: number; used: number }>;
          const btc = (bal.BTC?.free ?? 0) + (bal.BTC?.used ?? 0);
          const usdt = (bal.USDT?.free ?? 0) + (bal.USDT?.used ?? 0);
          let base = 0;
          let quote = 10_000;
          for (const j of journal) {
            const filled = Number(j.filled);
            if (filled === 0) continue;
            const cost = filled * Number(j.avg_price);
            if (j.side === 'buy') {
              base += filled;
              quote -= cost + Number(j.fee);
            } else {
              base -= filled;
              quote += cost - Number(j.fee);
            }
          }
          // What the strategy holds: the Grid Bot DCA's open lots, the classic DCA's position.
          const held =
            bot.kind === 'grid-dca'
              ? (state.lots ?? []).reduce((s, l) => s + l.qty, 0)
              : bot.kind === 'grid'
                ? gridSummary(bot.state as GridState).baseHeld
                : Number(state.position?.qty ?? 0);
          if (Math.abs(btc - base) > 1e-8)
            problems.push(`bot ${botId}: venue BTC ${btc}, journal fills ${base}`);
          if (Math.abs(btc - held) > 1e-8)
            problems.push(`bot ${botId} (${String(bot.kind)}): venue BTC ${btc}, strategy holds ${held}`);
          if (Math.abs(usdt - quote) > 1e-4)
            problems.push(`bot ${botId}: venue USDT ${usdt}, journal ${quote}`);
          expect(journal.filter((j) => j.status === 'filled').length, 'the bots traded').toBeGreaterThan(1);
        }
        console.log(
          `[crash] ${kills} kills (${reconcileKills} mid-reconcile) in ${Math.round((Date.now() - t0) / 1000)} s; ` +
            `${(await q(`SELECT count(*)::int AS n FROM bot_orders`))[0]!.n as number} journaled orders, ` +
            `${(await q(`SELECT count(*)::int AS n FROM bot_trades`))[0]!.n as number} closed trades`,
        );
        console.log(`[crash] pending-order actions (add funds / sell): ${JSON.stringify(answers)}`);
        expect(acted, 'pending-order actions were carried out between kills').toBeGreaterThanOrEqual(1);
        expect(kills).toBeGreaterThanOrEqual(KILLS);
        expect(problems).toEqual([]);
      } finally {
        await database.close();
      }
      // A kill and its restart take 10-45 s on a loaded 2-core machine (8 kills timed out at load 20-25).
    },
    Math.max(420_000, 60_000 + KILLS * 45_000),
  );
});
