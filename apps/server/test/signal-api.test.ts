/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- JSON answers read loosely */
import { createHash, randomUUID } from 'node:crypto';
import { SIGNAL_LIMITS, SIGNAL_MESSAGES } from '@bytx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database } from '../src/db/client';
import { until as waitFor } from './bots.helpers';
import { apiCaller, createTestUser, makeTestApp, type TestApp } from './helpers';
import { openTestDatabase } from './db-snapshot';

type User = Awaited<ReturnType<typeof createTestUser>>;
type Json = Record<string, any>;

const EX = 'binance';
const until = <T>(fn: () => Promise<T | null | undefined | false>) => waitFor(fn, 20_000);

/**
 * The Signal bot (issue 15 §2) on paper accounts: its calls, every webhook rejection with its status
 * and its log row, duplicate and concurrent duplicate ids, a restart between record and execute, a
 * buy then a close moving the position and the PnL. Paper fills: a market buy fills at the book's ask,
 * 0.01 % above the price, a sell at the bid, 0.01 % below; Binance's fee is 0.1 % in quote.
 */
describe('Signal bot calls and webhook (/signalbot) on a paper account', () => {
  let database: Database;
  let t: TestApp;
  let alice: User;
  let bob: User;
  const call = apiCaller(() => t.app);
  const setPrice = async (symbol: string, price: number) => {
    const r = await call(null, 'POST', '/api/dev/market/price', { exchange: EX, symbol, price });
    expect(r.status).toBe(200);
  };
  const create = (u: User, over: Json = {}) =>
    call(u, 'POST', '/api/signalbot/bots', {
      exchange: EX,
      symbol: 'BTC/USDT',
      amount: 100,
      max_position: 250,
      ...over,
    });
  /** Posts to a webhook: a JSON value, or raw text with a content type. */
  const hook = async (id: string, body: unknown, opts: { raw?: string; type?: string } = {}) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/signalbot/webhook/${id}`,
      headers: opts.type === '' ? {} : { 'content-type': opts.type ?? 'application/json' },
      payload: opts.raw ?? JSON.stringify(body),
    });
    return { status: res.statusCode, body: res.json<Json>(), headers: res.headers };
  };
  const log = async (u: User, id: string, query = '') => {
    const r = await call(u, 'GET', `/api/signalbot/bots/${id}/signals${query}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body;
  };
  const newest = async (u: User, id: string) => (await log(u, id, '?per_page=1')).signals[0] as Json;
  const q = async (text: string, params: unknown[] = []) => t.ctx.database.sql.query(text, params);
  const orderCount = async (botId: string) =>
    Number((await q('SELECT count(*)::int AS n FROM bot_orders WHERE bot_id = $1', [botId]))[0]?.n ?? 0);
  const view = async (u: User, id: string) => {
    const r = await call(u, 'GET', '/api/signalbot/bots');
    return (r.body.bots as Json[]).find((b) => b.id === id)!;
  };

  // Bots: alice BTC/USDT trades; alice ETH/USDT takes the rejections; bob ETH/USDT the rate limit.
  let btc: { id: string; secret: string; url: string };
  let eth: { id: string; secret: string };

  beforeAll(async () => {
    database = await openTestDatabase();
    t = await makeTestApp({ BOT_RUNNER: '1', SIMULATOR_CONTROL: '1' }, { database });
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
    await setPrice('BTC/USDT', 100_000);
    await setPrice('ETH/USDT', 3_000);
  });
  afterAll(async () => {
    await t?.close();
    await database?.close();
  });

  it('refuses a bad create with the message naming the field', async () => {
    const cases: [Json, number, string][] = [
      [{ exchange: '' }, 400, SIGNAL_MESSAGES.noExchange],
      [{ symbol: ' ' }, 400, SIGNAL_MESSAGES.noSymbol],
      [{ amount: 'abc' }, 400, SIGNAL_MESSAGES.badAmount],
      [{ amount: -1 }, 400, SIGNAL_MESSAGES.badAmount],
      [{ max_position: 0 }, 400, SIGNAL_MESSAGES.badMaxPosition],
      [{ amount: 300 }, 400, 'Amount per signal (300) must not exceed the max position (250).'],
      [{ amount: 2e9, max_position: 3e9 }, 400, 'Amount per signal must be at most 1000000000.'],
      [{ exchange: 'kraken' }, 400, SIGNAL_MESSAGES.notConnected],
      [{ exchange: 'nope' }, 400, SIGNAL_MESSAGES.notConnected],
      [{ symbol: 'NOPE/USDT' }, 400, 'NOPE/USDT is not available on Binance.'],
      // Binance's minimum is 5 USDT, plus one amount step (0.00001 BTC × 100,000 = 1 USDT) lost to rounding.
      [
        { amount: 2 },
        400,
        'Amount per signal must be at least 6 USDT: the smallest order BTC/USDT accepts on Binance costs 6 USDT.',
      ],
    ];
    for (const [over, status, message] of cases) {
      const r = await create(alice, over);
      expect(r.status, JSON.stringify(over)).toBe(status);
      expect(r.body.success).toBe(false);
      expect(r.body.error).toBe(message);
    }
    expect((await call(null, 'POST', '/api/signalbot/bots', {})).status).toBe(401);
  });

  it('creates bots with a webhook URL and secret (answered once), lists them, rotates the secret', async () => {
    const r = await create(alice);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ success: true, message: SIGNAL_MESSAGES.created });
    expect(r.body.secret).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 random bytes, base64url
    expect(r.body.webhook_url).toMatch(new RegExp(`/api/signalbot/webhook/${r.body.id}$`));
    expect(r.body.bot).toMatchObject({
      id: r.body.id,
      exchange: EX,
      symbol: 'BTC/USDT',
      amount: 100,
      max_position: 250,
      status: 'active',
      position_qty: 0,
      pnl_realized: 0,
      signals_accepted: 0,
    });
    btc = { id: r.body.id, secret: r.body.secret, url: r.body.webhook_url };
    const again = await create(alice);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('A signal bot is already active for BTC/USDT on binance.');

    const e = await create(alice, { symbol: 'ETH/USDT', amount: 50, max_position: 100 });
    expect(e.status, JSON.stringify(e.body)).toBe(200);
    eth = { id: e.body.id, secret: e.body.secret };

    const list = await call(alice, 'GET', '/api/signalbot/bots');
    expect(list.status).toBe(200);
    expect((list.body.bots as Json[]).map((b) => b.id)).toEqual([btc.id, eth.id]);
    expect((await call(bob, 'GET', '/api/signalbot/bots')).body.bots).toEqual([]);

    // No call reads the secret back (issue 37 point 9); another user's bot is a 404 (its existence is
    // not told).
    expect((await call(alice, 'GET', `/api/signalbot/bots/${eth.id}/secret`)).status).toBe(404);
    expect(JSON.stringify(list.body)).not.toContain(eth.secret);
    expect((await call(bob, 'POST', `/api/signalbot/bots/${eth.id}/secret`)).status).toBe(404);
    expect((await call(bob, 'GET', `/api/signalbot/bots/${eth.id}/signals`)).status).toBe(404);
    expect((await call(bob, 'POST', `/api/signalbot/bots/${eth.id}/stop`, {})).status).toBe(404);
    expect((await call(null, 'POST', `/api/signalbot/bots/${eth.id}/secret`)).status).toBe(401);
    expect((await call(alice, 'POST', `/api/signalbot/bots/${randomUUID()}/secret`)).status).toBe(404);
    // Only the secret's SHA-256 is stored.
    const [stored] = await q('SELECT secret_hash, secret_enc FROM signal_bots WHERE bot_id = $1', [eth.id]);
    expect(stored?.secret_hash).toBe(createHash('sha256').update(eth.secret).digest('hex'));
    expect(stored?.secret_enc).toBeNull();

    const rotated = await call(alice, 'POST', `/api/signalbot/bots/${eth.id}/secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(eth.secret);
    const old = await hook(eth.id, { secret: eth.secret, action: 'buy', symbol: 'ETH/USDT' });
    expect(old.status).toBe(401);
    expect(old.body.error).toBe('wrong_secret');
    eth.secret = rotated.body.secret;
    expect((await view(alice, eth.id)).secret_rotated_reason).toBe('user');
  });

  it('rejects each bad signal with a 4xx and logs it with the reason, without the secret', async () => {
    const ok = { secret: eth.secret, action: 'buy', symbol: 'ETH/USDT' };
    const before = Number((await q('SELECT count(*)::int AS n FROM signal_events'))[0]?.n);
    // Unknown bot: nowhere to log.
    expect((await hook(randomUUID(), ok)).status).toBe(404);
    expect((await hook('not-a-bot', ok)).status).toBe(404);
    expect(Number((await q('SELECT count(*)::int AS n FROM signal_events'))[0]?.n)).toBe(before);

    const cases: [string, unknown, { raw?: string; type?: string }, number, string][] = [
      ['wrong secret', { ...ok, secret: 'x'.repeat(43) }, {}, 401, 'wrong_secret'],
      ['no secret', { action: 'buy', symbol: 'ETH/USDT' }, {}, 401, 'wrong_secret'],
      ['other symbol', { ...ok, symbol: 'BTC/USDT' }, {}, 400, 'wrong_symbol'],
      ['over max position', { ...ok, amount: 150 }, {}, 400, 'over_max_position'],
      ['bad amount', { ...ok, amount: 'lots' }, {}, 400, 'bad_amount'],
      ['malformed JSON', null, { raw: '{"secret": "abc", "action": ' }, 400, 'malformed'],
      ['not an object', null, { raw: '["buy"]' }, 400, 'malformed'],
      ['empty body', null, { raw: '' }, 400, 'malformed'],
      [
        'form body',
        null,
        { raw: 'secret=x&action=buy', type: 'application/x-www-form-urlencoded' },
        400,
        'malformed',
      ],
      ['no content type', null, { raw: 'buy', type: '' }, 400, 'malformed'],
      ['control character', { ...ok, id: 'a\u0000b' }, {}, 400, 'malformed'],
      ['bad action', { ...ok, action: 'hold' }, {}, 400, 'bad_action'],
      ['action not text', { ...ok, action: 5 }, {}, 400, 'malformed'],
      [
        'over-large body',
        null,
        { raw: JSON.stringify({ ...ok, note: 'x'.repeat(SIGNAL_LIMITS.bodyBytes) }) },
        413,
        'too_large',
      ],
    ];
    for (const [what, body, opts, status, reason] of cases) {
      const r = await hook(eth.id, body, opts);
      expect(r.status, what).toBe(status);
      expect(r.body, what).toMatchObject({ success: false, error: reason });
      const row = await newest(alice, eth.id);
      expect(row, what).toMatchObject({ status: 'rejected', reason, seq: null, source_ip: '127.0.0.1' });
      expect(row.reason_text, what).toBe(r.body.message);
      expect(JSON.stringify(row), what).not.toContain(eth.secret);
      if (row.payload) expect(row.payload.secret, what).toBeUndefined();
    }
    const rows = (await log(alice, eth.id, '?per_page=100')).signals as Json[];
    const bad = rows.find((r) => r.reason === 'wrong_symbol')!;
    expect(bad.payload).toEqual({ action: 'buy', symbol: 'BTC/USDT' });
    expect(bad.reason_text).toBe("Symbol BTC/USDT is not this bot's (ETH/USDT).");
    expect(rows.find((r) => r.reason === 'over_max_position')!.reason_text).toBe(
      'Amount 150 is over the max position (100).',
    );
    const notJson = rows.find(
      (r) => r.reason_text === 'The body is not valid JSON or lacks a field: the body is not valid JSON',
    )!;
    expect(notJson.payload).toBeNull();
    // No order came of any of them.
    expect(await orderCount(eth.id)).toBe(0);
    expect((await view(alice, eth.id)).signals_rejected).toBe(rows.length);
  });

  it('accepts TradingView-style text/plain bodies and symbols (BINANCE:ETHUSDT), buys, then refuses once stopped', async () => {
    // 50 USDT at 3,000: 50 / 3,000 = 0.016666… ETH, floored to the amount step (0.0001) = 0.0166,
    // filled at the ask 3,000.3.
    const r = await hook(eth.id, null, {
      raw: JSON.stringify({ secret: eth.secret, action: 'BUY', symbol: 'BINANCE:ETHUSDT', id: 'tv-1' }),
      type: 'text/plain; charset=utf-8',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ success: true, status: 'executed', seq: 1 });
    const row = await newest(alice, eth.id);
    expect(row).toMatchObject({ status: 'executed', seq: 1, reason: null });
    expect(row.orders).toHaveLength(1);
    expect(row.orders[0]).toMatchObject({ side: 'buy', status: 'filled' });
    expect(row.orders[0].price).toBeCloseTo(3_000.3, 6);
    expect(row.orders[0].amount).toBeCloseTo(0.0166, 12); // ETH's amount step is 0.0001

    // A second buy would take the position over 100 USDT (50 + 50 is not over; 50 + 60 is).
    const more = await hook(eth.id, { secret: eth.secret, action: 'buy', symbol: 'ETH/USDT', amount: 60 });
    expect(more.status).toBe(200);
    expect(more.body).toMatchObject({ success: true, status: 'skipped', error: 'max_position' });
    expect((await newest(alice, eth.id)).reason).toBe('max_position');
    expect(await orderCount(eth.id)).toBe(1);

    const stop = await call(alice, 'POST', `/api/signalbot/bots/${eth.id}/stop`, { keep_assets: true });
    expect(stop.status, JSON.stringify(stop.body)).toBe(200);
    expect(stop.body).toEqual({ success: true, message: SIGNAL_MESSAGES.stoppedKeepAssets });
    const stopped = await hook(eth.id, { secret: eth.secret, action: 'sell', symbol: 'ETH/USDT' });
    expect(stopped.status).toBe(409);
    expect(stopped.body.error).toBe('bot_stopped');
    expect((await newest(alice, eth.id)).reason).toBe('bot_stopped');
    // Kept: the position is still there; the list shows the stopped bot after the active one.
    const v = await view(alice, eth.id);
    expect(v.status).toBe('stopped');
    expect(v.position_qty).toBeGreaterThan(0);
    expect((await call(alice, 'POST', `/api/signalbot/bots/${eth.id}/stop`, {})).body.message).toBe(
      SIGNAL_MESSAGES.alreadyStopped,
    );
  });

  it('limits authenticated signals per bot: 429 with Retry-After, logged', async () => {
    const r = await create(bob, { symbol: 'ETH/USDT', amount: 20, max_position: 100 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = r.body.id as string;
    // Right secret, wrong symbol: authenticated, so each counts toward the bot's limit; nothing trades.
    for (let i = 0; i < SIGNAL_LIMITS.ratePerMinute; i++) {
      const w = await hook(id, { secret: r.body.secret, action: 'buy', symbol: 'BTC/USDT' });
      expect(w.status).toBe(400);
    }
    // The bot has had its 30 signals this minute.
    const limited = await hook(id, { secret: r.body.secret, action: 'buy', symbol: 'ETH/USDT', id: 'x' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(limited.body.error).toBe('rate_limited');
    expect(await newest(bob, id)).toMatchObject({ status: 'rejected', reason: 'rate_limited' });
    // The rest of a flood is refused without a row each.
    expect((await hook(id, { secret: r.body.secret, action: 'buy', symbol: 'ETH/USDT' })).status).toBe(429);
    const all = await log(bob, id, '?per_page=100');
    expect(all.total).toBe(SIGNAL_LIMITS.ratePerMinute + 1);
    expect(await orderCount(id)).toBe(0);
  });

  it('trades a duplicate id once, also under concurrent duplicates', async () => {
    const signal = { secret: btc.secret, action: 'buy', symbol: 'BTC/USDT', amount: 10, id: 'dup-1' };
    const first = await hook(btc.id, signal);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ success: true, status: 'executed' });
    const again = await hook(btc.id, signal);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ success: true, duplicate: true });
    expect(await orderCount(btc.id)).toBe(1);
    expect(await newest(alice, btc.id)).toMatchObject({ status: 'duplicate', seq: null, orders: [] });

    const burst = await Promise.all(
      Array.from({ length: 5 }, () => hook(btc.id, { ...signal, id: 'dup-2' })),
    );
    expect(burst.every((b) => b.status === 200)).toBe(true);
    expect(burst.filter((b) => b.body.duplicate === true)).toHaveLength(4);
    expect(burst.filter((b) => b.body.status === 'executed')).toHaveLength(1);
    expect(await orderCount(btc.id)).toBe(2);
    const recorded = await q(
      "SELECT count(*)::int AS n FROM signal_events WHERE bot_id = $1 AND signal_key = 'dup-2' AND seq IS NOT NULL",
      [btc.id],
    );
    expect(recorded[0]?.n).toBe(1);

    // Close both small buys, so the next test starts flat.
    const close = await hook(btc.id, {
      secret: btc.secret,
      action: 'close',
      symbol: 'BTC/USDT',
      id: 'dup-close',
    });
    expect(close.body).toMatchObject({ success: true, status: 'executed' });
    expect((await view(alice, btc.id)).position_qty).toBe(0);
  });

  it('a buy then a close move the position and the PnL (paper fills)', async () => {
    const pnl0 = (await view(alice, btc.id)).pnl_realized as number;
    // Buy 100 USDT at 100,000: 100 / 100,000 = 0.001 BTC, filled at the ask 100,010 (0.01 % above):
    // cost 0.001 × 100,010 = 100.01, fee 0.1 % = 0.10001. Break-even entry (100.01 + 0.10001) / 0.001
    // = 100,110.01.
    const buy = await hook(btc.id, { secret: btc.secret, action: 'buy', symbol: 'BTC/USDT', id: 'pnl-buy' });
    expect(buy.body).toMatchObject({ success: true, status: 'executed' });
    let v = await view(alice, btc.id);
    expect(v.position_qty).toBeCloseTo(0.001, 12);
    expect(v.avg_entry).toBeCloseTo(100_110.01, 6);
    // At 100,000 the position is worth 100; unrealized = 100 − 100.01 − 0.10001 = −0.11001.
    expect(v.position_value).toBeCloseTo(100, 6);
    expect(v.pnl_unrealized).toBeCloseTo(-0.11001, 6);

    // The price rises to 110,000; close sells 0.001 at the bid 109,989 (0.01 % below): 109.989,
    // fee 0.109989. PnL = 109.989 − 100.01 − 0.10001 − 0.109989 = 9.769001.
    await setPrice('BTC/USDT', 110_000);
    await until(async () => {
      const s = t.ctx.services.market ? await t.ctx.services.market.ticker(EX, 'BTC/USDT') : null;
      return s && s.last === 110_000;
    });
    // The running bot hears the tick (its last price sizes nothing for a close, but the log shows it).
    const close = await hook(btc.id, {
      secret: btc.secret,
      action: 'close',
      symbol: 'BTC/USDT',
      id: 'pnl-close',
    });
    expect(close.body).toMatchObject({ success: true, status: 'executed' });
    const row = await newest(alice, btc.id);
    expect(row.orders[0]).toMatchObject({ side: 'sell', status: 'filled' });
    expect(row.orders[0].amount).toBeCloseTo(0.001, 12);
    expect(row.orders[0].price).toBeCloseTo(109_989, 6);
    v = await view(alice, btc.id);
    expect(v.position_qty).toBe(0);
    expect(v.pnl_realized - pnl0).toBeCloseTo(9.769001, 6);
    const [trade] = await q(
      "SELECT pnl_net, qty FROM bot_trades WHERE bot_id = $1 AND lot_key = 'sig-' || $2",
      [btc.id, String(row.seq)],
    );
    expect(Number(trade?.pnl_net)).toBeCloseTo(9.769001, 6);
    await setPrice('BTC/USDT', 100_000);
  });

  it('pages the log newest first', async () => {
    const all = await log(alice, btc.id, '?per_page=100');
    const ids = (all.signals as Json[]).map((s) => Number(s.id));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const total = all.total as number;
    expect(total).toBe(ids.length);
    const p1 = await log(alice, btc.id, '?page=1&per_page=3');
    const p2 = await log(alice, btc.id, '?page=2&per_page=3');
    expect(p1).toMatchObject({ page: 1, per_page: 3, total, pages: Math.ceil(total / 3) });
    expect((p1.signals as Json[]).map((s) => Number(s.id))).toEqual(ids.slice(0, 3));
    expect((p2.signals as Json[]).map((s) => Number(s.id))).toEqual(ids.slice(3, 6));
    // Past the end: the last page.
    const last = await log(alice, btc.id, '?page=999&per_page=3');
    expect(last.page).toBe(Math.ceil(total / 3));
    expect((await call(alice, 'GET', `/api/signalbot/bots/${btc.id}/signals?per_page=1000`)).status).toBe(
      400,
    );
  });

  it('executes once a signal recorded before a restart, and never twice one already executed', async () => {
    const orders0 = await orderCount(btc.id);
    // A crash after the record, before the execution: the row is `accepted` with the next seq.
    const [b] = await q(
      'UPDATE signal_bots SET last_seq = last_seq + 1 WHERE bot_id = $1 RETURNING last_seq',
      [btc.id],
    );
    const seq = Number(b?.last_seq);
    await q(
      `INSERT INTO signal_events (bot_id, seq, signal_key, source_ip, payload, action, amount, status)
       VALUES ($1, $2, 'restart-1', '127.0.0.1', $3, 'buy', '20', 'accepted')`,
      [btc.id, seq, JSON.stringify({ action: 'buy', symbol: 'BTC/USDT', amount: 20, id: 'restart-1' })],
    );
    // A crash after the execution, before the mark: an executed row back to `accepted`.
    const [done] = await q(
      "SELECT id, seq FROM signal_events WHERE bot_id = $1 AND signal_key = 'pnl-buy' AND seq IS NOT NULL",
      [btc.id],
    );
    await q("UPDATE signal_events SET status = 'accepted' WHERE id = $1", [done?.id]);

    await t.close();
    t = await makeTestApp({ BOT_RUNNER: '1', SIMULATOR_CONTROL: '1' }, { database });
    const row = await until(async () => {
      const [r] = await q(
        "SELECT status, orders FROM signal_events WHERE bot_id = $1 AND signal_key = 'restart-1'",
        [btc.id],
      );
      return r && r.status !== 'accepted' ? r : null;
    });
    expect(row.status).toBe('executed');
    expect(row.orders as Json[]).toHaveLength(1);
    const replayed = await until(async () => {
      const [r] = await q('SELECT status, orders FROM signal_events WHERE id = $1', [done?.id]);
      return r && r.status !== 'accepted' ? r : null;
    });
    // The strategy's lastSeq made the second feed a no-op; the row gets its first orders back.
    expect(replayed.status).toBe('executed');
    expect((replayed.orders as Json[])[0]?.side).toBe('buy');
    expect(await orderCount(btc.id)).toBe(orders0 + 1);
    // 20 USDT at 100,000 = 0.0002 BTC.
    expect((await view(alice, btc.id)).position_qty).toBeCloseTo(0.0002, 12);
    // The same id again after the restart: a duplicate.
    const dup = await hook(btc.id, {
      secret: btc.secret,
      action: 'buy',
      symbol: 'BTC/USDT',
      id: 'restart-1',
    });
    expect(dup.body).toMatchObject({ success: true, duplicate: true });
    expect(await orderCount(btc.id)).toBe(orders0 + 1);

    // Stop selling the position at market.
    const stop = await call(alice, 'POST', `/api/signalbot/bots/${btc.id}/stop`, {});
    expect(stop.status, JSON.stringify(stop.body)).toBe(200);
    expect(stop.body.message).toBe(SIGNAL_MESSAGES.stopped);
    const v = await view(alice, btc.id);
    expect(v.status).toBe('stopped');
    expect(v.position_qty).toBe(0);
  });
});
