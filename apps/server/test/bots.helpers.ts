import { randomUUID } from 'node:crypto';
import {
  MemoryPaperStore,
  PaperVenue,
  SimulatedMarketData,
  type CreateOrderRequest,
  type MarketSimulator,
  type Order,
  type OrderListener,
  type Ticker,
  type Venue,
} from '@bytx/venues';
import { createDcaBot } from '@bytx/engine';
import pino from 'pino';
import type { MarketHub, VenueRegistry } from '../src/context';
import type { Database } from '../src/db/client';
import { users } from '../src/db/schema/index';
import type { BotsRepository } from '../src/modules/bots/bots.repository';
import { dcaMarketRules } from '../src/modules/bots/market-rules';
import { botKinds } from '../src/modules/bots/kinds';
import { BotRunner, strategyIdOf } from '../src/modules/bots/runner';

/** Polls `fn` every 20 ms until it gives a truthy value (returned), failing after `ms`. */
export async function until<T>(fn: () => Promise<T | null | false | undefined>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Waits until `fn` answers a value (truthy) that then stays the same (as JSON) for `quietMs`: a price
 * move can fill one order and the bot's answer to it fill the next, so the first answer seen after a
 * move may be a step of a chain still running. With the price held, the chain ends and the value holds.
 */
export async function untilSettled<T>(
  fn: () => Promise<T | null | false | undefined>,
  ms = 10_000,
  quietMs = 500,
): Promise<T> {
  const end = Date.now() + ms;
  let last: string | null = null;
  let since = 0;
  for (;;) {
    const v = await fn();
    const seen = v ? JSON.stringify(v) : null;
    if (seen !== null && seen === last) {
      if (Date.now() - since >= quietMs) return v as T;
    } else {
      last = seen;
      since = Date.now();
    }
    if (Date.now() > end) throw new Error('condition not met and settled in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The market hub as the runner uses it, straight on a simulator's exchange (prices pushed as tickers). */
export function simulatedHub(sim: MarketSimulator, exchange: string): MarketHub {
  const feed = new SimulatedMarketData(sim, exchange);
  return {
    subscribe: (_e: string, s: string, l: (t: Ticker) => void) =>
      feed.subscribe(s, (price, ts) =>
        l({ symbol: s, last: price, bid: null, ask: null, percentage: null, timestamp: ts }),
      ),
    ticker: async (_e: string, s: string) => sim.ticker(exchange, s),
    market: async (_e: string, s: string) => sim.market(exchange, s),
  } as unknown as MarketHub;
}

/** A new Grid Bot DCA state on a simulated pair: `amount` USDT a buy, TP 1%, separation 1%, 3 OS, LONG. */
export function newDcaState(
  sim: MarketSimulator,
  exchange: string,
  symbol: string,
  botId: string,
  amount = 20,
) {
  return createDcaBot(strategyIdOf(botId), {
    symbol,
    amount,
    tpPct: 1,
    sepPct: 1,
    os: 3,
    direction: 'LONG',
    raEnabled: false,
    market: dcaMarketRules(sim.market(exchange, symbol)),
  });
}

/**
 * A venue that hands every call to a paper account: tests subclass it and override the one call they
 * script (a refused create, a muted push...), keeping the rest of the paper account as it is.
 */
export class PaperPassThrough implements Venue {
  readonly kind = 'paper' as const;
  constructor(
    readonly paper: PaperVenue,
    readonly exchange: string,
  ) {}
  createOrder(req: CreateOrderRequest): Promise<Order> {
    return this.paper.createOrder(req);
  }
  loadMarkets() {
    return this.paper.loadMarkets();
  }
  fetchTicker(s: string) {
    return this.paper.fetchTicker(s);
  }
  fetchOrderBook(s: string, l?: number) {
    return this.paper.fetchOrderBook(s, l);
  }
  fetchOHLCV(...a: Parameters<Venue['fetchOHLCV']>) {
    return this.paper.fetchOHLCV(...a);
  }
  fetchBalance() {
    return this.paper.fetchBalance();
  }
  cancelOrder(id: string, s: string) {
    return this.paper.cancelOrder(id, s);
  }
  fetchOrder(id: string, s: string) {
    return this.paper.fetchOrder(id, s);
  }
  fetchOrderByClientId(id: string, s: string) {
    return this.paper.fetchOrderByClientId(id, s);
  }
  fetchOpenOrders(s?: string) {
    return this.paper.fetchOpenOrders(s);
  }
  fetchDepositAddress(c: string) {
    return this.paper.fetchDepositAddress(c);
  }
  createDepositAddress(c: string) {
    return this.paper.createDepositAddress(c);
  }
  onOrderUpdate(l: OrderListener): () => void {
    return this.paper.onOrderUpdate(l);
  }
  flush() {
    return this.paper.flush();
  }
  close() {
    return Promise.resolve();
  }
}

/** A paper account on the simulator's `exchange` prices, its orders kept in memory. */
export function memoryPaper(sim: MarketSimulator, exchange: string): PaperVenue {
  return new PaperVenue({
    accountId: 'acct',
    feed: new SimulatedMarketData(sim, exchange),
    store: new MemoryPaperStore(),
  });
}

/** A new user row (a random e-mail); its id. */
export async function insertTestUser(db: Database['db']): Promise<string> {
  const [u] = await db
    .insert(users)
    .values({ email: `${randomUUID()}@example.com`, passwordHash: 'x' })
    .returning();
  return u!.id;
}

/** A new active Grid Bot DCA bot of `userId` (see newDcaState); its id. */
export async function insertDcaBot(
  repo: BotsRepository,
  sim: MarketSimulator,
  exchange: string,
  symbol: string,
  userId: string,
  amount = 20,
): Promise<string> {
  const id = randomUUID();
  const state = newDcaState(sim, exchange, symbol, id, amount);
  await repo.insertBot({ id, userId, exchange, symbol, config: {}, state, status: 'active' });
  return id;
}

/**
 * A runner as the bot tests use it: every bot's lease taken, steps run on their own, retries after 5 ms
 * and a heartbeat of an hour (none during a test), every user on `venue` as a paper connection.
 */
export function testRunner(opts: {
  store: ConstructorParameters<typeof BotRunner>[0]['store'];
  market: () => MarketHub;
  venue: Venue;
  runnerId: string;
  onStep?: (botId: string) => void;
}): BotRunner {
  const venue = opts.venue;
  const registry: VenueRegistry = { forUser: async () => venue, connectionKind: async () => 'paper' };
  return new BotRunner({
    kinds: botKinds,
    ...(opts.onStep ? { onStep: opts.onStep } : {}),
    store: opts.store,
    market: opts.market,
    venues: () => registry,
    log: pino({ level: 'silent' }),
    runnerId: opts.runnerId,
    takeAllLeases: true,
    autoRun: true,
    retryBaseMs: 5,
    heartbeatMs: 3_600_000,
  });
}
