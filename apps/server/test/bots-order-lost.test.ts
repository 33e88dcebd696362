import type { DcaState } from '@bytx/engine';
import { MarketSimulator, PaperVenue, type Order, type OrderListener } from '@bytx/venues';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database } from '../src/db/client';
import { BotsRepository } from '../src/modules/bots/bots.repository';
import type { BotRunner } from '../src/modules/bots/runner';
import {
  PaperPassThrough,
  insertDcaBot,
  insertTestUser,
  memoryPaper,
  simulatedHub,
  testRunner,
  until,
} from './bots.helpers';
import { openTestDatabase } from './db-snapshot';

const EX = 'binance';
const SYM = 'BTC/USDT';

/**
 * A paper venue whose pushes the test controls: `mute` hides the paper venue's own updates (an order
 * that vanishes on the exchange without a word), `push` sends what a live venue's poll would.
 */
class PushingVenue extends PaperPassThrough {
  mute = false;
  private readonly listeners = new Set<OrderListener>();
  constructor(paper: PaperVenue) {
    super(paper, EX);
    paper.onOrderUpdate((o) => {
      if (!this.mute) for (const l of this.listeners) l(o);
    });
  }
  push(order: Order): void {
    for (const l of this.listeners) l(order);
  }
  override onOrderUpdate(l: OrderListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
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
    paper = memoryPaper(sim, EX);
  });
  afterEach(async () => {
    if (runner) await Promise.race([runner.close(), new Promise((res) => setTimeout(res, 200))]);
    runner = null;
    await paper.close();
    await database.close();
  });

  it('is settled as cancelled with what was filled, and the bot event order_lost says so', async () => {
    const venue = new PushingVenue(paper);
    const id = await insertDcaBot(repo, sim, EX, SYM, await insertTestUser(database.db));
    runner = testRunner({ store: repo, market: () => simulatedHub(sim, EX), venue, runnerId: 't-lost' });
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
