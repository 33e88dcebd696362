import { randomUUID } from 'node:crypto';
import type { DcaState } from '@bytx/engine';
import {
  AuthenticationError,
  MarketSimulator,
  MemoryPaperStore,
  PaperVenue,
  SimulatedMarketData,
  VenueNetworkError,
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
import { BotRunner, strategyIdOf } from '../src/modules/bots/runner';
import {
  PaperPassThrough,
  insertDcaBot,
  insertTestUser,
  memoryPaper,
  newDcaState,
  simulatedHub,
  testRunner,
  until,
} from './bots.helpers';
import { openTestDatabase } from './db-snapshot';

const EX = 'binance';
const SYM = 'BTC/USDT';

/** A PaperVenue with faults on demand: a refused create, or a create that lands and then times out. */
class FaultyVenue extends PaperPassThrough {
  /** Errors thrown by the next createOrder calls, before the order reaches the venue. */
  failBefore: Error[] = [];
  /** The next N createOrder calls place the order and then throw a network error (a timeout). */
  timeoutsAfter = 0;
  /** The next createOrder never answers (the process "dies" with the order unsent). */
  hangNext = false;
  creates: string[] = [];
  constructor(paper: PaperVenue) {
    super(paper, EX);
  }
  override async createOrder(req: CreateOrderRequest): Promise<Order> {
    this.creates.push(req.clientOrderId);
    const fail = this.failBefore.shift();
    if (fail) throw fail;
    if (this.hangNext) {
      this.hangNext = false;
      return new Promise<Order>(() => undefined);
    }
    const order = await this.paper.createOrder(req);
    if (this.timeoutsAfter > 0) {
      this.timeoutsAfter--;
      throw new VenueNetworkError('timeout', EX);
    }
    return order;
  }
  /** Each lookup by client id takes this long (ms): a slow reconcile. */
  lookupDelayMs = 0;
  lookups = 0;
  override async fetchOrderByClientId(id: string, s: string) {
    this.lookups++;
    if (this.lookupDelayMs > 0) await new Promise((r) => setTimeout(r, this.lookupDelayMs));
    return this.paper.fetchOrderByClientId(id, s);
  }
}

describe('bot runner on a paper venue and the simulated market', () => {
  let database: Database;
  let repo: BotsRepository;
  let sim: MarketSimulator;
  let paper: PaperVenue;
  let venue: FaultyVenue;
  let userId: string;
  const runners: BotRunner[] = [];

  const hub = () => simulatedHub(sim, EX);
  const newRunner = (
    v: Venue = venue,
    onStep?: (botId: string) => void,
    market: () => ReturnType<typeof hub> = hub,
  ) => {
    const r = testRunner({
      ...(onStep ? { onStep } : {}),
      store: repo,
      market,
      venue: v,
      runnerId: `t-${runners.length}`,
    });
    runners.push(r);
    return r;
  };
  const newBot = async (amount = 20) => {
    return insertDcaBot(repo, sim, EX, SYM, userId, amount);
  };
  const stateOf = async (id: string) => (await repo.byId(id))!.state as DcaState;
  const events = async (id: string) => (await repo.events(id, 500)).map((e) => e.code);
  /**
   * A bot trading on a runner whose process "dies" while sending its next order: the journal has the
   * order (`hung`, pending_submit), the venue never got it. The caller abandons `r1` when it is ready.
   */
  const dyingWhileSending = async () => {
    const id = await newBot();
    const r1 = newRunner();
    await r1.start();
    // The three buys are on the venue, not only planned: the state lists an order before it is sent
    // (journal before send), and the next send is the one that must hang.
    await until(async () => {
      const live = await repo.liveOrders(id);
      const sent = live.length > 0 && live.every((o) => o.status === 'open');
      return (await stateOf(id)).waitingBuys.length === 3 && sent ? true : null;
    });
    venue.hangNext = true;
    sim.setPrice(EX, SYM, 98_900);
    const hung = await until(async () => {
      const rows = (await repo.liveOrders(id)).filter((o) => o.status === 'pending_submit');
      return rows.length > 0 ? rows[0] : null;
    });
    return { id, r1, hung };
  };

  beforeEach(async () => {
    database = await openTestDatabase();
    repo = new BotsRepository(database.db);
    userId = await insertTestUser(database.db);
    sim = new MarketSimulator({ seed: 3 });
    sim.setPrice(EX, SYM, 100_000);
    paper = memoryPaper(sim, EX);
    venue = new FaultyVenue(paper);
  });
  afterEach(async () => {
    for (const r of runners.splice(0))
      await Promise.race([r.close(), new Promise((res) => setTimeout(res, 200))]);
    await paper.close();
    await database.close();
  });

  it('fills the entry and a ladder buy, then both take profits into history rows with net PnL', async () => {
    const id = await newBot();
    const runner = newRunner();
    await runner.start();
    await until(
      async () => (await stateOf(id)).waitingBuys.length === 3 && (await stateOf(id)).lots.length === 1,
    );
    sim.setPrice(EX, SYM, 98_900);
    await until(async () => (await stateOf(id)).lots.length === 2);
    sim.setPrice(EX, SYM, 101_500);
    await until(async () => (await repo.tradesOf(id)).length === 2);
    const trades = await repo.tradesOf(id);
    for (const t of trades) {
      const gross = Number(t.qty) * (Number(t.sellPrice) - Number(t.buyPrice));
      expect(Number(t.pnlNet)).toBeCloseTo(gross - Number(t.fees), 8);
      expect(Number(t.pnlNet)).toBeGreaterThan(0);
    }
    expect(Number((await repo.byId(id))!.pnl)).toBeCloseTo(
      trades.reduce((s, t) => s + Number(t.pnlNet), 0),
      8,
    );
    // Every order the venue knows is journaled with the same fate (an order's 'open' is written after
    // the venue's answer: the bot's queue and writes are waited for first).
    await runner.idle();
    for (const o of await paper.fetchOpenOrders(SYM)) {
      expect((await repo.order(o.clientOrderId!))?.status).toBe('open');
    }
  });

  it('notes quiet ticks without writing them, and decides a tick before the price reaches anyone else', async () => {
    const id = await newBot();
    const decided: string[] = [];
    const runner = newRunner(venue, (botId) => decided.push(botId));
    await runner.start();
    await until(
      async () => (await stateOf(id)).waitingBuys.length === 3 && (await stateOf(id)).lots.length === 1,
    );
    await runner.idle();
    const h = runner.handle(id)!;
    const writtenBefore = (await events(id)).length;
    // Entry 100,000 (TP 1%, separation 1%, 3 buys): the range is [97,029.9, 101,000] and the ladder is
    // the same anywhere in it, so 100,200 is a quiet tick: noted, shown when read, never written.
    sim.setPrice(EX, SYM, 100_200);
    expect(h.state.lastPrice).toBe(100_200);
    await runner.idle();
    expect((await stateOf(id)).lastPrice).not.toBe(100_200);
    expect((await events(id)).length).toBe(writtenBefore);

    // 101,500 leaves the range (an out_of_range line): decided inside the price callback, before a
    // listener subscribed after the runner sees the price; carried out (written) afterwards.
    let decidedFirst = false;
    const off = sim.onPairPrice(EX, SYM, () => {
      decidedFirst = decided.length > 0;
    });
    decided.length = 0;
    sim.setPrice(EX, SYM, 101_500);
    off();
    expect(decidedFirst).toBe(true);
    await runner.idle();
    expect(await events(id)).toContain('out_of_range');
    expect((await stateOf(id)).inRange).toBe(false);

    // Back in range at 100,500 (no order crossed): decided, then dropped before its commit (its
    // connection went away): nothing is carried out or written.
    const dropAfterDecision = sim.onPairPrice(EX, SYM, () => runner.drop(id));
    const count = (await events(id)).length;
    decided.length = 0;
    sim.setPrice(EX, SYM, 100_500);
    dropAfterDecision();
    expect(decided).toEqual([id]);
    await new Promise((r) => setTimeout(r, 50));
    expect((await events(id)).length).toBe(count);
    expect(await events(id)).not.toContain('back_in_range');
    expect((await stateOf(id)).inRange).toBe(false);
  });

  it("keeps ticking the other bots of a pair when one bot's step throws", async () => {
    // A bot whose stored state is broken (no market rules): every step of it throws.
    const [other] = await database.db
      .insert(users)
      .values({ email: `${randomUUID()}@example.com`, passwordHash: 'x' })
      .returning();
    const brokenId = randomUUID();
    const broken = newDcaState(sim, EX, SYM, brokenId);
    await repo.insertBot({
      id: brokenId,
      userId: other!.id,
      exchange: EX,
      symbol: SYM,
      config: {},
      state: { ...broken, config: { ...broken.config, market: null } },
      status: 'active',
    });
    const id = await newBot();
    const runner = newRunner();
    await runner.start();
    await until(
      async () => (await stateOf(id)).waitingBuys.length === 3 && (await stateOf(id)).lots.length === 1,
    );
    expect(runner.has(brokenId)).toBe(true);
    // The broken bot is first in the pair's fan-out; the healthy one still leaves the range.
    expect(() => sim.setPrice(EX, SYM, 101_500)).not.toThrow();
    await runner.idle();
    expect(await events(id)).toContain('out_of_range');
    // The broken bot stops with the reason instead of failing on every tick.
    await until(async () => (await repo.byId(brokenId))!.status === 'error');
    expect(await events(brokenId)).toContain('internal_error');
    expect((await repo.byId(brokenId))!.stopReason).toMatch(/^internal_error: /);
    expect(runner.has(brokenId)).toBe(false);
  });

  it('never keeps a venue the registry closed: takes the current one, reconciles, and halts without one', async () => {
    const store = new MemoryPaperStore();
    const feed = new SimulatedMarketData(sim, EX);
    let current: PaperVenue | null = new PaperVenue({ accountId: 'acct-2', feed, store });
    const first = current;
    const registry: VenueRegistry = {
      forUser: async () => {
        if (!current) throw new Error('not connected');
        return current;
      },
      connectionKind: async () => (current ? 'paper' : null),
    };
    const runner = new BotRunner({
      kinds: botKinds,
      store: repo,
      market: hub,
      venues: () => registry,
      log: pino({ level: 'silent' }),
      runnerId: 'evict',
      takeAllLeases: true,
      autoRun: true,
      retryBaseMs: 5,
      heartbeatMs: 3_600_000,
    });
    runners.push(runner);
    const id = await newBot();
    await runner.start();
    await until(
      async () => (await stateOf(id)).waitingBuys.length === 3 && (await stateOf(id)).lots.length === 1,
    );
    // The registry evicts the venue (keys changed elsewhere) and opens a new instance of the account.
    await first.close();
    current = new PaperVenue({ accountId: 'acct-2', feed, store });
    const second = current;
    // The first ladder buy fills on the new instance; the bot hears of it and places its take profit there.
    sim.setPrice(EX, SYM, 98_900);
    await until(async () => (await stateOf(id)).lots.length === 2);
    await until(
      async () => (await second.fetchOpenOrders(SYM)).filter((o) => o.side === 'sell').length === 2,
    );
    await expect(
      first.createOrder({ symbol: SYM, side: 'buy', type: 'market', amount: 0.001, clientOrderId: 'x' }),
    ).rejects.toThrow(/closed/);
    // The connection goes away without the hook (another process removed it): the bot halts.
    await second.close();
    current = null;
    sim.setPrice(EX, SYM, 98_800);
    await until(async () => (await repo.byId(id))!.status === 'stopped');
    expect((await repo.byId(id))!.stopReason).toMatch(/^exchange_disconnected/);
    expect(await events(id)).toContain('exchange_disconnected');
    expect(runner.has(id)).toBe(false);
  });

  it('resolves a create that timed out by looking the order up: placed once, applied once', async () => {
    venue.timeoutsAfter = 1;
    const id = await newBot();
    const runner = newRunner();
    await runner.start();
    await until(
      async () => (await stateOf(id)).lots.length === 1 && (await stateOf(id)).waitingBuys.length === 3,
    );
    const entryCid = `${strategyIdOf(id)}-1`;
    expect(venue.creates.filter((c) => c === entryCid)).toHaveLength(1);
    expect((await repo.order(entryCid))?.status).toBe('filled');
    expect(await events(id)).toContain('exchange_error');
    const bal = await paper.fetchBalance();
    expect(bal.BTC!.total).toBeCloseTo((await stateOf(id)).lots[0]!.qty, 10);
  });

  it('waits for funds on InsufficientFunds, and pauses on a refused key until the key works again', async () => {
    const poor = new PaperVenue({
      accountId: 'poor',
      feed: new SimulatedMarketData(sim, EX),
      store: new MemoryPaperStore(),
      initialBalances: { USDT: 50 },
    });
    const id = await newBot();
    const runner = newRunner(new FaultyVenue(poor));
    await runner.start();
    await until(async () => (await events(id)).includes('insufficient_funds'));
    expect((await repo.byId(id))!.status).toBe('active');
    await runner.close();
    await poor.close();

    await repo.updateBot(id, { status: 'stopped' });
    venue.failBefore.push(new AuthenticationError('API key revoked', EX));
    const id2 = await newBot();
    const r2 = newRunner();
    await r2.start();
    // A refused key pauses the bot (still active, holding what it holds) with the reason...
    const row = await until(async () => {
      const b = await repo.byId(id2);
      return b?.problem === 'auth_failed' ? b : null;
    });
    expect(row.status).toBe('active');
    expect(row.problemDetail).toMatch(/API key revoked/);
    expect(await events(id2)).toContain('auth_failed');
    expect(r2.has(id2)).toBe(false);
    // ...until the key works again (no more failures queued): the next check resumes it.
    await r2.recheckProblems();
    await until(async () => ((await repo.byId(id2))?.problem === null ? true : null));
    expect(await events(id2)).toContain('problem_cleared');
    // Trading again: its entry is retried after the strategy's backoff (the refusal counted as an exchange error).
    expect(r2.has(id2)).toBe(true);
    expect((await stateOf(id2)).buyRetryAt).not.toBeNull();
  });

  it('reconciles after a crash: fills and cancels applied, unsent orders re-planned, strangers cancelled', async () => {
    const { id, r1, hung } = await dyingWhileSending();
    // While it is down: a waiting buy fills, another is cancelled by hand, a stranger order appears.
    const waiting = (await paper.fetchOpenOrders(SYM)).filter((o) => o.side === 'buy');
    const toCancel = waiting.sort((a, b) => (a.price ?? 0) - (b.price ?? 0))[0]!;
    await paper.cancelOrder(toCancel.id, SYM);
    const stranger = `${strategyIdOf(id)}-999`;
    await paper.createOrder({
      symbol: SYM,
      side: 'buy',
      type: 'limit',
      amount: 0.0002,
      price: 50_000,
      clientOrderId: stranger,
    });
    r1.abandon();

    const r2 = newRunner(new FaultyVenue(paper));
    await r2.start();
    await r2.idle();
    const codes = await events(id);
    expect(codes).toContain('reconcile_never_placed');
    expect(codes).toContain('reconcile_unknown_order');
    expect(codes).toContain('resumed');
    expect((await repo.order(hung.clientOrderId))?.status).toBe('cancelled');
    expect(await paper.fetchOrderByClientId(hung.clientOrderId, SYM)).toBeNull();
    expect((await paper.fetchOrderByClientId(stranger, SYM))?.status).toBe('canceled');
    expect((await repo.order(toCancel.clientOrderId!))?.status).toBe('cancelled');
    // The ladder is whole again and every open venue order is journaled as open.
    await until(async () => (await stateOf(id)).waitingBuys.length === 3);
    // The last buy's 'open' is written after the venue's answer: wait for the bot's queue and writes.
    await r2.idle();
    const open = await paper.fetchOpenOrders(SYM);
    for (const o of open) expect((await repo.order(o.clientOrderId!))?.status).toBe('open');
    const journaledOpen = (await repo.liveOrders(id)).filter((o) => o.status === 'open');
    expect(journaledOpen.map((o) => o.clientOrderId).sort()).toEqual(open.map((o) => o.clientOrderId).sort());
    const bal = await paper.fetchBalance();
    const lots = (await stateOf(id)).lots.reduce((s, l) => s + l.qty, 0);
    expect(bal.BTC!.total).toBeCloseTo(lots, 10);
  });

  it('a pair delisted again while its relisted bot is being attached pauses it once attached', async () => {
    const id = await newBot();
    const v = new FaultyVenue(paper);
    const market = {
      ...simulatedHub(sim, EX),
      onListing: (l: (e: { exchange: string; symbol: string; listed: boolean }) => void) => sim.onListing(l),
      listedSymbol: async (_e: string, s: string) => (sim.isListed(EX, s) ? s : null),
    } as unknown as ReturnType<typeof hub>;
    const r = newRunner(v, undefined, () => market);
    await r.start();
    await until(async () => (await stateOf(id)).waitingBuys.length === 3);
    const problem = async () => (await repo.byId(id))?.problem ?? null;

    sim.setListed(EX, SYM, false);
    await until(async () => (await problem()) === 'pair_delisted');
    expect(r.size).toBe(0);

    // Relisted: the bot is reconciled and attached again, slowly (each lookup of a journaled order
    // takes 150 ms); the pair is delisted again in the middle, before the runner lists it as running.
    v.lookupDelayMs = 150;
    const lookups = v.lookups;
    sim.setListed(EX, SYM, true);
    await until(async () => v.lookups > lookups);
    expect(await problem()).toBeNull();
    expect(r.size).toBe(0);
    sim.setListed(EX, SYM, false);
    await until(async () => (await problem()) === 'pair_delisted');
    expect((await repo.byId(id))?.status).toBe('active');
    expect((await events(id)).filter((c) => c === 'pair_delisted')).toHaveLength(2);
    await r.idle();
    expect(r.size).toBe(0);
    sim.setListed(EX, SYM, true);
  });

  it('a graceful close waits for the bots still reconciling: nothing is left half-done', async () => {
    const { id, r1, hung } = await dyingWhileSending();
    r1.abandon();

    // The next process starts and is stopped while it reconciles (each lookup takes 150 ms).
    const slow = new FaultyVenue(paper);
    slow.lookupDelayMs = 150;
    const r2 = newRunner(slow);
    const started = r2.start();
    await until(async () => slow.lookups > 0);
    await r2.close();
    // Once close has returned (the database would close next), the reconcile is complete.
    expect((await repo.order(hung.clientOrderId))?.status).toBe('cancelled');
    expect((await repo.liveOrders(id)).filter((o) => o.status === 'pending_submit')).toEqual([]);
    expect(await events(id)).toContain('reconcile_never_placed');
    await started;
    // And the bot trades no more in the closed runner.
    const creates = slow.creates.length;
    sim.setPrice(EX, SYM, 97_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(slow.creates.length).toBe(creates);
    expect(r2.size).toBe(0);
  });
});
