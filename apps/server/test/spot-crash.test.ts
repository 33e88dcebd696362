/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers read loosely */
import { describe, expect, it } from 'vitest';
import { loginViaApi, registerViaApi } from '../../../e2e/helpers/accounts';
import { startServer, type RunningServer } from '../../../e2e/harness';
import { openDatabase } from '../src/db/client';

/**
 * Crash safety of the spot screen's take profit and stop loss (issue 16: "journalled like bot orders, so
 * a restart does not lose it"): the real server runs as a child process on an embedded database and is
 * killed with SIGKILL while manual orders have their exits active, and again right after a stop loss was
 * reached. After each restart the runner resumes them: the stop loss reached after the restart closes
 * the position, the resting take profit fills, and the database proves that no order was placed twice,
 * that journal and venue agree on every order, and that the paper balances are what the fills say.
 */

const EX = 'binance';
const SYM = 'BTC/USDT';
const PASSWORD = 'Spot-Crash-Passw0rd!';
const ENV = { SIMULATOR_CONTROL: '1', BOT_RUNNER: '1', LOG_LEVEL: 'warn', TRADING_SCREENS: 'all' };

type Json = Record<string, any>;

/** A call as a well-behaved client makes it: a 503 of the load shedding is tried again after Retry-After. */
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
    const json = (await res.json()) as Json;
    if (res.status === 503 && attempt < 5) {
      const wait = Math.min(2, Number(res.headers.get('retry-after') ?? 1) || 1);
      await new Promise((r) => setTimeout(r, wait * 1000));
      continue;
    }
    return { status: res.status, body: json };
  }
}

function kill9(server: RunningServer): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((r) => server.child.once('exit', () => r()));
  server.child.kill('SIGKILL');
  return exited;
}

describe('spot orders’ TP/SL across SIGKILL restarts', () => {
  it('resumes the exits after a kill: the SL reached after the restart closes, nothing is placed twice', async () => {
    let server = await startServer(ENV);
    const dataDir = server.dataDir;
    const email = 'spot-crash@example.com';
    let token = '';
    const api = (method: string, url: string, body?: unknown) =>
      call(server.baseUrl, method, url, body, token);
    const price = async (p: number) => {
      const r = await call(server.baseUrl, 'POST', '/api/dev/market/price', {
        exchange: EX,
        symbol: SYM,
        price: p,
      });
      expect(r.status).toBe(200);
    };
    const view = async (id: string) => {
      const r = await api('GET', `/api/spot/orders?exchange=${EX}`);
      expect(r.status).toBe(200);
      return [...(r.body.open as Json[]), ...(r.body.recent as Json[])].find((o) => o.id === id)!;
    };
    /** Re-sends the price (alternating a cent, so every post is a tick) until `done` holds. */
    const driveUntil = async (p: number, done: () => Promise<boolean>) => {
      const end = Date.now() + 60_000;
      for (let i = 0; ; i++) {
        await price(i % 2 === 0 ? p : p - 0.01);
        if (await done()) return;
        if (Date.now() > end) throw new Error(`not reached at ${p}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    let a = '';
    let b = '';
    try {
      await registerViaApi(server.baseUrl, server.outboxDir, email, PASSWORD);
      token = await loginViaApi(server.baseUrl, email, PASSWORD);
      expect((await api('POST', '/api/conectar_exchange', { exchange: EX, mode: 'paper' })).status).toBe(200);
      await price(100_000);
      // A: bought at market, its TP resting at 110,000 and its SL watched at 95,000.
      const ra = await api('POST', '/api/spot/order', {
        exchange: EX,
        symbol: SYM,
        side: 'buy',
        type: 'market',
        quantity: '0.01',
        tp: '110000',
        sl: '95000',
      });
      expect(ra.status, JSON.stringify(ra.body)).toBe(200);
      expect(ra.body.order).toMatchObject({ status: 'filled', exit_state: 'active' });
      a = ra.body.order.id as string;
      // B: a limit buy resting at 97,000 with TP 99,000 and SL 93,000.
      const rb = await api('POST', '/api/spot/order', {
        exchange: EX,
        symbol: SYM,
        side: 'buy',
        type: 'limit',
        price: '97000',
        quantity: '0.01',
        tp: '99000',
        sl: '93000',
      });
      expect(rb.status, JSON.stringify(rb.body)).toBe(200);
      b = rb.body.order.id as string;

      // 1. Killed with A's exits active and B's entry resting.
      await kill9(server);
      server = await startServer(ENV, dataDir);
      expect(await view(a)).toMatchObject({ status: 'filled', exit_state: 'active' });
      expect(await view(b)).toMatchObject({ status: 'open', exit_state: 'waiting_entry' });
      // B's entry fills after the restart and its exits are armed; A's SL (95,000) is not reached.
      await driveUntil(96_500, async () => (await view(b)).exit_state === 'active');
      expect((await view(a)).exit_state).toBe('active');

      // 2. A's SL is reached after the restart; the process is killed while it closes.
      await price(94_000);
      await new Promise((r) => setTimeout(r, 150));
      await kill9(server);
      server = await startServer(ENV, dataDir);
      await driveUntil(94_000, async () => (await view(a)).exit_state === 'sl_filled');
      const closedA = await view(a);
      expect(closedA).toMatchObject({ status: 'filled', exit_state: 'sl_filled' });
      expect(closedA.pnl).toBeLessThan(0);
      expect((await view(b)).exit_state).toBe('active'); // its SL is 93,000

      // 3. B's take profit fills.
      await driveUntil(99_500, async () => (await view(b)).exit_state === 'tp_filled');
      expect((await view(b)).pnl).toBeGreaterThan(0);
      const wallet = await api('GET', `/api/wallet?exchange=${EX}`);
      expect(wallet.body.balances.BTC).toBe(0);
    } finally {
      await server.stop();
    }

    const database = await openDatabase({ dataDir });
    try {
      const q = (text: string, params?: unknown[]) => database.sql.query(text, params);
      const bots = await q(`SELECT id, user_id, state, status FROM bots WHERE kind = 'manual'`);
      expect(bots.map((r) => String(r.id)).sort()).toEqual([a, b].sort());
      const problems: string[] = [];
      let base = 0;
      let quote = 10_000;
      for (const bot of bots) {
        expect(bot.status).toBe('stopped');
        const prefix = `${(bot.state as { botId: string }).botId}-`;
        const journal = await q(`SELECT * FROM bot_orders WHERE bot_id = $1`, [bot.id]);
        const byCid = new Map(journal.map((r) => [String(r.client_order_id), r]));
        const venue = (
          await q(`SELECT client_order_id, data FROM paper_orders WHERE user_id = $1 AND exchange = $2`, [
            bot.user_id,
            EX,
          ])
        ).filter((o) => typeof o.client_order_id === 'string' && o.client_order_id.startsWith(prefix));
        const seen = new Set<string>();
        for (const o of venue) {
          const cid = String(o.client_order_id);
          if (seen.has(cid)) problems.push(`${cid} placed twice on the venue`);
          seen.add(cid);
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
          if (j.status === 'pending_submit' || j.status === 'open')
            problems.push(`${cid}: still ${String(j.status)}`);
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
        // A kill between the SL's journal entry and its send leaves an order that never reached the
        // venue: the restart withdraws it (cancelled, nothing filled) and places the exit again. The
        // loop above checked every entry against the venue; the fills are what must be exactly these.
        const roles = journal
          .filter((j) => !(j.role === 'manual_sl' && j.status === 'cancelled' && Number(j.filled) === 0))
          .map((j) => `${String(j.role)}:${String(j.status)}`)
          .sort();
        expect(roles).toEqual(
          String(bot.id) === a
            ? ['manual_entry:filled', 'manual_sl:filled', 'manual_tp:cancelled']
            : ['manual_entry:filled', 'manual_tp:filled'],
        );
      }
      expect(problems).toEqual([]);
      // No fill lost or doubled: the paper account holds what the journal's fills say.
      const [acct] = await q(`SELECT balances FROM paper_accounts WHERE exchange = $1`, [EX]);
      const bal = acct!.balances as Record<string, { free: number; used: number }>;
      expect((bal.BTC?.free ?? 0) + (bal.BTC?.used ?? 0)).toBeCloseTo(base, 10);
      expect(base).toBeCloseTo(0, 10);
      expect((bal.USDT?.free ?? 0) + (bal.USDT?.used ?? 0)).toBeCloseTo(quote, 6);
      // One round trip each, recorded once, and none of them in the bot histories' rollups.
      const trades = await q(`SELECT bot_id, manual FROM bot_trades`);
      expect(trades.map((r) => String(r.bot_id)).sort()).toEqual([a, b].sort());
      expect(trades.every((r) => r.manual === true)).toBe(true);
      expect(await q(`SELECT * FROM bot_trade_symbols`)).toEqual([]);
    } finally {
      await database.close();
    }
  }, 240_000);
});
