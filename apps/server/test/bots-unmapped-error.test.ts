import { randomUUID } from 'node:crypto';
import {
  MarketSimulator,
  MemoryPaperStore,
  PaperVenue,
  SimulatedMarketData,
  UnmappedExchangeError,
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
import { BotRunner } from '../src/modules/bots/runner';
import { newDcaState, simulatedHub, until } from './bots.helpers';
import { openTestDatabase } from './db-snapshot';

const EX = 'binance';
const SYM = 'BTC/USDT';
/** What the exchange said, as ccxt quoted it: a code neither our table nor ccxt maps. */
const SAID = 'binance {"code":-1999,"msg":"Something the exchange added last week."}';

/** A paper venue whose every createOrder fails with an error nobody maps. */
class UnmappedVenue implements Venue {
  readonly kind = 'paper' as const;
  readonly exchange = EX;
  creates = 0;
  constructor(readonly paper: PaperVenue) {}
  createOrder(_req: CreateOrderRequest): Promise<Order> {
    this.creates++;
    return Promise.reject(new UnmappedExchangeError(`${EX} answered with an error (${SAID})`, EX, SAID));
  }
  loadMarkets = () => this.paper.loadMarkets();
  fetchTicker = (s: string) => this.paper.fetchTicker(s);
  fetchOrderBook = (s: string, l?: number) => this.paper.fetchOrderBook(s, l);
  fetchOHLCV = (...a: Parameters<Venue['fetchOHLCV']>) => this.paper.fetchOHLCV(...a);
  fetchBalance = () => this.paper.fetchBalance();
  cancelOrder = (id: string, s: string) => this.paper.cancelOrder(id, s);
  fetchOrder = (id: string, s: string) => this.paper.fetchOrder(id, s);
  fetchOrderByClientId = (id: string, s: string) => this.paper.fetchOrderByClientId(id, s);
  fetchOpenOrders = (s?: string) => this.paper.fetchOpenOrders(s);
  fetchDepositAddress = (c: string) => this.paper.fetchDepositAddress(c);
  createDepositAddress = (c: string) => this.paper.createDepositAddress(c);
  onOrderUpdate = (l: Parameters<Venue['onOrderUpdate']>[0]) => this.paper.onOrderUpdate(l);
  flush = () => this.paper.flush();
  close = () => Promise.resolve();
}

/**
 * Issue 38 point 3: an exchange error nobody mapped is retried a bounded number of times with backoff,
 * then the bot pauses (still active, problem cannot_run) with the exchange's own message in its event
 * log — never an endless retry, never a silent stop.
 */
describe('an unmapped exchange error', () => {
  let database: Database;
  let repo: BotsRepository;
  let sim: MarketSimulator;
  let paper: PaperVenue;
  let runner: BotRunner | null = null;

  beforeEach(async () => {
    database = await openTestDatabase();
    repo = new BotsRepository(database.db);
    sim = new MarketSimulator({ seed: 3 });
    sim.setPrice(EX, SYM, 100_000);
    paper = new PaperVenue({
      accountId: 'acct',
      feed: new SimulatedMarketData(sim, EX),
      store: new MemoryPaperStore(),
    });
  });
  afterEach(async () => {
    if (runner) await Promise.race([runner.close(), new Promise((res) => setTimeout(res, 200))]);
    await paper.close();
    await database.close();
  });

  it('is tried 4 times with backoff, then pauses the bot with the exchange’s message in its events', async () => {
    const [u] = await database.db
      .insert(users)
      .values({ email: `${randomUUID()}@example.com`, passwordHash: 'x' })
      .returning();
    const id = randomUUID();
    const state = newDcaState(sim, EX, SYM, id, 20);
    await repo.insertBot({
      id,
      userId: u!.id,
      exchange: EX,
      symbol: SYM,
      config: {},
      state,
      status: 'active',
    });
    const venue = new UnmappedVenue(paper);
    const registry: VenueRegistry = { forUser: async () => venue, connectionKind: async () => 'paper' };
    runner = new BotRunner({
      store: repo,
      market: () => simulatedHub(sim, EX),
      venues: () => registry,
      log: pino({ level: 'silent' }),
      runnerId: 't-unmapped',
      takeAllLeases: true,
      autoRun: true,
      retryBaseMs: 5,
      heartbeatMs: 3_600_000,
    });
    await runner.start();
    const row = await until(async () => {
      const b = await repo.byId(id);
      return b?.problem === 'cannot_run' ? b : null;
    });
    // Paused, not stopped: still active with its problem, the exchange's text as the detail.
    expect(row.status).toBe('active');
    expect(row.problemDetail).toBe(SAID);
    const events = await repo.events(id, 500);
    const paused = events.find((e) => e.code === 'exchange_unmapped');
    expect(paused?.params).toMatchObject({ message: SAID, attempts: 4 });
    // The tries before it, each logged with its backoff.
    expect(events.filter((e) => e.code === 'exchange_error')).toHaveLength(4);
    // Bounded: the entry order was sent 4 times and nothing after the pause.
    expect(venue.creates).toBe(4);
    await new Promise((r) => setTimeout(r, 300));
    expect(venue.creates).toBe(4);
  });
});
