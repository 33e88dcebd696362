import { randomUUID } from 'node:crypto';
import type { DcaState } from '@bytx/engine';
import {
  MarketSimulator,
  MemoryPaperStore,
  PaperVenue,
  SimulatedMarketData,
  type Order,
  type OrderListener,
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

/**
 * A paper venue whose pushes the test controls: `mute` hides the paper venue's own updates (an order
 * that vanishes on the exchange without a word), `push` sends what a live venue's poll would.
 */
class PushingVenue implements Venue {
  readonly kind = 'paper' as const;
  readonly exchange = EX;
  mute = false;
  private readonly listeners = new Set<OrderListener>();
  constructor(readonly paper: PaperVenue) {
    paper.onOrderUpdate((o) => {
      if (!this.mute) for (const l of this.listeners) l(o);
    });
  }
  push(order: Order): void {
    for (const l of this.listeners) l(order);
  }
  createOrder = (...a: Parameters<Venue['createOrder']>) => this.paper.createOrder(...a);
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
  onOrderUpdate = (l: OrderListener) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };
  flush = () => this.paper.flush();
  close = () => Promise.resolve();
}

describe('an order the exchange no longer reports (issue 38 point 2)', () => {
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
    runner = null;
    await paper.close();
    await database.close();
  });

  it('is settled as cancelled with what was filled, and the bot event order_lost says so', async () => {
    const [u] = await database.db
      .insert(users)
      .values({ email: `${randomUUID()}@example.com`, passwordHash: 'x' })
      .returning();
    const venue = new PushingVenue(paper);
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
    const registry: VenueRegistry = { forUser: async () => venue, connectionKind: async () => 'paper' };
    runner = new BotRunner({
      store: repo,
      market: () => simulatedHub(sim, EX),
      venues: () => registry,
      log: pino({ level: 'silent' }),
      runnerId: 't-lost',
      takeAllLeases: true,
      autoRun: true,
      retryBaseMs: 5,
      heartbeatMs: 3_600_000,
    });
    await runner.start();
    await until(async () => {
      const live = await repo.liveOrders(id);
      const s = (await repo.byId(id))!.state as DcaState;
      return s.waitingBuys.length === 3 && live.length >= 3 && live.every((o) => o.status === 'open')
        ? true
        : null;
    });
    await runner.idle();
    // One waiting buy vanishes on the exchange without a word (the venue's own push is muted)...
    const [gone] = (await paper.fetchOpenOrders(SYM)).filter((o) => o.side === 'buy');
    venue.mute = true;
    await paper.cancelOrder(gone!.id, SYM);
    venue.mute = false;
    // ...and the live venue's bounded poll reports it lost: cancelled with nothing filled.
    venue.push({ ...gone!, status: 'canceled', filled: 0, lost: true });
    await until(async () => ((await repo.order(gone!.clientOrderId!))?.status === 'cancelled' ? true : null));
    const events = await repo.events(id, 500);
    const lost = events.find((e) => e.code === 'order_lost');
    expect(lost?.level).toBe('warn');
    expect(lost?.params).toMatchObject({ clientOrderId: gone!.clientOrderId, filled: 0 });
  });
});
