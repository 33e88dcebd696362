import { randomUUID } from 'node:crypto';
import { arbitrageBot, createArbitrageBot, type ArbitrageState } from '@bytx/engine';
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
import { botOrders, botTrades, users } from '../src/db/schema/index';
import { BotsRepository } from '../src/modules/bots/bots.repository';
import { botKinds } from '../src/modules/bots/kinds';
import { dcaMarketRules } from '../src/modules/bots/market-rules';
import { BotRunner, strategyIdOf } from '../src/modules/bots/runner';
import { until } from './bots.helpers';
import { openTestDatabase } from './db-snapshot';

const SYM = 'ETH/USDT';
const EXCHANGES = ['binance', 'bybit'] as const;
type Ex = (typeof EXCHANGES)[number];

/**
 * A process dies between the two legs of an arbitrage round trip (issue 15 §1: "a crash between legs is
 * resolved on restart by the reconcile step"). Both legs are journaled in one write before either is
 * sent; the runner sends them concurrently. Here Bybit's createOrder hangs — before reaching the
 * exchange, or after the exchange filled it — the runner is abandoned (a killed process: nothing more
 * is written), and a new runner on the same database and the same exchange accounts reconciles:
 * - the Bybit leg never reached the exchange → it is settled as cancelled with nothing filled, and the
 *   filled Binance leg is unwound at market (one loss row, buy and sell on Binance);
 * - the Bybit leg did fill → its fill is applied and the round trip is recorded once.
 * Either way no order is sent twice and each venue's balances equal what the journal says was filled.
 * Only the venue boundary is faked (a hanging createOrder); everything else is the real runner, the
 * real strategy and paper accounts on the simulated market.
 */
describe('arbitrage: a crash between the legs of a round trip', () => {
  let database: Database;
  let repo: BotsRepository;
  let sim: MarketSimulator;
  let venues: Record<Ex, PaperVenue>;
  let userId: string;
  const runners: BotRunner[] = [];
  /** Venues the next runner gets instead of the plain ones (a wrapper at the venue boundary). */
  let wrapped: Partial<Record<Ex, Venue>> = {};

  const hub = (): MarketHub => {
    const feeds = new Map(EXCHANGES.map((ex) => [ex as string, new SimulatedMarketData(sim, ex)] as const));
    return {
      subscribe: (e: string, s: string, l: (t: Ticker) => void) =>
        feeds
          .get(e)!
          .subscribe(s, (price, ts) =>
            l({ symbol: s, last: price, bid: null, ask: null, percentage: null, timestamp: ts }),
          ),
      ticker: async (e: string, s: string) => sim.ticker(e, s),
      market: async (e: string, s: string) => sim.market(e, s),
      listedSymbol: async (_e: string, s: string) => s,
      orderBook: async (e: string, s: string, limit?: number) => sim.orderBook(e, s, limit),
    } as unknown as MarketHub;
  };
  const newRunner = (useWrapped: boolean) => {
    const chosen = useWrapped ? { ...venues, ...wrapped } : venues;
    const registry: VenueRegistry = {
      forUser: async (_u: string, ex: string) => chosen[ex as Ex],
      connectionKind: async () => 'paper',
    };
    const r = new BotRunner({
      store: repo,
      market: hub,
      venues: () => registry,
      log: pino({ level: 'silent' }),
      runnerId: `arb-${runners.length}`,
      kinds: new Map([...botKinds, [arbitrageBot.kind, arbitrageBot]]),
      takeAllLeases: true,
      autoRun: true,
      retryBaseMs: 5,
      heartbeatMs: 3_600_000,
    });
    runners.push(r);
    return r;
  };
  /** A fresh tick of each venue at its held price (a held price alone sends none). */
  const tick = (ex: Ex, price: number) => {
    sim.setPrice(ex, SYM, price + 0.01);
    sim.setPrice(ex, SYM, price);
  };
  const stateOf = async (id: string) => (await repo.byId(id))!.state as ArbitrageState;
  const ordersOf = (id: string) => database.db.select().from(botOrders).where(eq(botOrders.botId, id));
  const tradesOf = (id: string) => database.db.select().from(botTrades).where(eq(botTrades.botId, id));

  /**
   * What the journal says each venue's account went through: base = Σ buys − Σ sells filled, quote =
   * Σ sells × price − Σ buys × price − every fee (the paper venues charge fees in USDT).
   */
  const journalTotals = async (id: string) => {
    const out: Record<Ex, { base: number; quote: number }> = {
      binance: { base: 0, quote: 0 },
      bybit: { base: 0, quote: 0 },
    };
    for (const o of await ordersOf(id)) {
      const ex = (o.exchange ?? 'binance') as Ex;
      const filled = Number(o.filled);
      const value = filled * Number(o.avgPrice ?? 0);
      const sign = o.side === 'buy' ? 1 : -1;
      out[ex].base += sign * filled;
      out[ex].quote += -sign * value - Number(o.fee);
    }
    return out;
  };
  const expectBalancesMatchJournal = async (id: string) => {
    const j = await journalTotals(id);
    const s = await stateOf(id);
    for (const ex of EXCHANGES) {
      const b = await venues[ex].fetchBalance();
      expect(b.ETH?.total ?? 0, `${ex} ETH`).toBeCloseTo(j[ex].base, 9);
      expect(b.USDT!.total - 10_000, `${ex} USDT`).toBeCloseTo(j[ex].quote, 6);
      // The bot's own inventory is what it holds on the account (it is the only trader there).
      const inv = s.venues.find((v) => v.exchange === ex)!.inventory;
      expect(Number(inv.base), `${ex} inventory base`).toBeCloseTo(j[ex].base, 9);
      expect(Number(inv.quote), `${ex} inventory quote`).toBeCloseTo(500 + j[ex].quote, 6);
    }
  };

  /** A running bot of 1,000 USDT whose inventory is prepared on both venues, on runner #1. */
  const startBot = async () => {
    const id = randomUUID();
    const rules = Object.fromEntries(EXCHANGES.map((ex) => [ex, dcaMarketRules(sim.market(ex, SYM))]));
    await repo.insertBot({
      id,
      userId,
      kind: arbitrageBot.kind,
      exchange: 'binance',
      symbol: SYM,
      config: { monto_usdt: 1000, symbol: SYM, exchanges: [...EXCHANGES] },
      state: createArbitrageBot(strategyIdOf(id), {
        exchanges: ['binance', 'bybit'],
        symbol: SYM,
        amountQuote: 1000,
        rules,
      }),
      status: 'active',
    });
    const first = newRunner(true);
    await first.start();
    tick('binance', 3_000);
    tick('bybit', 3_000);
    await until(async () => ((await stateOf(id)).status === 'running' ? true : null), 10_000);
    return { id, first };
  };

  /**
   * Bybit's createOrder for the trip's sell leg hangs: `reach` decides whether the order reaches the
   * exchange (and fills there) before the hang. Resolves when the hang began.
   */
  const hangBybitSells = (reach: boolean) => {
    let began!: () => void;
    const hung = new Promise<void>((r) => (began = r));
    const real = venues.bybit;
    wrapped.bybit = new Proxy(real, {
      get(target, prop, receiver) {
        if (prop !== 'createOrder') {
          const value = Reflect.get(target, prop, receiver) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        }
        return async (req: Parameters<Venue['createOrder']>[0]) => {
          if (req.side !== 'sell') return target.createOrder(req);
          if (reach) await target.createOrder(req);
          began();
          return new Promise<never>(() => undefined); // the process dies before the answer arrives
        };
      },
    });
    return hung;
  };

  beforeEach(async () => {
    database = await openTestDatabase();
    repo = new BotsRepository(database.db);
    const [u] = await database.db
      .insert(users)
      .values({ email: `${randomUUID()}@example.com`, passwordHash: 'x' })
      .returning();
    userId = u!.id;
    sim = new MarketSimulator({ seed: 7 });
    sim.setPrice('binance', SYM, 3_000);
    sim.setPrice('bybit', SYM, 3_000);
    venues = Object.fromEntries(
      EXCHANGES.map((ex) => [
        ex,
        new PaperVenue({
          accountId: `acct-${ex}`,
          feed: new SimulatedMarketData(sim, ex),
          store: new MemoryPaperStore(),
        }),
      ]),
    ) as Record<Ex, PaperVenue>;
  });
  afterEach(async () => {
    wrapped = {};
    // A runner stuck on a hanging venue call never becomes idle: drop its bots first, as a dead process.
    for (const r of runners.splice(0)) {
      r.abandon();
      await r.close();
    }
    await database.close();
  });

  it('the second leg never reached the exchange: reconcile settles it unfilled and the filled leg is unwound', async () => {
    const hung = hangBybitSells(false);
    const { id, first } = await startBot();
    // Bybit 1 % dearer: a trip buys on Binance, sells on Bybit; Bybit's sell hangs before it is sent.
    tick('binance', 3_000);
    sim.setPrice('bybit', SYM, 3_030);
    await hung;
    const legs = await ordersOf(id);
    const buyLeg = legs.find((r) => r.role === 'arb_buy')!;
    const sell = legs.find((r) => r.role === 'arb_sell')!;
    // Both legs were journaled (one write) before either was sent. Binance filled the buy; its answer
    // waits for Bybit's (the answers of one step are applied in command order), so neither is recorded.
    expect(buyLeg).toMatchObject({ status: 'pending_submit', exchange: null, side: 'buy' });
    expect(sell).toMatchObject({ status: 'pending_submit', exchange: 'bybit', side: 'sell' });
    expect(Number(sell.amount)).toBe(Number(buyLeg.amount));
    expect((await venues.binance.fetchOrderByClientId(buyLeg.clientOrderId, SYM))?.status).toBe('closed');
    expect(await venues.bybit.fetchOrderByClientId(sell.clientOrderId, SYM)).toBeNull();

    // The process dies. The spread closes meanwhile; a new process starts on the same database.
    first.abandon();
    sim.setPrice('bybit', SYM, 3_000);
    const second = newRunner(false);
    await second.start();
    const unwind = await until(async () => {
      tick('binance', 3_000);
      const o = (await ordersOf(id)).find((r) => r.role === 'arb_unwind');
      return o?.status === 'filled' ? o : null;
    });
    // Reconcile found the buy filled on Binance; the leg that never reached Bybit is settled without a
    // fill, and never sent afterwards.
    const buy = (await ordersOf(id)).find((r) => r.role === 'arb_buy')!;
    expect(buy.status).toBe('filled');
    const settled = (await ordersOf(id)).find((r) => r.clientOrderId === sell.clientOrderId)!;
    expect(['cancelled', 'rejected']).toContain(settled.status);
    expect(Number(settled.filled)).toBe(0);
    expect(await venues.bybit.fetchOrderByClientId(sell.clientOrderId, SYM)).toBeNull();
    // The Binance buy is sold back on Binance: one loss row (spread + both fees), no round trip row.
    expect(unwind).toMatchObject({ side: 'sell', exchange: null });
    expect(Number(unwind.filled)).toBe(Number(buy.filled));
    const trades = await until(async () => {
      const t = await tradesOf(id);
      return t.length === 1 ? t : null;
    });
    expect(trades[0]).toMatchObject({ exchange: 'binance', sellExchange: 'binance' });
    // The trip's size: Binance's quote after the start, 249.82508501 / (3000.30 × 1.001) → 0.0831 ETH.
    // 0.0831 × (2999.70 − 3000.30) − (0.0831 × 3000.30 + 0.0831 × 2999.70) × 0.1 %
    //   = −0.04986 − (0.24932493 + 0.24927507) = −0.54846 USDT.
    expect(Number(trades[0]!.buyPrice)).toBe(Number(buy.avgPrice));
    expect(Number(trades[0]!.sellPrice)).toBe(Number(unwind.avgPrice));
    expect(Number(trades[0]!.fees)).toBeCloseTo(Number(buy.fee) + Number(unwind.fee), 8);
    expect(Number(trades[0]!.pnlNet)).toBeCloseTo(
      Number(buy.filled) * (Number(unwind.avgPrice) - Number(buy.avgPrice)) -
        Number(buy.fee) -
        Number(unwind.fee),
      8,
    );
    expect(Number(trades[0]!.qty)).toBe(0.0831);
    expect(Number(trades[0]!.pnlNet)).toBeCloseTo(-0.54846, 8);
    const s = await stateOf(id);
    expect(s.trip).toBeNull();
    expect(s.status).toBe('running');
    expect(Number(s.realizedPnl)).toBeCloseTo(Number(trades[0]!.pnlNet), 8);
    const codes = (await repo.events(id, 100)).map((e) => e.code);
    expect(codes).toContain('reconcile_fill');
    expect(codes).toContain('reconcile_never_placed');
    expect(codes).toContain('arb_leg_failed');
    expect(codes).toContain('arb_unwound');
    // Nothing doubled, nothing lost: each account holds exactly what the journal says was filled.
    await expectBalancesMatchJournal(id);
    // With the spread closed it trades no more.
    const n = (await ordersOf(id)).length;
    tick('binance', 3_000);
    tick('bybit', 3_000);
    await new Promise((r) => setTimeout(r, 300));
    expect((await ordersOf(id)).length).toBe(n);
  });

  it('the second leg filled on the exchange before the crash: reconcile applies its fill and records the trip once', async () => {
    const hung = hangBybitSells(true);
    const { id, first } = await startBot();
    tick('binance', 3_000);
    sim.setPrice('bybit', SYM, 3_030);
    await hung;
    const sell = (await ordersOf(id)).find((r) => r.role === 'arb_sell')!;
    // Bybit filled it, but our journal never heard back.
    expect(sell.status).toBe('pending_submit');
    expect((await venues.bybit.fetchOrderByClientId(sell.clientOrderId, SYM))?.status).toBe('closed');

    first.abandon();
    sim.setPrice('bybit', SYM, 3_000);
    const second = newRunner(false);
    await second.start();
    const trades = await until(async () => {
      const t = await tradesOf(id);
      return t.length >= 1 ? t : null;
    });
    expect(trades).toHaveLength(1);
    const orders = await ordersOf(id);
    const buy = orders.find((r) => r.role === 'arb_buy')!;
    const settled = orders.find((r) => r.clientOrderId === sell.clientOrderId)!;
    expect(buy.status).toBe('filled');
    expect(settled.status).toBe('filled');
    expect(orders.filter((r) => r.role === 'arb_unwind')).toEqual([]);
    // One round trip at the real average fills: buy Binance 3,000.30, sell Bybit 3,029.70.
    expect(trades[0]).toMatchObject({ exchange: 'binance', sellExchange: 'bybit' });
    expect(Number(trades[0]!.buyPrice)).toBe(Number(buy.avgPrice));
    expect(Number(trades[0]!.sellPrice)).toBe(Number(settled.avgPrice));
    expect(Number(trades[0]!.sellPrice)).toBe(3029.7);
    expect(Number(trades[0]!.fees)).toBeCloseTo(Number(buy.fee) + Number(settled.fee), 8);
    // 0.0831 × (3029.70 − 3000.30) − (0.24932493 + 0.25176807) = 2.44314 − 0.501093 = 1.942047 USDT.
    expect(Number(trades[0]!.pnlNet)).toBeCloseTo(1.942047, 8);
    const codes = (await repo.events(id, 100)).map((e) => e.code);
    expect(codes).toContain('reconcile_fill');
    expect(codes).toContain('arb_round_trip');
    await expectBalancesMatchJournal(id);
    expect((await stateOf(id)).trip).toBeNull();
  });
});
