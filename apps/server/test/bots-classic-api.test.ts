/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- JSON answers read loosely */
import { CLASSIC_DCA_MESSAGES, DCA_MESSAGES } from '@bytx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until as waitFor } from './bots.helpers';
import { createTestUser, makeTestApp, type TestApp } from './helpers';

type User = Awaited<ReturnType<typeof createTestUser>>;
type Json = Record<string, any>;

const EX = 'binance';
const SYM = 'BTC/USDT';
const until = <T>(fn: () => Promise<T | null | undefined | false>) => waitFor(fn, 10_000);

/**
 * The classic DCA bot's calls (spec part 2 §7, issue 12) on a paper account, through the real runner:
 * start, the figures (dca, pnl, ttr), safety fills, add funds, r / r_os / SL / TP+, TP VNC, the cycle's
 * history row, and the VNC a stop with "keep assets" leaves. Paper fees are 0.1 % in quote.
 */
describe('classic DCA bot calls (/dashboard) on a paper account', () => {
  let t: TestApp;
  let alice: User;
  let bob: User;

  const call = async (user: User | null, method: 'GET' | 'POST', url: string, body?: unknown) => {
    const res = await t.app.inject({
      method,
      url,
      headers: user ? user.auth : {},
      ...(body === undefined ? {} : { payload: body as Json }),
    });
    return { status: res.statusCode, body: res.json<Json>() };
  };
  const setPrice = async (symbol: string, price: number) => {
    const r = await call(null, 'POST', '/api/dev/market/price', { exchange: EX, symbol, price });
    expect(r.status).toBe(200);
  };
  const bots = async (u: User) =>
    (await call(u, 'GET', `/api/bots_activos?user_id=${u.email}`)).body.bots as Json[];
  const start = (u: User, over: Json = {}) =>
    call(u, 'POST', '/api/start_bot', {
      symbol: SYM,
      amount: '100',
      tp: '1',
      separacion: '1',
      os: '2',
      exchange: EX,
      user_id: u.email,
      r: false,
      r_os: false,
      apartado: 'Spot',
      trend_filter: false,
      ...over,
    });
  const pair = (u: User, over: Json = {}) => ({ user_id: u.email, exchange: EX, symbol: SYM, ...over });

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
  });
  afterAll(async () => t?.close());

  it('refuses bad start input with the spec messages and creates nothing', async () => {
    const cases: [Json, string | RegExp][] = [
      [{ tp: '0.3' }, DCA_MESSAGES.minPct],
      [{ separacion: '0,4' }, DCA_MESSAGES.minPct],
      [{ exchange: '' }, DCA_MESSAGES.noExchange],
      [{ exchange: 'kraken' }, DCA_MESSAGES.notConnected],
      [{ symbol: '' }, DCA_MESSAGES.noPair],
      [{ symbol: 'NOPE/USDT' }, '⚠️ This pair is not available on Binance.'],
      [{ amount: 'cien' }, DCA_MESSAGES.badAmount],
      [{ amount: '1' }, /^Monto insuficiente\. El mínimo para BTC\/USDT es ≈ 5 USDT/],
      [{ os: '0' }, /# OS/],
      [{ tp_vnc: '0.7' }, CLASSIC_DCA_MESSAGES.badTpVnc],
    ];
    for (const [over, msg] of cases) {
      const r = await start(alice, over);
      expect(r.status, JSON.stringify(over)).toBe(400);
      const text = String(r.body.error ?? r.body.message);
      if (typeof msg === 'string') expect(text).toBe(msg);
      else expect(text).toMatch(msg);
    }
    const forged = await call(alice, 'POST', '/api/start_bot', {
      ...pair(bob),
      amount: 100,
      tp: 1,
      separacion: 1,
      os: 2,
    });
    expect(forged.status).toBe(403);
    expect(await bots(alice)).toEqual([]);
  });

  it('buys the base order, averages down at a safety level, adds funds and moves the TP with the average', async () => {
    const r = await start(alice);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, message: 'Bot started successfully' });
    expect((await start(alice)).status).toBe(409);
    // Base order: a market buy of 100 USDT sized at the tick (100 / 100,000 = 0.001 BTC). The paper
    // book's best ask is 0.01 % above the price, so it fills at 100,010: cost 0.001 × 100,010 = 100.01,
    // fee 0.1 % = 0.10001. dca = 100.11001 / 0.001 = 100,110.01; TP = 100,110.01 × 1.01 = 101,111.1101,
    // rounded up to the price step 0.01 → 101,111.12.
    const [b] = await until(async () => {
      const l = await bots(alice);
      return l[0]?.phase === 'in_position' && l[0]?.tp_price ? l : null;
    });
    expect(b).toMatchObject({
      exchange: EX,
      symbol: SYM,
      monto: 100,
      tp_pct: 1,
      os: 2,
      r: false,
      r_os: false,
    });
    const ev = await call(alice, 'GET', `/api/bots/${b!.id}/events?user_id=${alice.email}&limit=50`);
    const base = (ev.body.events as Json[]).find((e) => e.code === 'base_filled');
    expect(base?.params).toMatchObject({ price: 100_010, qty: 0.001 });
    expect(b!.dca).toBeCloseTo(100_110.01, 6);
    expect(b!.tp_price).toBe(101_111.12);
    expect(b!.position_qty).toBeCloseTo(0.001, 12);
    // Safety level 1 rests at 100,010 × 0.99 = 99,009.9.
    expect(b!.next_safety).toBeCloseTo(99_009.9, 6);

    // Through the first safety level: it fills at its own price, 99,009.9, for 100 / 99,009.9 =
    // 0.00101000… → 0.00101 BTC (amount step 0.00001): cost 0.00101 × 99,009.9 = 99.999999, fee
    // 0.099999999. dca = (100.11001 + 99.999999 + 0.099999999) / 0.00201 = 200.210008999 / 0.00201
    // = 99,606.96965…
    await setPrice(SYM, 98_900);
    const [after] = await until(async () => {
      const l = await bots(alice);
      return l[0]?.safety_filled === 1 && l[0]?.position_qty > 0.002 ? l : null;
    });
    const avg = (100.11001 + 99.999999 + 0.099999999) / 0.00201;
    expect(after!.position_qty).toBeCloseTo(0.00201, 12);
    expect(after!.dca).toBeCloseTo(99_606.96965, 4);
    await until(async () => {
      const l = await bots(alice);
      return l[0]?.tp_price && Math.abs(l[0].tp_price - avg * 1.01) < 0.02 ? l : null;
    });

    const dcas = await call(alice, 'POST', '/api/dcas_actuales', {
      user_id: alice.email,
      bots: [{ symbol: SYM, exchange: EX }],
    });
    expect(dcas.body.dcas).toEqual([{ symbol: SYM, exchange: EX, dca: expect.closeTo(avg, 4) }]);
    const pnls = await call(alice, 'POST', '/api/pnls_actuales', { user_id: alice.email });
    const mine = (pnls.body.pnls as Json[]).find((p) => p.kind === 'classic-dca')!;
    // Unrealized at 98,900: 0.00201 × 98,900 − 200.210008999 = −1.421008999 (no cycle closed yet).
    expect(mine.pnl).toBeCloseTo(-1.421008999, 6);
    expect(mine.ttr).toBeGreaterThanOrEqual(0);

    // Add funds: bad amounts get the spec's text; 50 USDT is bought at market into the position.
    for (const amount of ['abc', '0', '-5', '']) {
      const bad = await call(alice, 'POST', '/api/anadir_fondos', pair(alice, { amount }));
      expect(bad.status).toBe(400);
      expect(bad.body.error ?? bad.body.message).toBe('Cantidad inválida');
    }
    const added = await call(alice, 'POST', '/api/anadir_fondos', pair(alice, { amount: '50' }));
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ success: true, message: 'Compra enviada' });
    const [funded] = await bots(alice);
    expect(funded!.position_qty).toBeGreaterThan(after!.position_qty);
    expect(funded!.dca).toBeLessThan(after!.dca);
  });

  it('changes r, r_os, SL, TP+ and TP VNC one at a time, and refuses what is wrong', async () => {
    const two = await call(alice, 'POST', '/api/actualizar_bot', pair(alice, { r: true, r_os: true }));
    expect(two.status).toBe(400);
    expect(two.body.error ?? two.body.message).toBe(CLASSIC_DCA_MESSAGES.oneField);
    // A wrong type names the field and says what it takes.
    const notBool = await call(alice, 'POST', '/api/actualizar_bot', pair(alice, { r: 'maybe' }));
    expect(notBool.status).toBe(400);
    expect(notBool.body.error).toMatch(/r: must be true or false/);
    const noPct = await call(alice, 'POST', '/api/update_tp_vnc', pair(alice));
    expect(noPct.status).toBe(400);
    expect(noPct.body.error).toMatch(/tp_vnc: is required/);
    expect((await call(alice, 'POST', '/api/actualizar_bot', pair(alice, { r_os: true }))).status).toBe(200);
    expect((await call(alice, 'POST', '/api/actualizar_bot', pair(alice, { sl: 'abc' }))).status).toBe(400);
    expect((await call(alice, 'POST', '/api/actualizar_bot', pair(alice, { sl: '200000' }))).status).toBe(
      400,
    );
    expect((await call(alice, 'POST', '/api/actualizar_bot', pair(alice, { sl: '50000' }))).status).toBe(200);
    expect((await call(alice, 'POST', '/api/actualizar_bot', pair(alice, { tp_plus: '' }))).status).toBe(200);
    expect((await call(alice, 'POST', '/api/update_tp_vnc', pair(alice, { tp_vnc: '0.7' }))).status).toBe(
      400,
    );
    expect(
      (await call(alice, 'POST', '/api/update_tp_vnc', pair(alice, { tp_vnc: '2' }))).body,
    ).toMatchObject({
      success: true,
      tp_vnc: 2,
    });
    const [b] = await bots(alice);
    expect(b).toMatchObject({ r_os: true, sl: 50_000, tp_plus: null, tp_vnc: 2 });
    // Another user: their own user_id finds no bot; alice's user_id is refused.
    expect((await call(bob, 'POST', '/api/actualizar_bot', pair(bob, { r: true }))).status).toBe(404);
    expect((await call(bob, 'POST', '/api/actualizar_bot', pair(alice, { r: true }))).status).toBe(403);
    expect((await call(bob, 'POST', '/api/anadir_fondos', pair(alice, { amount: 10 }))).status).toBe(403);
    expect((await call(bob, 'POST', '/api/stop_bot', pair(alice))).status).toBe(403);
    expect((await call(bob, 'GET', `/api/dca/history?bot_id=${b!.id}`)).status).toBe(404);
  });

  it('closes the cycle at the TP: one history row with net PnL, and with r off the bot stops', async () => {
    const [b] = await bots(alice);
    const tp = b!.tp_price as number;
    await setPrice(SYM, Math.ceil(tp * 1.001));
    const h = await until(async () => {
      const r = await call(alice, 'GET', `/api/dca/history?bot_id=${b!.id}&page=1&per_page=25`);
      return r.body.historial?.length === 1 ? r.body : null;
    });
    const row = h.historial[0];
    expect(row.qty).toBeCloseTo(b!.position_qty, 10);
    expect(row.sell_price).toBeGreaterThanOrEqual(tp);
    expect(row.pnl_net).toBeGreaterThan(0);
    expect(h.total_pnl).toBeCloseTo(row.pnl_net, 8);
    await until(async () => ((await bots(alice)).length === 0 ? true : null));
    const closed = await call(alice, 'GET', '/api/historial?kind=classic-dca');
    expect(closed.body.historial).toEqual([
      expect.objectContaining({ exchange: EX, symbol: SYM, amount: 100, tp: 1, os: 2, r: false, r_os: true }),
    ]);
    // The id before issue 39 is still accepted, read as the new one.
    expect((await call(alice, 'GET', '/api/historial?kind=classic_dca')).body.historial).toEqual(
      closed.body.historial,
    );
    expect(closed.body.historial[0].pnl).toBeCloseTo(row.pnl_net, 8);
    // The Grid Bot DCA's history modal does not list it.
    expect((await call(alice, 'GET', '/api/historial')).body.historial).toEqual([]);
  });

  it('leaves the position as the pair’s VNC when stopped keeping assets; the VNC sells at its own TP', async () => {
    await setPrice(SYM, 100_000);
    expect((await start(alice, { r: true, tp_vnc: '1' })).status).toBe(200);
    await until(async () => ((await bots(alice))[0]?.phase === 'in_position' ? true : null));
    const stop = await call(alice, 'POST', '/api/stop_bot', pair(alice, { mode: 'cancel_only' }));
    expect(stop.body).toMatchObject({ success: true, message: 'Bot stopped successfully' });
    const vncs = await until(async () => {
      const r = await call(alice, 'POST', '/api/vncs_actuales', { user_id: alice.email });
      return r.body.vncs?.[0]?.sell_price ? r.body.vncs : null;
    });
    // 0.001 BTC bought at 100,010 for 100.11001 USDT (fee included): cost price 100,110.01; its sell
    // rests at 100,110.01 × 1.01 = 101,111.1101 → 101,111.12.
    expect(vncs).toEqual([
      expect.objectContaining({
        exchange: EX,
        symbol: SYM,
        qty: 0.001,
        tp_vnc: 1,
        cost_price: expect.closeTo(100_110.01, 4),
        sell_price: 101_111.12,
      }),
    ]);
    // A new bot on the pair shows the VNC quantity; TP VNC moves the VNC's sell.
    expect((await start(alice)).status).toBe(200);
    expect((await bots(alice))[0]!.qty).toBe(0.001);
    expect((await call(alice, 'POST', '/api/update_tp_vnc', pair(alice, { tp_vnc: 5 }))).status).toBe(200);
    const moved = await until(async () => {
      const r = await call(alice, 'POST', '/api/vncs_actuales', {
        user_id: alice.email,
        bots: [{ symbol: SYM, exchange: EX }],
      });
      return r.body.vncs?.[0]?.sell_price > 105_000 ? r.body.vncs : null;
    });
    // 100,110.01 × 1.05 = 105,115.5105 → 105,115.52.
    expect(moved[0].sell_price).toBe(105_115.52);
    expect((await call(alice, 'POST', '/api/stop_bot', pair(alice, { mode: 'close_market' }))).status).toBe(
      200,
    );
    await setPrice(SYM, 106_000);
    await until(async () => {
      const r = await call(alice, 'POST', '/api/vncs_actuales', { user_id: alice.email });
      return r.body.vncs?.length === 0 ? true : null;
    });
  });

  it('waits for the trend rule and says why in the bot’s log', async () => {
    await setPrice(SYM, 100_000);
    const r = await start(alice, { trend_filter: true });
    expect(r.status).toBe(200);
    // Just started: the moving average needs 70 closed 1-minute candles of the pair, or a close above it.
    const [b] = await bots(alice);
    expect(b).toMatchObject({ trend_filter: true, smart_averaging: true });
    // Either it waits (and says for what, once), or the last close was above the average (and it says so).
    const ev = await call(alice, 'GET', `/api/bots/${b!.id}/events?user_id=${alice.email}&limit=50`);
    const codes = (ev.body.events as Json[]).map((e) => e.code as string);
    if (b!.phase === 'waiting') {
      expect(['trend', 'candles']).toContain(b!.waiting_for);
      expect(codes.filter((c) => c === 'trend_wait' || c === 'trend_warming')).toHaveLength(1);
    } else {
      expect(codes).toContain('trend_ok');
    }
    expect((await call(alice, 'POST', '/api/stop_bot', pair(alice, { mode: 'close_market' }))).status).toBe(
      200,
    );
  });
});
