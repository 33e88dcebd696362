/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- JSON answers read loosely */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotsRepository } from '../src/modules/bots/bots.repository';
import { ReadCache } from '../src/modules/bots/read-cache';
import { runners } from '../src/modules/bots/routes';
import { strategyIdOf } from '../src/modules/bots/strategy-id';
import { until as waitFor } from './bots.helpers';
import { apiCaller, createTestUser, makeTestApp, type TestApp } from './helpers';

type User = Awaited<ReturnType<typeof createTestUser>>;
type Json = Record<string, any>;

const EX = 'binance';
const until = <T>(fn: () => Promise<T | null | undefined | false>) => waitFor(fn, 10_000);

/**
 * The read cache of the polled bot lists (modules/bots/read-cache.ts, docs/read-path.md): every read
 * below comes right after the write it must show, with no wait and no retry in between — a cached
 * answer older than the write fails the test.
 */
describe('read cache of the bot lists', () => {
  let t: TestApp;
  let alice: User;
  let bob: User;
  const call = apiCaller(() => t.app);
  const setPrice = async (symbol: string, price: number) => {
    const r = await call(null, 'POST', '/api/dev/market/price', { exchange: EX, symbol, price });
    expect(r.status).toBe(200);
  };
  const dcaList = async (u: User) => {
    const r = await call(u, 'GET', '/api/bots_activos_dca');
    expect(r.status).toBe(200);
    return r.body.bots as Json[];
  };
  /** A classic DCA bot, 100 USDT, TP 1 %, 2 safety orders 1 % apart, no restart, no trend filter. */
  const startClassic = (u: User, symbol: string) =>
    call(u, 'POST', '/api/start_bot', {
      symbol: symbol,
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
  const startDca = async (u: User, symbol: string) => {
    const r = await call(u, 'POST', '/api/start_bot_dca', {
      symbol,
      amount: '20',
      tp: '1',
      separacion: '1',
      os: '3',
      exchange: EX,
      apartado: 'Spot',
    });
    expect(r.status).toBe(200);
    return r.body.bot as Json;
  };

  const stopDca = async (u: User, symbol: string) => {
    const r = await call(u, 'POST', '/api/stop_bot_dca', { exchange: EX, symbol, mode: 'cancel_only' });
    expect(r.status).toBe(200);
  };

  beforeAll(async () => {
    t = await makeTestApp({ BOT_RUNNER: '1', SIMULATOR_CONTROL: '1' });
    alice = await createTestUser(t);
    bob = await createTestUser(t);
    for (const u of [alice, bob]) {
      const r = await call(u, 'POST', '/api/conectar_exchange', { exchange: EX, mode: 'paper' });
      expect(r.status).toBe(200);
    }
    await setPrice('BTC/USDT', 100_000);
    await setPrice('ETH/USDT', 3_000);
    await setPrice('LTC/USDT', 100);
  });
  afterAll(async () => t?.close());

  it('lists a new bot at once and drops a stopped one at once (Grid Bot DCA)', async () => {
    expect(await dcaList(alice)).toEqual([]);
    expect(await dcaList(alice)).toEqual([]); // now cached
    const bot = await startDca(alice, 'BTC/USDT');
    expect((await dcaList(alice)).map((b) => b.id)).toEqual([bot.id]);
    await stopDca(alice, 'BTC/USDT');
    expect(await dcaList(alice)).toEqual([]);
    // It went to the closed bots' history at the same moment.
    const hist = await call(alice, 'GET', '/api/historial');
    expect((hist.body.historial as Json[]).map((b) => b.id)).toEqual([bot.id]);
  });

  it('drops a stopped Grid bot and a stopped classic DCA bot from their lists at once', async () => {
    const grids = async () => (await call(alice, 'POST', '/api/gridbot/activos', {})).body.bots as Json[];
    expect(await grids()).toEqual([]);
    const g = await call(alice, 'POST', '/api/gridbot/start', {
      user: alice.email,
      exchange: EX,
      pair: 'BTC/USDT',
      marketType: 'spot',
      highPrice: '105000',
      lowPrice: '95000',
      amountPerLevel: '20',
      stepPercentage: '1',
      profitCurrency: 'quote',
      position: 'long',
    });
    expect(g.body).toMatchObject({ success: true });
    const [grid] = await grids();
    expect(grid).toBeDefined();
    const gs = await call(alice, 'POST', '/api/gridbot/detener', { grid_id: grid!.id, vender: false });
    expect(gs.status).toBe(200);
    expect(await grids()).toEqual([]);

    const classics = async () => (await call(alice, 'GET', '/api/bots_activos')).body.bots as Json[];
    expect(await classics()).toEqual([]);
    const c = await startClassic(alice, 'ETH/USDT');
    expect(c.status).toBe(200);
    expect((await classics()).map((b) => b.symbol)).toEqual(['ETH/USDT']);
    const cs = await call(alice, 'POST', '/api/stop_bot', {
      exchange: EX,
      symbol: 'ETH/USDT',
      mode: 'cancel_only',
    });
    expect(cs.status).toBe(200);
    expect(await classics()).toEqual([]);
  });

  it('never answers one user with another user’s cached answer', async () => {
    const a = await startDca(alice, 'LTC/USDT');
    const b = await startDca(bob, 'ETH/USDT');
    for (let i = 0; i < 2; i++) {
      expect((await dcaList(alice)).map((x) => x.id)).toEqual([a.id]);
      expect((await dcaList(bob)).map((x) => x.id)).toEqual([b.id]);
    }
  });

  it('shows a sale in the history the moment the runner has written it', async () => {
    const history = async () => (await call(bob, 'GET', '/api/dca/all_history')).body;
    const before = await history();
    expect(before.total).toBe(0);
    expect((await history()).total).toBe(0); // cached
    // Bob's ETH bot bought its first lot at 3,000 (TP 1 %): 3,100 sells it.
    const repo = new BotsRepository(t.ctx.db);
    const [bot] = await repo.listByUser(bob.id, 'active');
    await until(async () => ((await repo.liveOrders(bot!.id)).some((o) => o.side === 'sell') ? true : null));
    await setPrice('ETH/USDT', 3_100);
    await until(async () => ((await repo.tradesOf(bot!.id)).length > 0 ? true : null));
    const after = await history();
    expect(after.total).toBe(1);
    expect(after.history[0]).toMatchObject({ symbol: 'ETH/USDT' });
  });

  it('follows a price move at once in precios_actuales and pnls_actuales', async () => {
    // A classic DCA bot holds a position: its PnL moves with the price (unrealized).
    const c = await startClassic(bob, 'BTC/USDT');
    expect(c.status).toBe(200);
    await until(async () => {
      const l = (await call(bob, 'GET', '/api/bots_activos')).body.bots as Json[];
      return l[0]?.phase === 'in_position' ? l : null;
    });
    await runners.get(t.ctx)!.idle();
    const prices = async () =>
      (await call(bob, 'POST', '/api/precios_actuales', {})).body as { symbol: string; price: number }[];
    const pnl = async () => {
      const r = await call(bob, 'POST', '/api/pnls_actuales', {});
      return (r.body.pnls as Json[]).find((p) => p.kind !== 'grid-dca' && p.symbol === 'BTC/USDT')!.pnl;
    };
    expect((await prices()).find((p) => p.symbol === 'BTC/USDT')?.price).toBe(100_000);
    const p1 = await pnl();
    expect(await pnl()).toBe(p1); // cached
    await setPrice('BTC/USDT', 100_500);
    expect((await prices()).find((p) => p.symbol === 'BTC/USDT')?.price).toBe(100_500);
    const p2 = await pnl();
    // 0.001 BTC held: 500 USDT higher is about 0.5 USDT more.
    expect(p2 - p1).toBeCloseTo(0.5, 1);
  });

  it('lists a new bot in pnls_actuales at once and drops a stopped one at once (its rows are kept)', async () => {
    const carol = await createTestUser(t);
    expect(
      (await call(carol, 'POST', '/api/conectar_exchange', { exchange: EX, mode: 'paper' })).status,
    ).toBe(200);
    const pnls = async () =>
      ((await call(carol, 'POST', '/api/pnls_actuales', {})).body.pnls as Json[]).map((p) => p.symbol);
    expect(await pnls()).toEqual([]);
    expect(await pnls()).toEqual([]); // the rows are now kept
    await startDca(carol, 'ETH/USDT');
    expect(await pnls()).toEqual(['ETH/USDT']);
    await stopDca(carol, 'ETH/USDT');
    expect(await pnls()).toEqual([]);
  });

  it('shows a write made outside the repository (raw SQL) at once', async () => {
    const list = await dcaList(alice);
    expect(list.length).toBe(1);
    await t.ctx.database.sql.query(`UPDATE bots SET status = 'stopped', stopped_at = now() WHERE id = $1`, [
      list[0]!.id,
    ]);
    expect(await dcaList(alice)).toEqual([]);
  });
});

describe('ReadCache', () => {
  it('hands an answer computed during a write to its own request only, and recomputes after', async () => {
    const cache = new ReadCache(strategyIdOf);
    cache.enabled = true;
    let computed = 0;
    let release: () => void = () => undefined;
    const slow = () =>
      cache.get('u1', 'k', {}, async () => {
        const n = ++computed;
        await new Promise<void>((r) => (release = r));
        return { n };
      });
    const first = slow();
    const joined = slow(); // same generation: joins the computation in flight
    cache.touchUser('u1'); // a write lands meanwhile
    const afterWrite = cache.get('u1', 'k', {}, async () => ({ n: ++computed }));
    release();
    expect(await first).toBe('{"n":1}');
    expect(await joined).toBe('{"n":1}');
    expect(await afterWrite).toBe('{"n":2}');
    // The answer computed before the write was not kept: the next read sees the later one.
    expect(await cache.get('u1', 'k', {}, async () => ({ n: ++computed }))).toBe('{"n":2}');
    expect(computed).toBe(2);
    // Another user's key is another entry.
    expect(await cache.get('u2', 'k', {}, async () => ({ n: 'u2' }))).toBe('{"n":"u2"}');
    cache.touchAll();
    expect(await cache.get('u1', 'k', {}, async () => ({ n: 'fresh' }))).toBe('{"n":"fresh"}');
  });
});
