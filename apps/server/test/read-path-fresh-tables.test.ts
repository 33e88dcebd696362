import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TableCache } from '../src/db/table-cache';
import { apiCaller, createTestUser, makeTestApp, type TestApp } from './helpers';

type User = Awaited<ReturnType<typeof createTestUser>>;
type Tx = { query: (text: string, params: unknown[]) => Promise<unknown> };

/**
 * The reads kept in memory by the tables they come from (db/table-cache.ts, issue 45): 2FA flag,
 * sessions, bot settings (apartado, leverage), favourites, forum pages, earnings wallet, plans,
 * deposit addresses, and the spot orders (bots read cache). Every read comes right after the write it
 * must show, with no wait in between; the writes are raw SQL (no repository told a cache), inside a
 * transaction, or through the API.
 */
describe('reads kept by their tables stay exact', () => {
  let t: TestApp;
  let alice: User;
  let bob: User;
  const call = apiCaller(() => t.app);
  const sql = (text: string, params: unknown[] = []) => t.ctx.database.sql.query(text, params);
  const inTx = async (text: string, params: unknown[]) => {
    const client = (
      t.ctx.db as unknown as { $client: { transaction: (fn: (tx: Tx) => Promise<void>) => Promise<void> } }
    ).$client;
    await client.transaction(async (tx) => {
      await tx.query(text, params);
    });
  };
  const get = async (u: User | null, url: string) => {
    const r = await call(u, 'GET', url);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as Record<string, unknown>;
  };

  beforeAll(async () => {
    t = await makeTestApp({ TRADING_SCREENS: 'all', SIMULATOR_CONTROL: '1' });
    alice = await createTestUser(t);
    bob = await createTestUser(t);
    for (const u of [alice, bob]) {
      const r = await call(u, 'POST', '/api/conectar_exchange', { exchange: 'binance', mode: 'paper' });
      expect(r.status).toBe(200);
    }
  });
  afterAll(async () => t?.close());

  it('GET /api/check_2fa', async () => {
    const has = async (u: User) => (await get(u, '/api/check_2fa')).has2FA;
    expect(await has(alice)).toBe(false);
    expect(await has(alice)).toBe(false); // kept now
    await sql(`INSERT INTO user_totp (user_id, enabled) VALUES ($1, true)`, [alice.id]);
    expect(await has(alice)).toBe(true);
    expect(await has(bob)).toBe(false);
    await inTx(`UPDATE user_totp SET enabled = false WHERE user_id = $1`, [alice.id]);
    expect(await has(alice)).toBe(false);
  });

  it('GET /api/sessions: a write, and a session that expires with no write', async () => {
    const ids = async (u: User) =>
      ((await get(u, '/api/sessions')).sessions as { id: string; current: boolean }[]).map((s) => s.id);
    const before = await ids(alice);
    expect(before).toHaveLength(1);
    expect(await ids(alice)).toEqual(before); // kept now
    const [row] = (await sql(
      `INSERT INTO sessions (token_hash, user_id, kind, expires_at) VALUES ($1, $2, 'session', now() + interval '400 milliseconds') RETURNING id`,
      ['x'.repeat(64), alice.id],
    )) as { id: string }[];
    const withNew = await ids(alice);
    expect(withNew).toContain(row!.id);
    expect(withNew).toHaveLength(2);
    // No write: it ends by its expiry alone.
    await new Promise((r) => setTimeout(r, 500));
    expect(await ids(alice)).toEqual(before);
    // Through the API: the other sessions end.
    const second = await call(alice, 'POST', '/api/sessions/end-others', {});
    expect(second.status).toBe(200);
    expect(await ids(alice)).toEqual(before);
    expect(await ids(bob)).toHaveLength(1);
  });

  it('GET /api/apartado_usuario and GET /api/set_leverage', async () => {
    const apartado = async () => (await get(alice, '/api/apartado_usuario')).apartado;
    const leverage = async (symbol = 'BTC/USDT') =>
      (await get(alice, `/api/set_leverage?exchange=binance&symbol=${encodeURIComponent(symbol)}`)).leverage;
    expect(await apartado()).toBe('Spot');
    expect(await apartado()).toBe('Spot'); // kept now
    expect(await leverage()).toBe(1);
    await sql(`INSERT INTO bot_user_settings (user_id, apartado) VALUES ($1, 'Perpetual')`, [alice.id]);
    expect(await apartado()).toBe('Perpetual');
    await sql(`INSERT INTO bot_user_settings (user_id, exchange, leverage) VALUES ($1, 'binance', 4)`, [
      alice.id,
    ]);
    expect(await leverage()).toBe(4);
    await inTx(
      `INSERT INTO bot_user_settings (user_id, exchange, symbol, leverage) VALUES ($1, 'binance', 'BTC/USDT', 7)`,
      [alice.id],
    );
    expect(await leverage()).toBe(7);
    const set = await call(alice, 'POST', '/api/set_leverage', {
      exchange: 'binance',
      symbol: 'BTC/USDT',
      leverage: 3,
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(await leverage()).toBe(3);
    expect((await call(alice, 'POST', '/api/apartado_usuario', { apartado: 'Spot' })).status).toBe(200);
    expect(await apartado()).toBe('Spot');
    expect((await get(bob, '/api/apartado_usuario')).apartado).toBe('Spot');
  });

  it('GET /api/spot/favorites', async () => {
    const favs = async (u: User) => (await get(u, '/api/spot/favorites')).favorites;
    expect(await favs(alice)).toEqual([]);
    expect(await favs(alice)).toEqual([]); // kept now
    await sql(`INSERT INTO spot_favorites (user_id, symbol) VALUES ($1, 'ETH/USDT')`, [alice.id]);
    expect(await favs(alice)).toEqual(['ETH/USDT']);
    const r = await call(alice, 'POST', '/api/spot/favorites', {
      exchange: 'binance',
      symbol: 'BTC/USDT',
      favorite: true,
    });
    expect(r.status).toBe(200);
    expect(await favs(alice)).toEqual(['ETH/USDT', 'BTC/USDT']);
    await inTx(`DELETE FROM spot_favorites WHERE user_id = $1 AND symbol = 'ETH/USDT'`, [alice.id]);
    expect(await favs(alice)).toEqual(['BTC/USDT']);
    expect(await favs(bob)).toEqual([]);
  });

  it('GET /api/forum/posts', async () => {
    const page = async () =>
      (await get(null, '/api/forum/posts?page=1')) as {
        total: number;
        posts: { id: number; content: string; replies: { content: string }[] }[];
      };
    const before = await page();
    expect((await page()).total).toBe(before.total); // kept now
    const created = await call(null, 'POST', '/api/forum/posts', { content: 'through the API' });
    expect(created.status).toBe(201);
    const after = await page();
    expect(after.total).toBe(before.total + 1);
    expect(after.posts[0]!.content).toBe('through the API');
    await sql(`INSERT INTO forum_replies (post_id, content) VALUES ($1, 'raw reply')`, [after.posts[0]!.id]);
    expect((await page()).posts[0]!.replies.map((r) => r.content)).toEqual(['raw reply']);
    await inTx(`DELETE FROM forum_posts WHERE id = $1`, [after.posts[0]!.id]);
    expect((await page()).total).toBe(before.total);
  });

  it('GET /api/earnings/wallet and GET /api/plans', async () => {
    const wallet = async () => (await get(alice, '/api/earnings/wallet')).address;
    expect(await wallet()).toBeNull();
    expect(await wallet()).toBeNull(); // kept now
    const address = `0x${'12'.repeat(20)}`;
    await sql(`INSERT INTO chain_wallets (user_id, address) VALUES ($1, $2)`, [alice.id, address]);
    expect(await wallet()).toBe(address);
    await inTx(`DELETE FROM chain_wallets WHERE user_id = $1`, [alice.id]);
    expect(await wallet()).toBeNull();

    const plans = async () => get(alice, '/api/plans');
    const first = await plans();
    expect(first.active).toBeNull();
    expect((await plans()).payment_ref).toBe(first.payment_ref); // kept now
    const chainId = t.ctx.config.chain.chainId;
    const paid = Date.now() - 1000;
    const tx = `0x${'ab'.repeat(32)}`;
    const block = `0x${'cd'.repeat(32)}`;
    // The indexer's event first (the payment's foreign key), then the confirmed payment.
    await sql(
      `INSERT INTO chain_events (chain_id, block_hash, log_index, block_number, block_time, tx_hash, contract, name, args)
       VALUES ($1, $2, 0, 10, now(), $3, 'plans', 'PlanPaid', $4::jsonb)`,
      [chainId, block, tx, JSON.stringify({ ref: first.payment_ref, plan: 1 })],
    );
    // With the chain off (tests) no payment is listed as waiting; the event is the payment's row.
    expect((await plans()).pending).toEqual([]);
    await sql(
      `INSERT INTO chain_plans (chain_id, block_hash, log_index, user_id, plan, tx_hash, tokens, usd_cents, paid_at)
       VALUES ($1, $2, 0, $3, 1, $4, '1', 500, $5)`,
      [chainId, block, alice.id, tx, new Date(paid).toISOString()],
    );
    const active = (await plans()).active as { id: string; tx_hash: string } | null;
    expect(active).toMatchObject({ id: 'basic', tx_hash: tx });
    await inTx(`UPDATE chain_plans SET refused = 'paid too little' WHERE user_id = $1`, [alice.id]);
    const after = await plans();
    expect(after.active).toBeNull();
    expect((after.refused as { tx_hash: string }[]).map((r) => r.tx_hash)).toEqual([tx]);
    expect((await get(bob, '/api/plans')).active).toBeNull();
  });

  it('GET /api/address', async () => {
    const known = async (u: User, q = '') => (await get(u, `/api/address${q}`)) as Record<string, string>;
    const first = await known(alice);
    expect(first.BTC).toMatch(/^PAPER-/);
    expect(await known(alice)).toEqual(first); // kept now
    await sql(
      `INSERT INTO wallet_addresses (user_id, exchange, coin, address) VALUES ($1, 'binance', 'BTC', 'bc1stored')`,
      [alice.id],
    );
    expect((await known(alice)).BTC).toBe('PAPER-bc1stored');
    await inTx(`DELETE FROM wallet_addresses WHERE user_id = $1`, [alice.id]);
    expect(await known(alice)).toEqual(first);
    // The connection goes: no addresses.
    await sql(`DELETE FROM exchange_connections WHERE user_id = $1`, [alice.id]);
    expect(await known(alice)).toEqual({});
    expect((await call(alice, 'GET', '/api/address?exchange=binance')).status).toBe(400);
    expect(
      (await call(alice, 'POST', '/api/conectar_exchange', { exchange: 'binance', mode: 'paper' })).status,
    ).toBe(200);
    expect(await known(alice)).toEqual(first);
    expect((await known(bob)).BTC).not.toBe(first.BTC);
  });

  it('GET /api/spot/orders', async () => {
    const set = await call(null, 'POST', '/api/dev/market/price', {
      exchange: 'binance',
      symbol: 'BTC/USDT',
      price: 100_000,
    });
    expect(set.status).toBe(200);
    const orders = async () =>
      (await get(bob, '/api/spot/orders?exchange=binance&symbol=BTC/USDT')) as {
        open: { id: string }[];
        recent: { id: string; status: string }[];
      };
    expect((await orders()).open).toEqual([]);
    expect((await orders()).open).toEqual([]); // kept now
    const placed = await call(bob, 'POST', '/api/spot/order', {
      exchange: 'binance',
      symbol: 'BTC/USDT',
      side: 'buy',
      type: 'limit',
      price: '50000',
      quantity: '0.001',
    });
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    const id = (placed.body.order as { id: string }).id;
    expect((await orders()).open.map((o) => o.id)).toEqual([id]);
    const cancelled = await call(bob, 'DELETE', `/api/spot/orders/${id}`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    const after = await orders();
    expect(after.open).toEqual([]);
    expect(after.recent.map((o) => o.id)).toEqual([id]);
    // Raw SQL: the row goes at once.
    await sql(`DELETE FROM bots WHERE id = $1`, [id]);
    expect((await orders()).recent).toEqual([]);
  });

  it('a load that ran while a write landed is handed to its caller and not kept', async () => {
    const cache = new TableCache<number>({ until: (v) => (v === 7 ? 0 : Infinity) });
    cache.enable({ query: async () => [], exec: async () => undefined }, /\bt\b/);
    let release!: (v: number) => void;
    const first = cache.get('k', () => new Promise<number>((r) => (release = r)));
    cache.touch(); // a write completes while the load runs
    release(1);
    expect(await first).toBe(1);
    expect(await cache.get('k', async () => 2)).toBe(2);
    expect(await cache.get('k', async () => 3)).toBe(2); // kept now
    // A value past its `until` is loaded again.
    expect(await cache.get('u', async () => 7)).toBe(7);
    expect(await cache.get('u', async () => 8)).toBe(8);
  });
});

/** The chain's reads on the embedded chain (anvil): the earnings chart and the plans' waiting payments. */
describe('chain reads kept by their tables stay exact (embedded chain)', () => {
  let t: TestApp;
  let alice: User;
  const call = apiCaller(() => t.app);
  const sql = (text: string, params: unknown[] = []) => t.ctx.database.sql.query(text, params);

  beforeAll(async () => {
    t = await makeTestApp({ CHAIN: 'embedded' });
    alice = await createTestUser(t);
  }, 120_000);
  afterAll(async () => t?.close());

  it('GET /api/earnings/history and the pending payments of GET /api/plans', async () => {
    const chainId = t.ctx.config.chain.chainId;
    const history = async () => {
      const r = await call(alice, 'GET', '/api/earnings/history?days=7');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body as {
        address: string | null;
        points: { t: number; pool_available: number; rewards: number }[];
      };
    };
    const before = await history();
    expect((await history()).points.length).toBe(before.points.length); // kept now
    // A snapshot an hour ago (raw SQL): one more point.
    const at = new Date(Date.now() - 3_600_000);
    await sql(
      `INSERT INTO chain_snapshots (chain_id, taken_at, pool_available, total_staked) VALUES ($1, $2, 1234, 0)`,
      [chainId, at.toISOString()],
    );
    const withSnap = await history();
    expect(withSnap.points.length).toBe(before.points.length + 1);
    expect(withSnap.points.some((p) => p.t === at.getTime() && p.pool_available === 1234)).toBe(true);
    // A snapshot older than the window: no point.
    await sql(
      `INSERT INTO chain_snapshots (chain_id, taken_at, pool_available, total_staked) VALUES ($1, $2, 99, 0)`,
      [chainId, new Date(Date.now() - 8 * 86_400_000).toISOString()],
    );
    expect((await history()).points.length).toBe(withSnap.points.length);
    // A linked wallet (raw SQL): the answer names it.
    const address = `0x${'34'.repeat(20)}`;
    await sql(`INSERT INTO chain_wallets (user_id, address) VALUES ($1, $2)`, [alice.id, address]);
    expect((await history()).address).toBe(address);

    // A payment waiting for confirmations (the indexer's unconfirmed event), then confirmed.
    const plans = async () => {
      const r = await call(alice, 'GET', '/api/plans');
      expect(r.status).toBe(200);
      return r.body as { payment_ref: string; pending: { tx_hash: string }[] };
    };
    const first = await plans();
    expect(first.pending).toEqual([]);
    const tx = `0x${'ef'.repeat(32)}`;
    await sql(
      `INSERT INTO chain_events (chain_id, block_hash, log_index, block_number, block_time, tx_hash, contract, name, args)
       VALUES ($1, $2, 0, 1, now(), $3, 'plans', 'PlanPaid', $4::jsonb)`,
      [chainId, `0x${'12'.repeat(32)}`, tx, JSON.stringify({ ref: first.payment_ref, plan: '1' })],
    );
    expect((await plans()).pending.map((p) => p.tx_hash)).toEqual([tx]);
    await sql(`UPDATE chain_events SET confirmed = true WHERE tx_hash = $1`, [tx]);
    expect((await plans()).pending).toEqual([]);
  }, 60_000);
});
