/* eslint-disable @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- JSON answers read loosely */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loginViaApi, registerViaApi } from '../../../e2e/helpers/accounts';
import { startServer, type RunningServer } from '../../../e2e/harness';
import { openDatabase } from '../src/db/client';

/**
 * The simulated market survives SIGKILL (issue: a restart is invisible): the real server runs as a
 * child process on PGlite; a held price still holds after every restart, so a bot's resting orders
 * see no phantom fill; an unheld pair continues from where it was instead of from its seed; candle
 * history is the same; DATA_DIR and its files are the server account's only.
 */

// Restarts in `npm test`: 2. Every restart is the same crash point (a SIGKILL of a server at rest: a
// held price, a bot with resting orders, the walk's state and the closed candles on disk), so one shows
// that a restart is invisible, and the second that the state a restarted server writes (restored, then
// saved again) restores as well; more add nothing but ~10 s each (5 made this file 66 s). The soak:
// MARKET_RESTARTS=20 or more, or `npm run bench -- crash-soak` (20).
const RESTARTS = Number(process.env.MARKET_RESTARTS ?? 2);
const ENV = { SIMULATOR_CONTROL: '1', BOT_RUNNER: '1', LOG_LEVEL: 'warn' };
const EX = 'binance';
const HELD = 'BTC/USDT';
const FREE = 'ETH/USDT';
/** Far from BTC's seed price (95,000): a restart from the seed would cross every resting order. */
const P = 60_000;

/** A call as a well-behaved client makes it: a 503 of the load shedding (a server just restarted on a
 *  busy machine) is tried again after its Retry-After. */
async function call(base: string, method: string, url: string, body?: unknown, token?: string) {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as any;
    if (res.status === 503 && attempt < 5) {
      const wait = Math.min(2, Number(res.headers.get('retry-after') ?? 1) || 1);
      await new Promise((r) => setTimeout(r, wait * 1000));
      continue;
    }
    if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }
}

function kill9(server: RunningServer): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((r) => server.child.once('exit', () => r()));
  server.child.kill('SIGKILL');
  return exited;
}

const price = async (base: string, symbol: string) =>
  Number((await call(base, 'GET', `/api/precio?exchange=${EX}&symbol=${encodeURIComponent(symbol)}`)).price);

describe('the simulated market across SIGKILL restarts', () => {
  it(
    `holds a set price through ${RESTARTS} kills (no fill), continues the walk, keeps candles`,
    async () => {
      let server = await startServer(ENV);
      const dataDir = server.dataDir;
      const jumps: number[] = [];
      let history: number[][] = [];
      try {
        const email = 'market-restart@example.com';
        const password = 'Market-Restart-Passw0rd!';
        await registerViaApi(server.baseUrl, server.outboxDir, email, password);
        const token = await loginViaApi(server.baseUrl, email, password);
        await call(server.baseUrl, 'POST', '/api/conectar_exchange', { exchange: EX, mode: 'paper' }, token);
        await call(server.baseUrl, 'POST', '/api/dev/market/price', { exchange: EX, symbol: HELD, price: P });
        await call(
          server.baseUrl,
          'POST',
          '/api/start_bot_dca',
          { exchange: EX, symbol: HELD, amount: 25, tp: 1, separacion: 1, os: 3 },
          token,
        );
        const candles = async () =>
          (
            await call(
              server.baseUrl,
              'GET',
              `/api/market/candles?exchange=${EX}&symbol=${FREE}&timeframe=1h&limit=50`,
            )
          ).candles as number[][];
        history = (await candles()).slice(0, -1);
        // Let a tick write the walk and the candle flush (10 s) pass once. Counted from here, not from the
        // server's start (when the flush's timer started): under load the flush's write of every series'
        // closed candles can take seconds, and 11 s from the start was too short once at load 16.
        await new Promise((r) => setTimeout(r, 11_000));

        for (let i = 0; i < RESTARTS; i++) {
          const before = await price(server.baseUrl, FREE);
          await kill9(server);
          server = await startServer(ENV, dataDir);
          expect(await price(server.baseUrl, HELD)).toBe(P);
          jumps.push(Math.abs((await price(server.baseUrl, FREE)) / before - 1));
        }
        // The closed hourly candles are the ones seen before the first kill.
        const after = await candles();
        for (const c of history) expect(after.find((x) => x[0] === c[0])).toEqual(c);
        const bots = (await call(server.baseUrl, 'GET', '/api/bots_activos_dca', undefined, token)).bots;
        expect(bots).toHaveLength(1);
        expect(bots[0].open_lots).toBe(1);
      } finally {
        await server.stop();
      }
      // A restart from the seed would jump ETH by its drift since start; a continued walk moves by a few
      // seconds of volatility (3.2 %/day: ~0.03 % over 10 s).
      console.log(
        `[market-restart] ${RESTARTS} kills; largest ETH move across a restart ${(Math.max(...jumps) * 100).toFixed(4)} %`,
      );
      expect(Math.max(...jumps)).toBeLessThan(0.005);

      // DATA_DIR is the server account's only: 0700 folders, 0600 files (checked before this test
      // opens the database itself).
      const loose: string[] = [];
      const walk = (dir: string) => {
        for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
          const full = path.join(dir, e.name);
          const mode = fs.statSync(full).mode & 0o777;
          if (e.isDirectory()) {
            if (mode !== 0o700) loose.push(`${full} ${mode.toString(8)}`);
            walk(full);
          } else if (e.isFile() && mode !== 0o600) loose.push(`${full} ${mode.toString(8)}`);
        }
      };
      expect((fs.statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
      walk(dataDir);
      expect(loose).toEqual([]);
      const database = await openDatabase({ dataDir });
      try {
        const orders = await database.sql.query(
          `SELECT data->>'side' AS side, status, (data->>'filled')::float AS filled FROM paper_orders WHERE exchange = $1`,
          [EX],
        );
        // Only the entry market buy ever filled: no take-profit and no ladder buy was crossed.
        const filled = orders.filter((o) => Number(o.filled) > 0);
        expect(filled.map((o) => o.side)).toEqual(['buy']);
        expect(orders.filter((o) => o.status === 'open')).toHaveLength(4);
        expect((await database.sql.query(`SELECT count(*)::int AS n FROM bot_trades`))[0]!.n).toBe(0);
      } finally {
        await database.close();
      }
      // A restart takes 10-30 s on a loaded 2-core machine.
    },
    Math.max(300_000, 60_000 + RESTARTS * 30_000),
  );
});
