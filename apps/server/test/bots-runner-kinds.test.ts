import { randomUUID } from 'node:crypto';
import type { StepResult, Strategy, StrategyCommand, StrategyEvent } from '@bytx/engine';
import {
  MarketSimulator,
  MemoryPaperStore,
  PaperVenue,
  SimulatedMarketData,
  type Ticker,
  type Venue,
} from '@bytx/venues';
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MarketHub, VenueRegistry } from '../src/context';
import { type Database } from '../src/db/client';
import { botTrades, users } from '../src/db/schema/index';
import { BotsRepository } from '../src/modules/bots/bots.repository';
import { botKinds } from '../src/modules/bots/kinds';
import { BotRunner, strategyIdOf } from '../src/modules/bots/runner';
import { until } from './bots.helpers';
// The test kind (its server module, kinds/two-markets/kind.ts, runs through the app in
// bots-kind-module.test.ts): a kind the runner has never heard of, following a second market.
import { OTHER, OWN, twoMarkets, type TwoMarketState } from './kinds/two-markets/strategy';
import { openTestDatabase } from './db-snapshot';

/**
 * A kind that decides on order books (as arbitrage does): once it has seen the book of both markets it
 * sends one market order to each exchange in ONE step, and records a trade naming both exchanges when
 * both filled.
 */
interface BooksState {
  botId: string;
  seq: number;
  /** exchange → best ask seen with the tick's book. */
  asks: Record<string, number>;
  legs: string[];
  fills: Record<string, number>;
  done: boolean;
}

const booksKind: Strategy<BooksState, null> = {
  kind: 'books_test',
  create: (botId) => ({ botId, seq: 1, asks: {}, legs: [], fills: {}, done: false }),
  step(state, event: StrategyEvent): StepResult<BooksState> {
    const s: BooksState = {
      ...state,
      asks: { ...state.asks },
      legs: [...state.legs],
      fills: { ...state.fills },
    };
    const commands: StrategyCommand[] = [];
    if (event.type === 'tick' && event.book) {
      s.asks[event.exchange ?? OWN.exchange] = event.book.asks[0]![0];
      if (s.legs.length === 0 && s.asks[OWN.exchange] && s.asks[OTHER.exchange]) {
        for (const m of [OWN, OTHER]) {
          const id = `${s.botId}-${s.seq++}`;
          s.legs.push(id);
          commands.push({
            type: 'place_order',
            clientOrderId: id,
            side: 'buy',
            orderType: 'market',
            amount: 0.001,
            role: 'arb_buy',
            exchange: m.exchange,
            symbol: m.symbol,
          });
        }
      }
    } else if (event.type === 'order_filled' && s.legs.includes(event.clientOrderId)) {
      s.fills[event.clientOrderId] = event.price;
      if (!s.done && Object.keys(s.fills).length === 2) {
        s.done = true;
        const [a, b] = s.legs as [string, string];
        commands.push({
          type: 'record_trade',
          trade: {
            lotId: a,
            qty: 0.001,
            buyPrice: s.fills[a]!,
            sellPrice: s.fills[b]!,
            buyTime: event.ts,
            sellTime: event.ts,
            buyFee: 0,
            sellFee: 0,
            pnlNet: 0.001 * (s.fills[b]! - s.fills[a]!),
            buyExchange: OWN.exchange,
            sellExchange: OTHER.exchange,
          },
        });
      }
    } else if (event.type === 'stop') {
      commands.push({ type: 'stopped', reason: 'user_cancel_only' });
    }
    return { state: s, commands };
  },
  samePersisted: (a, b) => a.seq === b.seq && a.done === b.done && a.legs.length === b.legs.length,
  realizedPnl: () => '0',
  extraMarkets: () => [OTHER],
  bookDepth: () => 3,
};

describe('the runner runs any registered kind, across two markets', () => {
  let database: Database;
  let repo: BotsRepository;
  let sim: MarketSimulator;
  let venues: Record<string, PaperVenue>;
  let userId: string;
  const runners: BotRunner[] = [];

  const hub = (): MarketHub => {
    const feeds = new Map(
      [OWN.exchange, OTHER.exchange].map((ex) => [ex, new SimulatedMarketData(sim, ex)] as const),
    );
    return {
      subscribe: (e: string, s: string, l: (t: Ticker) => void) =>
        feeds
          .get(e)!
          .subscribe(s, (price, ts) =>
            l({ symbol: s, last: price, bid: null, ask: null, percentage: null, timestamp: ts }),
          ),
      ticker: async (e: string, s: string) => sim.ticker(e, s),
      market: async (e: string, s: string) => sim.market(e, s),
      orderBook: async (e: string, s: string, limit?: number) => sim.orderBook(e, s, limit),
    } as unknown as MarketHub;
  };
  /** What a venue wrapper saw (the runner is given `wrapped` venues when set). */
  let wrapped: Record<string, Venue> | null = null;
  const newRunner = () => {
    const registry: VenueRegistry = {
      forUser: async (_u: string, ex: string) => (wrapped?.[ex] ?? venues[ex]) as Venue,
      connectionKind: async () => 'paper',
    };
    const r = new BotRunner({
      store: repo,
      market: hub,
      venues: () => registry,
      log: pino({ level: 'silent' }),
      runnerId: `k-${runners.length}`,
      kinds: new Map([...botKinds, [twoMarkets.kind, twoMarkets], [booksKind.kind, booksKind]]),
      takeAllLeases: true,
      autoRun: true,
      retryBaseMs: 5,
      heartbeatMs: 3_600_000,
    });
    runners.push(r);
    return r;
  };
  const state = async (id: string) => (await repo.byId(id))!.state as TwoMarketState;

  beforeEach(async () => {
    database = await openTestDatabase();
    repo = new BotsRepository(database.db);
    const [u] = await database.db
      .insert(users)
      .values({ email: `${randomUUID()}@example.com`, passwordHash: 'x' })
      .returning();
    userId = u!.id;
    sim = new MarketSimulator({ seed: 5 });
    sim.setPrice(OWN.exchange, OWN.symbol, 100_000);
    sim.setPrice(OTHER.exchange, OTHER.symbol, 100_400);
    venues = Object.fromEntries(
      [OWN.exchange, OTHER.exchange].map((ex) => [
        ex,
        new PaperVenue({
          accountId: `acct-${ex}`,
          feed: new SimulatedMarketData(sim, ex),
          store: new MemoryPaperStore(),
        }),
      ]),
    );
  });
  afterEach(async () => {
    wrapped = null;
    for (const r of runners.splice(0)) await r.close();
    await database.close();
  });

  it('feeds both markets with their names, sends the order to the other exchange and reconciles it there', async () => {
    const id = randomUUID();
    const botId = strategyIdOf(id);
    await repo.insertBot({
      id,
      userId,
      kind: twoMarkets.kind,
      exchange: OWN.exchange,
      symbol: OWN.symbol,
      config: {},
      state: twoMarkets.create(botId, null),
      status: 'active',
    });
    const first = newRunner();
    await first.start();
    sim.setPrice(OTHER.exchange, OTHER.symbol, 100_500);
    sim.setPrice(OWN.exchange, OWN.symbol, 100_100);
    const s1 = await until(async () => {
      const s = await state(id);
      return s.order && s.ticks.some((t) => t.startsWith('binance|')) ? s : null;
    });
    expect(s1.ticks.some((t) => t.startsWith('bybit|BTC/USDT|'))).toBe(true);
    // The order went to bybit, journaled with its exchange; binance has none of it.
    const placed = await until(async () => {
      const o = await venues.bybit!.fetchOrderByClientId(s1.order!, OTHER.symbol);
      return o?.status === 'open' ? o : null;
    });
    expect(placed.price).toBe(50_250);
    expect(await venues.binance!.fetchOrderByClientId(s1.order!, OWN.symbol)).toBeNull();
    // The journal row was written before the send; its 'open' is written after the venue's answer.
    const row = await until(async () => {
      const [r] = await repo.liveOrders(id);
      return r?.status === 'open' ? r : null;
    });
    expect(row).toMatchObject({
      clientOrderId: s1.order,
      exchange: 'bybit',
      symbol: OTHER.symbol,
      status: 'open',
    });

    // A kind-specific action reaches the strategy through the same queue.
    await first.act(id, { type: 'action', name: 'note', params: { x: 1 }, ts: Date.now() });
    expect((await state(id)).notes).toEqual(['note:{"x":1}']);

    // The process dies. Meanwhile the order is cancelled on bybit, and a stranger order with the bot's
    // prefix appears there: the next process must settle the first and sweep the second, on bybit.
    first.abandon();
    await venues.bybit!.cancelOrder(placed.id, OTHER.symbol);
    const stranger = await venues.bybit!.createOrder({
      symbol: OTHER.symbol,
      side: 'buy',
      type: 'limit',
      price: 40_000,
      amount: 0.001,
      clientOrderId: `${botId}-999`,
    });
    const second = newRunner();
    await second.start();
    await until(async () => ((await state(id)).settled.length === 1 ? true : null));
    expect((await state(id)).settled).toEqual([`order_cancelled:${s1.order}`]);
    expect(await repo.liveOrders(id)).toEqual([]);
    expect((await venues.bybit!.fetchOrderByClientId(stranger.clientOrderId!, OTHER.symbol))?.status).toBe(
      'canceled',
    );
    const codes = (await repo.events(id, 50)).map((e) => e.code);
    expect(codes).toContain('reconcile_unknown_order');

    // Stop: common to every kind.
    expect(await second.stopBot(id, 'cancel_only', 5_000)).toBe(true);
    expect((await repo.byId(id))!.status).toBe('stopped');
  });

  it('refuses to run a bot of a kind it does not know, and runs the others', async () => {
    const id = randomUUID();
    await repo.insertBot({
      id,
      userId,
      kind: 'no_such_kind',
      exchange: OWN.exchange,
      symbol: OWN.symbol,
      config: {},
      state: { botId: strategyIdOf(id) },
      status: 'active',
    });
    const r = newRunner();
    await expect(r.get(id)).rejects.toThrow(/unknown kind: no_such_kind/);
    expect(r.has(id)).toBe(false);
  });

  it('gives a book strategy the books of both markets and sends the two legs of one step together, both journaled first', async () => {
    const id = randomUUID();
    const botId = strategyIdOf(id);
    // Each createOrder takes 150 ms: sent one after the other, the second would start after the first
    // ended. Each call also looks in the journal: both legs must be there before either is sent.
    const calls: { exchange: string; start: number; end: number; journaled: number }[] = [];
    wrapped = Object.fromEntries(
      Object.entries(venues).map(([ex, v]) => [
        ex,
        new Proxy(v, {
          get(target, prop, receiver) {
            if (prop !== 'createOrder') {
              const value = Reflect.get(target, prop, receiver) as unknown;
              return typeof value === 'function'
                ? (value as (...a: unknown[]) => unknown).bind(target)
                : value;
            }
            return async (...args: Parameters<Venue['createOrder']>) => {
              const start = performance.now();
              const journaled = (await repo.knownClientIds(id)).size;
              await new Promise((r) => setTimeout(r, 150));
              const order = await target.createOrder(...args);
              calls.push({ exchange: ex, start, end: performance.now(), journaled });
              return order;
            };
          },
        }) as Venue,
      ]),
    );
    await repo.insertBot({
      id,
      userId,
      kind: booksKind.kind,
      exchange: OWN.exchange,
      symbol: OWN.symbol,
      config: {},
      state: booksKind.create(botId, null),
      status: 'active',
    });
    const r = newRunner();
    await r.start();
    const done = await until(async () => ((await state(id)) as unknown as BooksState).done || null);
    expect(done).toBe(true);
    const s = (await repo.byId(id))!.state as BooksState;
    // The ticks carried each market's own book: the best ask is above each held price.
    expect(s.asks[OWN.exchange]).toBeGreaterThan(100_000);
    expect(s.asks[OTHER.exchange]).toBeGreaterThan(100_400);
    expect(calls.map((c) => c.exchange).sort()).toEqual(['binance', 'bybit']);
    const [first, second] = [...calls].sort((a, b) => a.start - b.start) as [
      (typeof calls)[0],
      (typeof calls)[0],
    ];
    expect(second.start).toBeLessThan(first.end);
    expect(calls.every((c) => c.journaled >= 2)).toBe(true);
    const [trade] = await database.db.select().from(botTrades).where(eq(botTrades.botId, id));
    expect(trade).toMatchObject({ exchange: 'binance', sellExchange: 'bybit' });
    expect(Number(trade!.buyPrice)).toBeGreaterThan(100_000);
    expect(Number(trade!.sellPrice)).toBeGreaterThan(100_400);
  });
});
