import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionRowsCache } from '../src/modules/exchanges/connections-cache';
import { apiCaller, createTestUser, makeTestApp, type TestApp } from './helpers';

type User = Awaited<ReturnType<typeof createTestUser>>;

/**
 * The reads answered from memory since issue 45 (docs/read-path.md): the user's connection rows (the
 * wallet), a bot's closed trades (`GET /api/dca/history`) and its event log (`GET /api/bots/{id}/events`).
 * Every read below comes right after the write it must show, with no wait in between: an answer kept
 * from before the write fails the test. The writes are raw SQL on purpose (no repository told the cache).
 */
describe('reads kept in memory stay exact', () => {
  let t: TestApp;
  let alice: User;
  let bob: User;
  const call = apiCaller(() => t.app);
  const sql = (text: string, params: unknown[] = []) => t.ctx.database.sql.query(text, params);

  beforeAll(async () => {
    t = await makeTestApp();
    alice = await createTestUser(t);
    bob = await createTestUser(t);
    for (const u of [alice, bob]) {
      const r = await call(u, 'POST', '/api/conectar_exchange', { exchange: 'binance', mode: 'paper' });
      expect(r.status).toBe(200);
    }
  });
  afterAll(async () => t?.close());

  it('the wallet follows every change of the connections, whoever writes it', async () => {
    const wallet = async (u: User) => {
      const r = await call(u, 'GET', '/api/wallet');
      expect(r.status).toBe(200);
      return { exchange: r.body.exchange as string | null, mode: r.body.mode as string | null };
    };
    expect(await wallet(alice)).toEqual({ exchange: 'binance', mode: 'paper' });
    expect(await wallet(alice)).toEqual({ exchange: 'binance', mode: 'paper' }); // kept now
    // Raw SQL, no repository: the connection is gone at the next read.
    await sql(`DELETE FROM exchange_connections WHERE user_id = $1`, [alice.id]);
    expect(await wallet(alice)).toEqual({ exchange: null, mode: null });
    expect((await call(alice, 'GET', '/api/wallet?exchange=binance')).status).toBe(400);
    // Through the API (the repository): a new connection shows at once.
    expect(
      (await call(alice, 'POST', '/api/conectar_exchange', { exchange: 'bybit', mode: 'paper' })).status,
    ).toBe(200);
    expect(await wallet(alice)).toEqual({ exchange: 'bybit', mode: 'paper' });
    // Inside a transaction: dropped when it ends.
    type Tx = { query: (text: string, params: unknown[]) => Promise<unknown> };
    const client = (
      t.ctx.db as unknown as { $client: { transaction: (fn: (tx: Tx) => Promise<void>) => Promise<void> } }
    ).$client;
    await client.transaction(async (tx) => {
      await tx.query(`UPDATE exchange_connections SET exchange = 'okx' WHERE user_id = $1`, [alice.id]);
    });
    expect(await wallet(alice)).toEqual({ exchange: 'okx', mode: 'paper' });
    // Another user's rows were never changed, nor served to alice.
    expect(await wallet(bob)).toEqual({ exchange: 'binance', mode: 'paper' });
    const listed = await call(alice, 'GET', '/api/exchanges/connections');
    expect(JSON.stringify(listed.body)).toContain('okx');
    expect(JSON.stringify(listed.body)).not.toContain('binance');
  });

  it('the OpenAPI document marks the POSTs that only read (the read bench takes its calls from it)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
    const doc = res.json<{ paths: Record<string, Record<string, { 'x-read-only'?: boolean }>> }>();
    const marked = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.entries(ops).map(([m, op]) => ({ path, m, op })))
      .filter((o) => o.op['x-read-only'] === true);
    expect(marked.every((o) => o.m === 'post')).toBe(true);
    const paths = marked.map((o) => o.path);
    for (const p of [
      '/api/pnls_actuales',
      '/api/precios_actuales',
      '/api/vncs_actuales',
      '/api/estado_conexion',
    ]) {
      expect(paths).toContain(p);
    }
    for (const p of ['/api/start_bot_dca', '/api/conectar_exchange', '/api/dca/pending_orders/sell']) {
      expect(paths).not.toContain(p);
    }
  });

  it('a load that ran while a write landed is handed to its caller and not kept', async () => {
    const cache = new ConnectionRowsCache();
    // Enabled on a stand-in client (the cache only needs something to watch).
    cache.enable({ query: async () => [], exec: async () => undefined });
    let release!: (rows: { v: number }[]) => void;
    const first = cache.rows('u', () => new Promise<{ v: number }[]>((r) => (release = r)));
    cache.touch(); // a write completes while the load runs
    release([{ v: 1 }]);
    expect(await first).toEqual([{ v: 1 }]);
    let loads = 0;
    const second = await cache.rows('u', async () => [{ v: ++loads + 1 }]);
    expect(second).toEqual([{ v: 2 }]);
    expect(await cache.rows('u', async () => [{ v: 99 }])).toBe(second); // kept now
    expect(Object.isFrozen(second[0])).toBe(true);
  });

  it("a bot's closed trades and events show the moment they are written", async () => {
    const started = await call(bob, 'POST', '/api/start_bot_dca', {
      symbol: 'BTC/USDT',
      amount: '20',
      tp: '1',
      separacion: '1',
      os: '3',
      exchange: 'binance',
      apartado: 'Spot',
    });
    expect(started.status).toBe(200);
    const botId = started.body.bot.id as string;
    const history = async () => {
      const r = await call(bob, 'GET', `/api/dca/history?bot_id=${botId}&page=1&per_page=25`);
      expect(r.status).toBe(200);
      return r.body as { historial: { id: string; pnl_net: number }[]; total: number; total_pnl: number };
    };
    const events = async () => {
      const r = await call(bob, 'GET', `/api/bots/${botId}/events?limit=100`);
      expect(r.status).toBe(200);
      return r.body.events as { code: string }[];
    };
    expect((await history()).total).toBe(0);
    expect((await history()).total).toBe(0); // kept now
    const before = (await events()).length;
    await events();

    const [trade] = await sql(
      `INSERT INTO bot_trades (bot_id, user_id, exchange, symbol, lot_key, buy_time, sell_time, qty, buy_price, sell_price, pnl_net)
       VALUES ($1, $2, 'binance', 'BTC/USDT', 'fresh-1', now() - interval '1 hour', now(), 0.001, 100000, 101000, 0.8)
       RETURNING id`,
      [botId, bob.id],
    );
    const after = await history();
    expect(after.total).toBe(1);
    expect(after.total_pnl).toBe(0.8);
    expect(after.historial.map((h) => String(h.id))).toEqual([String(trade!.id)]);
    // The history's soft delete (another module's write) hides it at once.
    expect((await call(bob, 'DELETE', `/api/dca/history/${String(trade!.id)}`)).status).toBe(200);
    expect((await history()).total).toBe(0);

    await sql(`INSERT INTO bot_events (bot_id, code, params) VALUES ($1, 'fresh_test_event', '{}')`, [botId]);
    const now = await events();
    expect(now.length).toBe(before + 1);
    expect(now[0]!.code).toBe('fresh_test_event');

    // Another user never gets bob's answer: not found, from the cache or not.
    expect((await call(alice, 'GET', `/api/bots/${botId}/events?limit=100`)).status).toBe(404);
    expect((await call(alice, 'GET', `/api/dca/history?bot_id=${botId}`)).status).toBe(404);
  });
});
