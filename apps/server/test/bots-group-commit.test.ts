import { randomUUID } from 'node:crypto';
import type { DcaState } from '@bytx/engine';
import {
  MarketSimulator,
  PaperVenue,
  SimulatedMarketData,
  type CreateOrderRequest,
  type Order,
  type Venue,
} from '@bytx/venues';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VenueRegistry } from '../src/context';
import { type Database } from '../src/db/client';
import { users } from '../src/db/schema/index';
import { BotsRepository } from '../src/modules/bots/bots.repository';
import { botKinds } from '../src/modules/bots/kinds';
import { BotRunner } from '../src/modules/bots/runner';
import { GroupCommitStore } from '../src/modules/bots/runner/group-commit';
import { DbPaperStore, paperAccountId } from '../src/modules/exchanges/paper-store';
import { newDcaState, simulatedHub, until } from './bots.helpers';
import { openTestDatabase } from './db-snapshot';

const EX = 'binance';
const SYM = 'BTC/USDT';

// Group commit (runner/group-commit.ts, lib/batcher.ts) and DbPaperStore: writes made together share
// one transaction, yet each caller is answered only once its write is committed, reads see every
// write made before them, and one bad write fails only its own caller.
describe('group commit of the runner and paper writes (PGlite)', () => {
  let database: Database;
  let repo: BotsRepository;
  let store: GroupCommitStore;
  let userId: string;

  const newBot = async () => {
    const id = randomUUID();
    const sim = new MarketSimulator({ seed: 3 });
    sim.setPrice(EX, SYM, 100_000);
    const state = newDcaState(sim, EX, SYM, id, 20);
    await repo.insertBot({
      id,
      userId,
      exchange: EX,
      symbol: `${SYM}-${id.slice(0, 6)}`,
      config: {},
      state,
      status: 'active',
    });
    return id;
  };
  const order = (botId: string, cid: string) => ({
    clientOrderId: cid,
    botId,
    symbol: SYM,
    side: 'buy' as const,
    type: 'limit' as const,
    price: '100',
    amount: '0.1',
    role: 'entry',
    status: 'pending_submit' as const,
  });

  beforeEach(async () => {
    database = await openTestDatabase();
    repo = new BotsRepository(database.db);
    store = new GroupCommitStore(repo, database.db);
    const [u] = await database.db
      .insert(users)
      .values({ email: `${randomUUID()}@example.com`, passwordHash: 'x' })
      .returning();
    userId = u!.id;
  });
  afterEach(async () => {
    await database.close();
  });

  it('commits writes made together as sequential writes would, each caller answered after its commit', async () => {
    const a = await newBot();
    const b = await newBot();
    const stateA = { ...((await repo.byId(a))!.state as object), marker: 'a2' };
    // Made in one turn: one batch. Later writes of a bot win field by field; the order inserted by the
    // first write gets the update of the third.
    const writes = [
      store.write({ botId: a, state: { marker: 'a1' }, pnl: '1', newOrders: [order(a, 'ca-1')] }),
      store.write({ botId: b, pnl: '2', events: [{ botId: b, level: 'info', code: 'one', params: {} }] }),
      store.write({
        botId: a,
        state: stateA,
        orderUpdates: [{ clientOrderId: 'ca-1', patch: { status: 'open', venueOrderId: '7' } }],
        events: [{ botId: a, level: 'warn', code: 'two', params: { n: 1 } }],
      }),
      store.updateOrder('ca-1', { filled: '0.05' }),
      store.event({ botId: b, level: 'error', code: 'three', params: {} }),
    ];
    expect(store.pending).toBe(5);
    await Promise.all(writes);
    expect(store.pending).toBe(0);
    const rowA = (await repo.byId(a))!;
    expect(rowA.state).toEqual(stateA);
    expect(rowA.pnl).toBe('1');
    expect((await repo.byId(b))!.pnl).toBe('2');
    const o = (await repo.order('ca-1'))!;
    expect([o.status, o.venueOrderId, Number(o.filled), Number(o.price)]).toEqual(['open', '7', 0.05, 100]);
    expect((await repo.events(a, 10)).map((e) => [e.code, e.level, e.params])).toEqual([
      ['two', 'warn', { n: 1 }],
    ]);
    // Log lines keep their order (newest first here).
    expect((await repo.events(b, 10)).map((e) => e.code)).toEqual(['three', 'one']);
  });

  it('a stop clears the problem, as BotsRepository.write does', async () => {
    const a = await newBot();
    await repo.updateBot(a, { problem: 'auth_failed', problemDetail: 'key refused' });
    await store.write({ botId: a, status: 'stopped', stopReason: 'user', stoppedAt: new Date() });
    const row = (await repo.byId(a))!;
    expect([row.status, row.stopReason, row.problem, row.problemDetail]).toEqual([
      'stopped',
      'user',
      null,
      null,
    ]);
  });

  it('reads wait for the writes made before them', async () => {
    const a = await newBot();
    // Not awaited: the reads below must still see it (the runner reads what it wrote).
    void store.write({ botId: a, newOrders: [order(a, 'ra-1'), order(a, 'ra-2')] });
    void store.updateOrder('ra-2', { status: 'filled' });
    const [live, known] = await Promise.all([store.liveOrders(a), store.knownClientIds(a)]);
    expect(live.map((o) => o.clientOrderId)).toEqual(['ra-1']);
    expect([...known].sort()).toEqual(['ra-1', 'ra-2']);
    // Coalesced reads of several bots answer each its own rows.
    const b = await newBot();
    const [ra, rb, rx] = await Promise.all([store.byId(a), store.byId(b), store.byId(randomUUID())]);
    expect([ra?.id, rb?.id, rx]).toEqual([a, b, null]);
  });

  it('one bad write fails only its own caller; the rest of its batch is committed', async () => {
    const a = await newBot();
    const ghost = randomUUID();
    const results = await Promise.allSettled([
      store.write({ botId: a, pnl: '5', newOrders: [order(a, 'ok-1')] }),
      // No such bot: the journal row breaks its foreign key, which rolls the whole batch back.
      store.write({ botId: ghost, newOrders: [order(ghost, 'bad-1')] }),
      store.event({ botId: a, level: 'info', code: 'after', params: {} }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await repo.byId(a))!.pnl).toBe('5');
    expect(await repo.order('ok-1')).not.toBeNull();
    expect(await repo.order('bad-1')).toBeNull();
    expect((await repo.events(a, 10)).map((e) => e.code)).toEqual(['after']);
  });

  it('paper saves of many accounts made together are one transaction, all stored, and loads read them back', async () => {
    let transactions = 0;
    const counted = new Proxy(database.db, {
      get: (target, key) =>
        key === 'transaction'
          ? (...args: Parameters<typeof target.transaction>) => {
              transactions++;
              return target.transaction(...args);
            }
          : (Reflect.get(target, key) as unknown),
    });
    const paper = new DbPaperStore(counted);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const [u] = await database.db
        .insert(users)
        .values({ email: `${randomUUID()}@example.com`, passwordHash: 'x' })
        .returning();
      ids.push(paperAccountId(u!.id, EX));
    }
    const orderOf = (i: number, id: string, status: Order['status']) =>
      ({ id, clientOrderId: `c${i}-${id}`, symbol: SYM, status, filled: 0, amount: 1 }) as unknown as Order;
    await Promise.all(
      ids.map((acc, i) =>
        paper.save(acc, {
          balances: { USDT: { free: 100 + i, used: 0 } },
          seq: 2,
          orders: [orderOf(i, '1', 'closed'), orderOf(i, '2', 'open')],
        }),
      ),
    );
    expect(transactions).toBe(1);
    // A second round: one order of each account changes, the derivatives part comes with one only.
    await Promise.all(
      ids.map((acc, i) =>
        paper.save(acc, {
          balances: { USDT: { free: 200 + i, used: 1 } },
          seq: 3,
          orders: [orderOf(i, '2', 'canceled'), orderOf(i, '3', 'open')],
          ...(i === 0 ? { derivatives: { marker: 1 } as never } : {}),
        }),
      ),
    );
    expect(transactions).toBe(2);
    // Loaded together and alone: the same answer.
    const together = await Promise.all(ids.map((acc) => paper.load(acc)));
    for (const [i, acc] of ids.entries()) {
      const alone = await new DbPaperStore(database.db).load(acc);
      for (const s of [together[i], alone]) {
        expect(s?.balances).toEqual({ USDT: { free: 200 + i, used: 1 } });
        expect(s?.seq).toBe(3);
        expect(s?.orders.filter((o) => o.status === 'open').map((o) => o.id)).toEqual(['3']);
        expect(
          s?.orders
            .filter((o) => o.status !== 'open')
            .map((o) => o.id)
            .sort(),
        ).toEqual(['1', '2']);
        expect(s?.derivatives).toEqual(i === 0 ? { marker: 1 } : undefined);
      }
    }
    expect(await paper.load(paperAccountId(randomUUID(), EX))).toBeNull();
  });
});

describe('bot runner on the group-commit store and the database paper store', () => {
  let database: Database;

  afterEach(async () => {
    await database.close();
  });

  it('journals every order before the venue sees it, and trades through fills into history', async () => {
    database = await openTestDatabase();
    const repo = new BotsRepository(database.db);
    const store = new GroupCommitStore(repo, database.db);
    const sim = new MarketSimulator({ seed: 3 });
    sim.setPrice(EX, SYM, 100_000);
    const feed = new SimulatedMarketData(sim, EX);
    const paperStore = new DbPaperStore(database.db);
    const venues = new Map<string, Venue>();
    /** Journal status of each order as a separate read saw it when the venue was called. */
    const seenAtSend: (string | null)[] = [];
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const [u] = await database.db
        .insert(users)
        .values({ email: `${randomUUID()}@example.com`, passwordHash: 'x' })
        .returning();
      const paper = new PaperVenue({ accountId: paperAccountId(u!.id, EX), feed, store: paperStore });
      const createOrder = paper.createOrder.bind(paper);
      paper.createOrder = async (req: CreateOrderRequest) => {
        seenAtSend.push((await repo.order(req.clientOrderId))?.status ?? null);
        return createOrder(req);
      };
      venues.set(u!.id, paper);
      const id = randomUUID();
      await repo.insertBot({
        id,
        userId: u!.id,
        exchange: EX,
        symbol: SYM,
        config: {},
        state: newDcaState(sim, EX, SYM, id, 20),
        status: 'active',
      });
      ids.push(id);
    }
    const registry: VenueRegistry = {
      forUser: async (userId) => venues.get(userId)!,
      connectionKind: async () => 'paper',
    };
    const runner = new BotRunner({
      kinds: botKinds,
      store,
      market: () => simulatedHub(sim, EX),
      venues: () => registry,
      log: pino({ level: 'silent' }),
      runnerId: 'gc',
      takeAllLeases: true,
      autoRun: true,
      retryBaseMs: 5,
      heartbeatMs: 3_600_000,
    });
    await runner.start();
    const stateOf = async (id: string) => (await repo.byId(id))!.state as DcaState;
    for (const id of ids) await until(async () => (await stateOf(id)).lots.length === 1);
    // Down through the first ladder buy, then up through the take profits: every bot fills at once.
    sim.setPrice(EX, SYM, 98_900);
    for (const id of ids) await until(async () => (await stateOf(id)).lots.length === 2);
    sim.setPrice(EX, SYM, 101_500);
    for (const id of ids) await until(async () => (await repo.tradesOf(id)).length === 2);
    await runner.idle();
    expect(seenAtSend.length).toBeGreaterThan(ids.length * 4);
    expect(new Set(seenAtSend)).toEqual(new Set(['pending_submit']));
    for (const [i, id] of ids.entries()) {
      // The journal and the paper account agree on every order's fate.
      const venue = venues.get((await repo.byId(id))!.userId)!;
      for (const o of await repo.ordersOf(id)) {
        const onVenue = await venue.fetchOrderByClientId(o.clientOrderId, SYM);
        const fate = { open: 'open', closed: 'filled', canceled: 'cancelled' }[onVenue!.status as string];
        expect([i, o.clientOrderId, o.status]).toEqual([i, o.clientOrderId, fate]);
      }
      expect(Number((await repo.byId(id))!.pnl)).toBeGreaterThan(0);
    }
    await runner.close();
    for (const v of venues.values()) await v.close();
  });
});

// What a step waits for (runner/bot-handle.ts `step`, `commit`): a fill pushed by the paper venue is
// decided at once but written and carried out only after the venue's save of it; an order is sent only
// once its journal row has committed; a step that sends nothing does not hold the bot's queue for its
// commit, while a user action and `idle()` wait for it.
describe('what the runner waits for on the group-commit store', () => {
  let database: Database;

  afterEach(async () => {
    await database.close();
  });

  /** `db` whose transactions wait while the gate is shut (the writes already made wait with them). */
  const gatedDb = (db: Database['db']) => {
    let gate: Promise<void> = Promise.resolve();
    let release = () => undefined as void;
    const gated = new Proxy(db, {
      get: (target, key) =>
        key === 'transaction'
          ? async (...args: Parameters<typeof target.transaction>) => {
              await gate;
              return target.transaction(...args);
            }
          : (Reflect.get(target, key) as unknown),
    });
    return {
      db: gated,
      shut: () => {
        gate = new Promise<void>((r) => (release = r));
      },
      open: () => release(),
    };
  };

  it('decides a fill before its paper save commits, sends nothing ahead of a commit, and waits for no write that sends nothing', async () => {
    database = await openTestDatabase();
    const repo = new BotsRepository(database.db);
    const runnerDb = gatedDb(database.db);
    const paperDb = gatedDb(database.db);
    const sim = new MarketSimulator({ seed: 3 });
    sim.setPrice(EX, SYM, 100_000);
    const [u] = await database.db
      .insert(users)
      .values({ email: `${randomUUID()}@example.com`, passwordHash: 'x' })
      .returning();
    const paper = new PaperVenue({
      accountId: paperAccountId(u!.id, EX),
      feed: new SimulatedMarketData(sim, EX),
      store: new DbPaperStore(paperDb.db),
    });
    const sent: string[] = [];
    const createOrder = paper.createOrder.bind(paper);
    paper.createOrder = (req: CreateOrderRequest) => {
      sent.push(req.clientOrderId);
      return createOrder(req);
    };
    const id = randomUUID();
    await repo.insertBot({
      id,
      userId: u!.id,
      exchange: EX,
      symbol: SYM,
      config: {},
      state: newDcaState(sim, EX, SYM, id, 20),
      status: 'active',
    });
    const decided: string[] = [];
    const runner = new BotRunner({
      kinds: botKinds,
      store: new GroupCommitStore(repo, runnerDb.db),
      market: () => simulatedHub(sim, EX),
      venues: () => ({ forUser: async () => paper, connectionKind: async () => 'paper' }),
      log: pino({ level: 'silent' }),
      runnerId: 'gc-wait',
      takeAllLeases: true,
      autoRun: true,
      retryBaseMs: 5,
      heartbeatMs: 3_600_000,
      onStep: (_id, _ms, _n, source) => decided.push(source),
    });
    await runner.start();
    const stateOf = async () => (await repo.byId(id))!.state as DcaState;
    await until(
      async () => (await stateOf()).lots.length === 1 && (await stateOf()).waitingBuys.length === 3,
    );
    await runner.idle();
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

    // 1. The first ladder buy (99,000) fills while the paper account's save cannot commit: the bot
    // decides on the fill at once, but neither writes the fill nor sends its take profit before the save.
    const ladder = (await repo.liveOrders(id)).find(
      (o) => o.role === 'ladder_buy' && Number(o.price) > 98_900,
    )!;
    paperDb.shut();
    decided.length = 0;
    sent.length = 0;
    sim.setPrice(EX, SYM, 98_900);
    await until(async () => decided.includes('order'));
    await sleep(100);
    expect((await repo.order(ladder.clientOrderId))!.status).toBe('open');
    expect((await stateOf()).lots.length).toBe(1);
    expect(sent).toEqual([]);
    paperDb.open();
    await until(async () => (await stateOf()).lots.length === 2 && sent.length > 0);
    expect((await repo.order(ladder.clientOrderId))!.status).toBe('filled');
    await runner.idle();

    // 2. The runner's own commits held: the next fill is decided, but its orders wait for their journal.
    runnerDb.shut();
    decided.length = 0;
    sent.length = 0;
    sim.setPrice(EX, SYM, 97_900);
    await until(async () => decided.includes('order'));
    await sleep(100);
    expect(sent).toEqual([]);
    runnerDb.open();
    await until(async () => (await stateOf()).lots.length === 3 && sent.length > 0);
    for (const cid of sent) expect((await repo.order(cid))?.clientOrderId).toBe(cid);
    await runner.idle();

    // 3. A user action that sends nothing (a stop loss set): the bot's queue is free before its write
    // commits, so the next event is not held behind it; the action's caller and idle() wait for it.
    runnerDb.shut();
    const h = runner.handle(id)!;
    let acted = false;
    let idled = false;
    const action = h.action({ type: 'set_sl', sl: 90_000, ts: Date.now() }).then(() => (acted = true));
    const idle = runner.idle().then(() => (idled = true));
    await until(async () => !h.isBusy);
    await sleep(100);
    expect([acted, idled]).toEqual([false, false]);
    expect((await stateOf()).config.sl ?? null).toBeNull();
    runnerDb.open();
    await Promise.all([action, idle]);
    expect((await stateOf()).config.sl).toBe(90_000);
    expect((await repo.events(id, 50)).map((e) => e.code)).toContain('sl_set');

    await runner.close();
    await paper.close();
  });
});
