import {
  MarketSimulator,
  PaperVenue,
  UnmappedExchangeError,
  type CreateOrderRequest,
  type Order,
} from '@bytx/venues';
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
/** What the exchange said, as ccxt quoted it: a code neither our table nor ccxt maps. */
const SAID = 'binance {"code":-1999,"msg":"Something the exchange added last week."}';

/** A paper venue whose every createOrder fails with an error nobody maps. */
class UnmappedVenue extends PaperPassThrough {
  creates = 0;
  constructor(paper: PaperVenue) {
    super(paper, EX);
  }
  override createOrder(_req: CreateOrderRequest): Promise<Order> {
    this.creates++;
    return Promise.reject(new UnmappedExchangeError(`${EX} answered with an error (${SAID})`, EX, SAID));
  }
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
    paper = memoryPaper(sim, EX);
  });
  afterEach(async () => {
    if (runner) await Promise.race([runner.close(), new Promise((res) => setTimeout(res, 200))]);
    await paper.close();
    await database.close();
  });

  it('is tried 4 times with backoff, then pauses the bot with the exchange’s message in its events', async () => {
    const id = await insertDcaBot(repo, sim, EX, SYM, await insertTestUser(database.db));
    const venue = new UnmappedVenue(paper);
    runner = testRunner({ store: repo, market: () => simulatedHub(sim, EX), venue, runnerId: 't-unmapped' });
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
