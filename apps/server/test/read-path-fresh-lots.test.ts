/* eslint-disable @typescript-eslint/no-unsafe-argument -- JSON answers read loosely */
import { summarizeClassicDca, summarizeVnc, type ClassicDcaState, type VncState } from '@bytx/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backtestServices } from '../src/modules/backtest/routes';
import { until } from './bots.helpers';
import { apiCaller, createTestUser, makeTestApp, type TestApp } from './helpers';

type User = Awaited<ReturnType<typeof createTestUser>>;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON

const EX = 'binance';
const SYM = 'BTC/USDT';
const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;

/**
 * The reads kept in memory since issue 45 points 1-2 beside read-path-fresh.test.ts: the classic DCA
 * bot's `dcas_actuales` and `vncs_actuales`, the pending orders' drawdowns (GET and the refresh POST)
 * and the backtests (`GET /api/backtest`, `GET /api/backtest/{id}`). Each answer is read twice first
 * (kept from then on), then right after a write with no wait in between: an answer kept from before
 * the write fails the test. Where the write is the bot runner's (a fill), the test waits until the
 * database holds it (not through the call under test), then reads once.
 */
describe('bot and backtest reads kept in memory stay exact', () => {
  let t: TestApp;
  let alice: User;
  let bob: User;
  const call = apiCaller(() => t.app);
  const sql = (text: string, params: unknown[] = []) => t.ctx.database.sql.query(text, params);
  const setPrice = async (symbol: string, price: number) => {
    const r = await call(null, 'POST', '/api/dev/market/price', { exchange: EX, symbol, price });
    expect(r.status).toBe(200);
  };
  /** The bot's state as committed to the database. */
  const storedState = async <S>(botId: string): Promise<S> =>
    (await sql(`SELECT state FROM bots WHERE id = $1`, [botId]))[0]!.state as S;

  beforeAll(async () => {
    t = await makeTestApp({ BOT_RUNNER: '1', SIMULATOR_CONTROL: '1' });
    alice = await createTestUser(t);
    bob = await createTestUser(t);
    for (const u of [alice, bob]) {
      const r = await call(u, 'POST', '/api/conectar_exchange', { exchange: EX, mode: 'paper' });
      expect(r.status).toBe(200);
    }
    await setPrice(SYM, 100_000);
  });
  afterAll(async () => t?.close());

  it('dcas_actuales and vncs_actuales follow a fill, a stop that leaves a VNC and its TP change', async () => {
    const body = { bots: [{ symbol: SYM, exchange: EX }] };
    const dcas = async () => {
      const r = await call(alice, 'POST', '/api/dcas_actuales', body);
      expect(r.status).toBe(200);
      return r.body.dcas as Json[];
    };
    const vncs = async () => {
      const r = await call(alice, 'POST', '/api/vncs_actuales', {});
      expect(r.status).toBe(200);
      return r.body.vncs as Json[];
    };
    expect(await dcas()).toEqual([]);
    expect(await vncs()).toEqual([]);
    expect(await vncs()).toEqual([]); // kept now
    const started = await call(alice, 'POST', '/api/start_bot', {
      symbol: SYM,
      amount: '100',
      tp: '1',
      separacion: '1',
      os: '2',
      exchange: EX,
      r: false,
      r_os: false,
      apartado: 'Spot',
      trend_filter: false,
    });
    expect(started.status).toBe(200);
    const botId = started.body.bot.id as string;
    const dcaOf = (s: ClassicDcaState) => round(summarizeClassicDca(s, 1).dca!, 10);
    // The base order's fill, once committed, is in the next answer.
    const base = await until(async () => {
      const s = await storedState<ClassicDcaState>(botId);
      return Number(s.position.qty) > 0 ? s : null;
    }, 10_000);
    expect(await dcas()).toEqual([{ symbol: SYM, exchange: EX, dca: dcaOf(base) }]);
    expect(await dcas()).toEqual([{ symbol: SYM, exchange: EX, dca: dcaOf(base) }]); // kept now
    // A safety order's fill moves the average entry: shown by the first read after its commit.
    await setPrice(SYM, 98_900);
    const averaged = await until(async () => {
      const s = await storedState<ClassicDcaState>(botId);
      return s.safetyFills === 1 && Number(s.position.qty) > Number(base.position.qty) ? s : null;
    }, 10_000);
    const moved = await dcas();
    expect(moved).toEqual([{ symbol: SYM, exchange: EX, dca: dcaOf(averaged) }]);
    expect(moved[0]!.dca).toBeLessThan(dcaOf(base));
    // Bob never gets alice's answer.
    expect((await call(bob, 'POST', '/api/dcas_actuales', body)).body.dcas).toEqual([]);

    // Stopped keeping the assets: the position is the pair's VNC in the next read.
    expect(await vncs()).toEqual([]);
    const stop = await call(alice, 'POST', '/api/stop_bot', {
      exchange: EX,
      symbol: SYM,
      mode: 'cancel_only',
    });
    expect(stop.status).toBe(200);
    expect(await dcas()).toEqual([]);
    const [vncRow] = await sql(`SELECT id FROM bots WHERE user_id = $1 AND kind = $2 AND status = 'active'`, [
      alice.id,
      'classic-vnc',
    ]);
    const vncId = vncRow!.id as string;
    const viewOf = (s: VncState) => {
      const v = summarizeVnc(s);
      return {
        exchange: EX,
        symbol: SYM,
        qty: v.qty,
        cost_price: v.qty > 0 ? round(v.cost / v.qty, 10) : null,
        sell_price: v.sellPrice,
        tp_vnc: v.tpVncPct,
      };
    };
    const first = await vncs();
    expect(first).toHaveLength(1);
    expect(first[0]!.qty).toBe(Number(averaged.position.qty));
    // Its sell order placed (a runner write): the next read after the commit shows it.
    const placed = await until(async () => {
      const s = await storedState<VncState>(vncId);
      return summarizeVnc(s).sellPrice !== null ? s : null;
    }, 10_000);
    expect(await vncs()).toEqual([viewOf(placed)]);
    expect(await vncs()).toEqual([viewOf(placed)]); // kept now
    // TP VNC changed (a strategy action): the moved sell shows once committed.
    expect(
      (await call(alice, 'POST', '/api/update_tp_vnc', { exchange: EX, symbol: SYM, tp_vnc: 5 })).status,
    ).toBe(200);
    const retargeted = await until(async () => {
      const s = await storedState<VncState>(vncId);
      const v = summarizeVnc(s);
      return v.tpVncPct === 5 && v.sellPrice !== null && v.sellPrice > placed.sell!.price ? s : null;
    }, 10_000);
    expect(await vncs()).toEqual([viewOf(retargeted)]);
    // A write outside the repository (raw SQL): gone at the next read.
    await sql(`UPDATE bots SET status = 'stopped' WHERE id = $1`, [vncId]);
    expect(await vncs()).toEqual([]);
  });

  it('drawdowns follow a price tick, the auto-fund flag and a lot sold', async () => {
    await setPrice(SYM, 100_000);
    const started = await call(bob, 'POST', '/api/start_bot_dca', {
      symbol: SYM,
      amount: '20',
      tp: '1',
      separacion: '1',
      os: '3',
      exchange: EX,
      apartado: 'Spot',
    });
    expect(started.status).toBe(200);
    const all = async () => {
      const r = await call(bob, 'GET', '/api/pending/drawdowns');
      expect(r.status).toBe(200);
      return r.body.by_id as Record<string, { pct: number | null; enabled: boolean }>;
    };
    const some = async (ids: string[]) => {
      const r = await call(bob, 'POST', '/api/pending/drawdowns/refresh', { ids });
      expect(r.status).toBe(200);
      return r.body.by_id as Record<string, { pct: number | null; enabled: boolean }>;
    };
    const lots = await until(async () => {
      const r = await call(bob, 'GET', '/api/dca/pending_orders?status=open&per_page=50');
      const open = r.body.orders as Json[];
      return open.length > 0 ? open : null;
    }, 10_000);
    const lot = lots[0]!;
    const entry = lot.entry_price as number;
    const pctAt = (price: number) => ((price - entry) / entry) * 100;
    expect((await all())[lot.id]!.pct).toBeCloseTo(pctAt(100_000), 3);
    expect((await some([lot.id]))[lot.id]!.pct).toBeCloseTo(pctAt(100_000), 3);
    await all(); // kept now
    await some([lot.id]);
    // A tick of the pair: the next read is at the new price.
    await setPrice(SYM, 99_800);
    expect((await all())[lot.id]!.pct).toBeCloseTo(pctAt(99_800), 3);
    expect((await some([lot.id]))[lot.id]!.pct).toBeCloseTo(pctAt(99_800), 3);
    // Auto-fund on (a runner action, committed before it answers): shown by the next read.
    expect((await all())[lot.id]!.enabled).toBe(false);
    const toggled = await call(bob, 'POST', '/api/pending/auto_fund/toggle', { id: lot.id, enabled: true });
    expect(toggled.status).toBe(200);
    expect((await all())[lot.id]!.enabled).toBe(true);
    expect((await some([lot.id]))[lot.id]!.enabled).toBe(true);
    // Sold at market: the lot is gone from the next read.
    const sold = await call(bob, 'POST', '/api/dca/pending_orders/sell', { id: lot.id });
    expect(sold.status).toBe(200);
    await until(async () => {
      const [r] = await sql(`SELECT count(*)::int AS n FROM bot_trades WHERE lot_id = $1 OR lot_key = $1`, [
        lot.id,
      ]);
      return Number(r!.n) > 0;
    }, 10_000);
    expect((await all())[lot.id]).toBeUndefined();
    expect(await some([lot.id])).toEqual({});
    // Another user's answer is never served: alice has no lots.
    expect((await call(alice, 'GET', '/api/pending/drawdowns')).body.by_id).toEqual({});
  });

  it('backtests: a new one, its result once done, a delete (API and raw SQL) and expiry show at once', async () => {
    const service = backtestServices.get(t.ctx)!;
    const list = async (u: User) => {
      const r = await call(u, 'GET', '/api/backtest');
      expect(r.status).toBe(200);
      return r.body.backtests as Json[];
    };
    const one = (u: User, id: string) => call(u, 'GET', `/api/backtest/${id}`);
    expect(await list(alice)).toEqual([]);
    expect(await list(alice)).toEqual([]); // kept now
    const form = {
      symbol: SYM,
      amount: '20',
      tp: '1',
      separacion: '1',
      os: '3',
      exchange: EX,
      apartado: 'Spot',
    };
    const start = async () => {
      const r = await call(alice, 'POST', '/api/backtest', { kind: 'grid-dca', params: form });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      return r.body.id as string;
    };
    const id = await start();
    expect((await list(alice)).map((b) => b.id as string)).toEqual([id]);
    const done = await until(async () => {
      const r = await one(alice, id);
      return ['done', 'failed', 'cancelled'].includes(r.body.status) ? r : null;
    }, 60_000);
    expect(done.body.status).toBe('done');
    expect(done.headers['content-type']).toBe('application/json; charset=utf-8');
    const again = await one(alice, id);
    expect(again.body).toEqual(done.body); // kept now
    expect(JSON.stringify(again.body).length).toBeGreaterThan(0);
    expect((await list(alice))[0]).toMatchObject({ id, status: 'done', net_pnl: done.body.summary.netPnl });
    // Another user: 404, from the cache or not.
    expect((await one(bob, id)).status).toBe(404);
    expect(await list(bob)).toEqual([]);

    // A second one shows in the list at once; the first is deleted through the API: gone at once.
    const id2 = await start();
    expect((await list(alice)).map((b) => b.id as string)).toEqual([id2, id]);
    await until(async () => ((await one(alice, id2)).body.status === 'done' ? true : null), 60_000);
    await one(alice, id2);
    const del = await call(alice, 'DELETE', `/api/backtest/${id}`);
    expect(del.status).toBe(200);
    expect((await one(alice, id)).status).toBe(404);
    expect((await list(alice)).map((b) => b.id as string)).toEqual([id2]);
    // Raw SQL (no repository): its result changes, then it goes.
    await sql(`UPDATE backtests SET error = 'changed' WHERE id = $1`, [id2]);
    expect((await one(alice, id2)).body.error).toBe('changed');
    expect((await list(alice))[0]!.error).toBe('changed');
    // Expiry moves with the clock alone (no write): 24 h later it is a 404 and out of the list.
    const realNow = service.now;
    try {
      const created = Date.parse((await list(alice))[0]!.created_at as string);
      service.now = () => created + 24 * 3_600_000 + 1_000;
      expect((await one(alice, id2)).status).toBe(404);
      expect(await list(alice)).toEqual([]);
    } finally {
      service.now = realNow;
    }
    expect((await one(alice, id2)).status).toBe(200);
    await sql(`DELETE FROM backtests WHERE id = $1`, [id2]);
    expect((await one(alice, id2)).status).toBe(404);
    expect(await list(alice)).toEqual([]);
  });
});
