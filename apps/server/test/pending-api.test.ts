/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- JSON answers read loosely */
import { DUST, PENDING_COMPLETED_DAYS, PENDING_MESSAGES } from '@bytx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PendingRepository } from '../src/modules/bots/pending/repository';
import { untilSettled, until as waitFor } from './bots.helpers';
import { createTestUser, makeTestApp, type TestApp } from './helpers';

type User = Awaited<ReturnType<typeof createTestUser>>;
type Json = Record<string, any>;

const EX = 'binance';
const SYM = 'BTC/USDT';
const until = <T>(fn: () => Promise<T | null | undefined | false>) => waitFor(fn, 10_000);

/**
 * Pending orders (open lots) and their actions, spec part 2 §7 (issue 13): every call with good
 * input, each bad input with its message, another user's ids, a deleted id twice, and the money of
 * add funds and sell checked against the orders journal.
 */
describe('pending orders and their actions on a paper account', () => {
  let t: TestApp;
  let alice: User;
  let bob: User;
  let botId = '';

  const call = async (user: User | null, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) => {
    const res = await t.app.inject({
      method,
      url,
      headers: user ? user.auth : {},
      ...(body === undefined ? {} : { payload: body as Json }),
    });
    return { status: res.statusCode, body: res.json<Json>() };
  };
  const sql = (text: string, params?: unknown[]) => t.ctx.database.sql.query(text, params);
  const setPrice = async (symbol: string, price: number) => {
    const r = await call(null, 'POST', '/api/dev/market/price', { exchange: EX, symbol, price });
    expect(r.status).toBe(200);
  };
  const list = async (u: User, extra = '') =>
    (await call(u, 'GET', `/api/dca/pending_orders?user_id=${u.email}&per_page=200${extra}`)).body;
  const open = async (u: User) => ((await list(u)).orders as Json[]).filter((o) => o.status === 'open');
  const balances = async (u: User) => {
    const [row] = await sql(`SELECT balances FROM paper_accounts WHERE user_id = $1 AND exchange = $2`, [
      u.id,
      EX,
    ]);
    const b = row!.balances as Record<string, { free: number; used: number }>;
    return { btc: (b.BTC?.free ?? 0) + (b.BTC?.used ?? 0), usdt: (b.USDT?.free ?? 0) + (b.USDT?.used ?? 0) };
  };
  const order = async (role: string) =>
    (
      await sql(`SELECT * FROM bot_orders WHERE bot_id = $1 AND role = $2 ORDER BY created_at DESC`, [
        botId,
        role,
      ])
    )[0];
  const events = async () =>
    ((await call(alice, 'GET', `/api/bots/${botId}/events?limit=200`)).body.events as Json[]).map(
      (e) => e.code as string,
    );

  beforeAll(async () => {
    t = await makeTestApp({ BOT_RUNNER: '1', SIMULATOR_CONTROL: '1' });
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
    await setPrice(SYM, 100_000);
    await setPrice('ETH/USDT', 3_000);
    const r = await call(alice, 'POST', '/api/start_bot_dca', {
      symbol: SYM,
      amount: '20',
      tp: '1',
      separacion: '1',
      os: '3',
      exchange: EX,
      user_id: alice.email,
      apartado: 'Spot',
    });
    expect(r.status).toBe(200);
    botId = r.body.bot.id as string;
  });
  afterAll(async () => t?.close());

  it('lists the open lot of the entry buy with its figures', async () => {
    const lots = await until(async () => {
      const o = await open(alice);
      return o.length === 1 ? o : null;
    });
    const lot = lots[0]!;
    const buy = (await order('entry'))!;
    // 20 USDT at ≈ 100,000: qty = the entry order's fill; entry = its average fill price.
    expect(lot).toMatchObject({
      bot_id: botId,
      kind: 'grid-dca',
      exchange: EX,
      symbol: SYM,
      quote: 'USDT',
      status: 'open',
      tp_pct: 1,
      auto_fund: false,
      auto_fund_steps: 0,
      busy: null,
      closed_at: null,
    });
    expect(lot.qty).toBeCloseTo(Number(buy.filled), 12);
    expect(lot.entry_price).toBeCloseTo(Number(buy.avg_price), 6);
    expect(lot.limit_price).toBeCloseTo(lot.entry_price * 1.01, 0);
    // Drawdown = (price − entry) ÷ entry: the entry paid the ask just above 100,000.
    expect(lot.drawdown_pct).toBeCloseTo(((100_000 - lot.entry_price) / lot.entry_price) * 100, 3);
    expect(lot.result).toBeCloseTo((100_000 - lot.entry_price) * lot.qty, 6);
    // Bob sees none of Alice's.
    expect(await open(bob)).toEqual([]);
  });

  it('refuses bad add-funds amounts with the spec message and changes nothing', async () => {
    const [lot] = await open(alice);
    const before = await balances(alice);
    for (const amount of ['12.5', '12345', '0', '0000', 'abc', '', -5, 1.5, 10000, null, '1e3', ' 12 x']) {
      const r = await call(alice, 'POST', '/api/dca/pending_orders/add_funds', {
        user_id: alice.email,
        id: lot!.id,
        amount_quote: amount,
      });
      expect(r.status, JSON.stringify(amount)).toBe(400);
      expect(r.body.error, JSON.stringify(amount)).toBe(PENDING_MESSAGES.badAmount);
    }
    const missing = await call(alice, 'POST', '/api/dca/pending_orders/add_funds', { amount_quote: '10' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/id/);
    // Below the pair's minimum cost (5 USDT on the simulated Binance): the spec's minimum message.
    const tiny = await call(alice, 'POST', '/api/dca/pending_orders/add_funds', {
      id: lot!.id,
      amount_quote: '1',
    });
    expect(tiny.status).toBe(400);
    expect(tiny.body.error).toMatch(/^Monto insuficiente\. El mínimo para BTC\/USDT es ≈/);
    expect(await balances(alice)).toEqual(before);
    expect((await open(alice))[0]!.qty).toBe(lot!.qty);
  });

  it('adds funds: one market buy merged into the lot, new average entry, TP re-placed at average × 1.01', async () => {
    const [lot] = await open(alice);
    const tpBefore = (await order('take_profit'))!;
    await setPrice(SYM, 99_500); // above the first ladder level (99,000): no ladder buy fills
    const r = await call(alice, 'POST', '/api/dca/pending_orders/add_funds', {
      user_id: alice.email,
      id: lot!.id,
      amount_quote: '30',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ success: true, message: PENDING_MESSAGES.fundsAdded });
    const add = (await order('add_funds'))!;
    expect(add).toMatchObject({ side: 'buy', type: 'market', status: 'filled' });
    // 30 USDT at ≈ 99,500 → q2 = 30 / 99,500 ≈ 0.000301 BTC (rounded down to the amount step), bought
    // at p2 (the ask). New entry = (q1·p1 + q2·p2) ÷ (q1 + q2): with q1 ≈ 0.0002 at ≈ 100,000 that is
    // ≈ 99,700 — below the first entry, so the take profit moves down with it.
    const q1 = lot!.qty as number;
    const p1 = lot!.entry_price as number;
    const q2 = Number(add.filled);
    const p2 = Number(add.avg_price);
    const entry = (q1 * p1 + q2 * p2) / (q1 + q2);
    const after = await until(async () => {
      const o = (await open(alice)).find((x) => x.id === lot!.id);
      return o && o.busy === null && Math.abs(o.limit_price - entry * 1.01) < 1 ? o : null;
    });
    expect(after.qty).toBeCloseTo(q1 + q2, 12);
    expect(after.entry_price).toBeCloseTo(entry, 4);
    expect(after.entry_price).toBeLessThan(p1);
    expect(r.body.row.id).toBe(lot!.id);
    // The old TP was cancelled and a new one placed for the whole new quantity.
    const tps = await sql(
      `SELECT status, amount, price FROM bot_orders WHERE bot_id = $1 AND role = 'take_profit' ORDER BY created_at`,
      [botId],
    );
    expect(tps.find((o) => o.client_order_id === tpBefore.client_order_id)?.status ?? 'cancelled').toBe(
      'cancelled',
    );
    const live = tps.filter((o) => o.status === 'open');
    expect(live).toHaveLength(1);
    expect(Number(live[0]!.amount)).toBeCloseTo(q1 + q2, 8);
    expect(Number(live[0]!.price)).toBeCloseTo(entry * 1.01, 0);
    expect(await events()).toContain('lot_funds_added');
  });

  it('drawdowns: by id from the shared price, refresh only for the user’s own ids', async () => {
    const [lot] = await open(alice);
    const all = await call(alice, 'GET', `/api/pending/drawdowns?user_id=${alice.email}`);
    expect(all.status).toBe(200);
    const pct = ((99_500 - lot!.entry_price) / lot!.entry_price) * 100;
    expect(all.body.by_id[lot!.id].pct).toBeCloseTo(pct, 3);
    expect(all.body.by_id[lot!.id].enabled).toBe(false);
    const some = await call(alice, 'POST', '/api/pending/drawdowns/refresh', {
      user_id: alice.email,
      ids: [lot!.id, 'bnope-1'],
    });
    expect(some.status).toBe(200);
    expect(Object.keys(some.body.by_id)).toEqual([lot!.id]);
    const theirs = await call(bob, 'POST', '/api/pending/drawdowns/refresh', { ids: [lot!.id] });
    expect(theirs.body.by_id).toEqual({});
    for (const bad of [{ ids: 'x' }, { ids: ['a b'] }, {}]) {
      const r = await call(alice, 'POST', '/api/pending/drawdowns/refresh', bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
    }
  });

  it('auto-fund: toggled per lot; at −10 % from the first entry the bot adds its own amount once', async () => {
    const [lot] = await open(alice);
    for (const bad of [{ id: lot!.id, enabled: 'maybe' }, { id: lot!.id }, { enabled: true }]) {
      const r = await call(alice, 'POST', '/api/pending/auto_fund/toggle', bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
    }
    expect(
      (await call(bob, 'POST', '/api/pending/auto_fund/toggle', { id: lot!.id, enabled: true })).status,
    ).toBe(404);
    const on = await call(alice, 'POST', '/api/pending/auto_fund/toggle', {
      user_id: alice.email,
      id: lot!.id,
      enabled: true,
    });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body).toEqual({ success: true, enabled: true });
    const dd = await call(alice, 'GET', `/api/pending/drawdowns`);
    expect(dd.body.by_id[lot!.id].enabled).toBe(true);
    expect((await open(alice)).find((o) => o.id === lot!.id)!.auto_fund).toBe(true);
    // 10 % below the lot's first entry (≈ 100,000 → ≈ 90,000): step 1 buys the bot's 20 USDT into it.
    const first = (await order('entry'))!;
    const trigger = Number(first.avg_price) * 0.9;
    const qtyBefore = (await open(alice)).find((o) => o.id === lot!.id)!.qty as number;
    await setPrice(SYM, Math.floor(trigger - 50));
    const funded = await until(async () => {
      const o = (await open(alice)).find((x) => x.id === lot!.id);
      return o && o.auto_fund_steps === 1 && o.busy === null ? o : null;
    });
    expect(funded.qty).toBeGreaterThan(qtyBefore);
    const autoBuy = (await order('add_funds'))!;
    expect(Number(autoBuy.filled) * Number(autoBuy.avg_price)).toBeCloseTo(20, 0);
    expect(await events()).toContain('auto_fund');
    const off = await call(alice, 'POST', '/api/pending/auto_fund/toggle', { id: lot!.id, enabled: 'false' });
    expect(off.body).toEqual({ success: true, enabled: false });
  });

  it('sells a lot at market: TP cancelled, one history row, the lot completed; a second sell is refused', async () => {
    const [lot] = await open(alice);
    const before = await balances(alice);
    const r = await call(alice, 'POST', '/api/dca/pending_orders/sell', {
      user_id: alice.email,
      id: lot!.id,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.message).toBe(PENDING_MESSAGES.sold);
    const sale = await until(async () => {
      const [row] = await sql(`SELECT * FROM bot_trades WHERE bot_id = $1 AND lot_id = $2`, [botId, lot!.id]);
      return row;
    });
    const close = (await order('close'))!;
    expect(close).toMatchObject({ side: 'sell', type: 'market', status: 'filled' });
    // The whole lot sold: qty, the sell at the bid just under 99,500; pnl_net = qty × (sell − entry)
    // − buy fees − sell fee (all the lot's fees, so it is below the gross difference).
    expect(Number(sale.qty)).toBeCloseTo(lot!.qty, 12);
    expect(Number(sale.sell_price)).toBeCloseTo(Number(close.avg_price), 6);
    const gross = lot!.qty * (Number(close.avg_price) - lot!.entry_price);
    expect(Number(sale.pnl_net)).toBeLessThan(gross);
    expect(Number(sale.pnl_net)).toBeGreaterThan(gross - 0.2);
    const after = await balances(alice);
    expect(after.btc).toBeCloseTo(before.btc - lot!.qty, 10);
    expect(after.usdt - before.usdt).toBeCloseTo(
      Number(close.filled) * Number(close.avg_price) - Number(close.fee),
      6,
    );
    if (r.body.row) expect(r.body.row).toMatchObject({ id: lot!.id, status: 'completed' });
    expect((await open(alice)).find((o) => o.id === lot!.id)).toBeUndefined();
    // Completed rows: listed with status=all/completed, with their result and the Completed PnL.
    const done = await list(alice, '&status=completed');
    const row = (done.orders as Json[]).find((o) => o.id === lot!.id)!;
    expect(row).toMatchObject({ status: 'completed', bot_id: botId, kind: 'grid-dca' });
    expect(row.result).toBeCloseTo(Number(sale.pnl_net), 8);
    expect(done.summary.completed_pnl).toBeCloseTo(
      (done.orders as Json[]).reduce((s, o) => s + (o.result as number), 0),
      8,
    );
    // Completed orders cannot be sold, funded or deleted.
    const again = await call(alice, 'POST', '/api/dca/pending_orders/sell', { id: lot!.id });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe(PENDING_MESSAGES.completed);
    const fund = await call(alice, 'POST', '/api/dca/pending_orders/add_funds', {
      id: lot!.id,
      amount_quote: 10,
    });
    expect(fund.status).toBe(409);
    expect(fund.body.error).toBe(PENDING_MESSAGES.completed);
    // ...nor deleted or switched to auto-fund (issue 37 point 19): 409 with the same clear text.
    const del = await call(alice, 'DELETE', `/api/dca/pending_orders/${encodeURIComponent(lot!.id)}`);
    expect(del.status).toBe(409);
    expect(del.body.error).toBe(PENDING_MESSAGES.completed);
    const auto = await call(alice, 'POST', '/api/pending/auto_fund/toggle', { id: lot!.id, enabled: true });
    expect(auto.status).toBe(409);
    expect(auto.body.error).toBe(PENDING_MESSAGES.completed);
    // The completed row is unchanged by the refused actions.
    const kept = ((await list(alice, '&status=completed')).orders as Json[]).find((o) => o.id === lot!.id)!;
    expect(kept).toMatchObject({ status: 'completed', result: row.result });
    expect(await events()).toContain('lot_closed');
  });

  it('deletes a lot: TP cancelled, assets stay, its level is bought again; a second delete is a 404', async () => {
    // The bot re-enters after the sale; a drop fills the first ladder level.
    await setPrice(SYM, 100_000);
    await setPrice(SYM, 98_950);
    // Settled: a lower ladder level bought in the same move must not land between `before` and `after`.
    const { lots, before } = await untilSettled(async () => {
      const o = await open(alice);
      return o.length >= 1 && o.every((x) => x.busy === null)
        ? { lots: o, before: await balances(alice) }
        : null;
    });
    const lot = lots.sort((a, b) => a.entry_price - b.entry_price)[0]!;
    expect((await call(bob, 'DELETE', `/api/dca/pending_orders/${lot.id}?user_id=${bob.email}`)).status).toBe(
      404,
    );
    const r = await call(alice, 'DELETE', `/api/dca/pending_orders/${lot.id}?user_id=${alice.email}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ success: true, message: PENDING_MESSAGES.deleted });
    expect((await open(alice)).find((o) => o.id === lot.id)).toBeUndefined();
    // No sale: the base stays on the account (only the TP's reservation was released).
    const after = await balances(alice);
    expect(after.btc).toBeCloseTo(before.btc, 12);
    expect(await events()).toContain('lot_forgotten');
    // Its level is free again: once the price is back above it, the bot waits there with a buy again,
    // and the next fall through it opens a new lot at that level's price.
    await setPrice(SYM, 99_300);
    await until(async () => {
      const [b] = (await call(alice, 'GET', `/api/bots_activos_dca`)).body.bots as Json[];
      return (b?.waiting_buys ?? 0) > 0;
    });
    await setPrice(SYM, 98_950);
    const rebought = await until(async () =>
      (await open(alice)).find((o) => o.id !== lot.id && Math.abs(o.entry_price - lot.entry_price) < 150),
    );
    expect(rebought.status).toBe('open');
    const twice = await call(alice, 'DELETE', `/api/dca/pending_orders/${lot.id}?user_id=${alice.email}`);
    expect(twice.status).toBe(404);
    expect(twice.body.error).toBe(PENDING_MESSAGES.notFound);
    expect((await call(alice, 'DELETE', `/api/dca/pending_orders/not%20an%20id`)).status).toBe(400);
  });

  it('lists by bot, pair and status, pages, and validates the query', async () => {
    const byBot = await call(alice, 'GET', `/api/dca/pending_orders?bot_id=${botId}&status=all&per_page=1`);
    expect(byBot.status).toBe(200);
    expect(byBot.body.orders).toHaveLength(1);
    expect(byBot.body.pages).toBe(byBot.body.total);
    const byPair = await call(alice, 'GET', `/api/dca/pending_orders?exchange=${EX}&symbol=ETH/USDT`);
    expect(byPair.body.orders).toEqual([]);
    expect((await call(bob, 'GET', `/api/dca/pending_orders?bot_id=${botId}`)).status).toBe(404);
    for (const q of ['status=closed', 'per_page=500', 'page=0', 'bot_id=nope']) {
      const r = await call(alice, 'GET', `/api/dca/pending_orders?${q}`);
      expect(r.status, q).toBe(400);
    }
    expect((await call(null, 'GET', `/api/dca/pending_orders`)).status).toBe(401);
  });

  it('a classic DCA bot: its position is one pending order; add funds and sell act on it', async () => {
    await setPrice('ETH/USDT', 3_000);
    const r = await call(bob, 'POST', '/api/start_bot', {
      symbol: 'ETH/USDT',
      amount: '20',
      tp: '1',
      separacion: '1',
      os: '2',
      exchange: EX,
      apartado: 'Spot',
      r: false,
      r_os: false,
      trend_filter: false,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const pos = await until(async () => (await open(bob)).find((o) => o.kind === 'classic-dca'));
    expect(pos.id).toMatch(/-c1$/);
    expect(pos.amount_quote).toBeCloseTo(20, 0);
    // Alice cannot touch it, and does not see it.
    expect((await call(alice, 'POST', '/api/dca/pending_orders/sell', { id: pos.id })).status).toBe(404);
    expect((await open(alice)).find((o) => o.id === pos.id)).toBeUndefined();
    const fund = await call(bob, 'POST', '/api/dca/pending_orders/add_funds', {
      id: pos.id,
      amount_quote: '10',
    });
    expect(fund.status, JSON.stringify(fund.body)).toBe(200);
    const grown = await until(async () => {
      const o = (await open(bob)).find((x) => x.id === pos.id);
      return o && o.qty > pos.qty && o.busy === null ? o : null;
    });
    expect(grown.amount_quote).toBeCloseTo(30, 0);
    const sold = await call(bob, 'POST', '/api/dca/pending_orders/sell', { id: pos.id });
    expect(sold.status, JSON.stringify(sold.body)).toBe(200);
    const done = await until(async () =>
      ((await list(bob, '&status=completed')).orders as Json[]).find((o) => o.id === pos.id),
    );
    expect(done).toMatchObject({ status: 'completed', kind: 'classic-dca' });
    expect(done.qty).toBeCloseTo(grown.qty, 10);
    // r off: the cycle sold by the user ends the bot.
    const active = (await call(bob, 'GET', '/api/bots_activos')).body.bots as Json[];
    expect(active.filter((b) => b.symbol === 'ETH/USDT')).toEqual([]);
  });

  it('dust auto-close: lots older than 1 min worth under 7 USD go, at most 10 a run, each logged', async () => {
    // A small bot: 6 USDT per buy on ETH/USDT (minimum cost 5) → its lot is worth ≈ 6 USD < 7.
    const r = await call(alice, 'POST', '/api/start_bot_dca', {
      symbol: 'ETH/USDT',
      amount: '6',
      tp: '1',
      separacion: '1',
      os: '2',
      exchange: EX,
      apartado: 'Spot',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const small = r.body.bot.id as string;
    const lot = await until(async () => (await open(alice)).find((o) => o.bot_id === small));
    expect(lot.amount_quote).toBeLessThan(DUST.maxUsd);
    // Younger than a minute: kept.
    const now = await call(null, 'POST', '/api/dev/pending/dust/run', {});
    expect((now.body.closed as Json[]).filter((c) => c.lot_id === lot.id)).toEqual([]);
    const later = await call(null, 'POST', '/api/dev/pending/dust/run', { at: Date.now() + 2 * 60_000 });
    const closed = later.body.closed as Json[];
    expect(closed.map((c) => c.lot_id)).toContain(lot.id);
    expect(closed.length).toBeLessThanOrEqual(DUST.maxPerRun);
    // The 20 USDT lots of the other bot are not dust.
    for (const c of closed) expect(c.usd).toBeLessThan(DUST.maxUsd);
    expect((await open(alice)).find((o) => o.id === lot.id)).toBeUndefined();
    const ev = await call(alice, 'GET', `/api/bots/${small}/events?limit=50`);
    const dust = (ev.body.events as Json[]).find((e) => e.code === 'dust_closed');
    expect(dust?.params).toMatchObject({ lot_id: lot.id });
  });

  it('the dust schedule lives in the database: one claim per due run, next run 20 min later', async () => {
    const repo = new PendingRepository(t.ctx.db);
    const t0 = new Date('2030-01-01T00:00:00Z');
    const name = `test_job_${Math.random().toString(36).slice(2)}`;
    expect(await repo.claimJob(name, 'a', t0, DUST.everyMs, 60_000)).toBeNull(); // created, due in 20 min
    const due = new Date(t0.getTime() + DUST.everyMs);
    expect((await repo.job(name))!.nextRunAt.getTime()).toBe(due.getTime());
    const at = new Date(due.getTime() + 1000);
    expect((await repo.claimJob(name, 'a', at, DUST.everyMs, 60_000))?.getTime()).toBe(due.getTime());
    expect(await repo.claimJob(name, 'b', at, DUST.everyMs, 60_000)).toBeNull(); // held by a
    await repo.finishJob(name, 'a', at, new Date(due.getTime() + DUST.everyMs), { closed: 0 });
    expect(await repo.claimJob(name, 'b', at, DUST.everyMs, 60_000)).toBeNull(); // not due yet
    const job = (await repo.job(name))!;
    expect(job.nextRunAt.getTime()).toBe(due.getTime() + DUST.everyMs);
    expect(job.claimedBy).toBeNull();
  });
  it('lists the sales of the last 7 days exactly, at once after a sale is written', async () => {
    const ids = async () =>
      ((await list(alice, '&status=completed')).orders as Json[]).map((o) => o.id as string);
    const before = await ids(); // the sales read now are kept until the next write
    // Written behind the service's back (raw SQL): still seen at once. One sale a second before the
    // window's start, one a minute after it; the kept rows are read from the start of that hour on.
    const start = Date.now() - PENDING_COMPLETED_DAYS * 86_400_000;
    const sale = (key: string, at: number) =>
      sql(
        `INSERT INTO bot_trades (bot_id, user_id, exchange, symbol, lot_key, buy_time, sell_time, qty, buy_price, sell_price, pnl_net)
         VALUES ($1, $2, $3, $4, $5, $6, $6, '0.0002', '90000', '91000', '0.2')`,
        [botId, alice.id, EX, SYM, key, new Date(at)],
      );
    await sale('window-out', start - 1_000);
    await sale('window-in', start + 60_000);
    try {
      const after = await ids();
      expect(after).toContain('window-in');
      expect(after).not.toContain('window-out');
      expect(after.filter((id) => !before.includes(id))).toEqual(['window-in']);
    } finally {
      await sql(`DELETE FROM bot_trades WHERE bot_id = $1 AND lot_key LIKE 'window-%'`, [botId]);
    }
    expect(await ids()).toEqual(before);
  });
});
