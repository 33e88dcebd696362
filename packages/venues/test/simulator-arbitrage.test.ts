import { EXCHANGES } from '@bytx/contract';
import { describe, expect, it } from 'vitest';
import {
  MarketSimulator,
  MemoryPaperStore,
  PaperVenue,
  SIM_DISLOCATION_HALF_LIFE_MS,
  SIM_SPOT_FEES,
  SWAP_MAKER_FEE,
  SWAP_TAKER_FEE,
  SimulatedMarketData,
  simSpotFees,
  type SimulatorSnapshot,
} from '../src/index';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
/** What an arbitrage bot needs on binance ↔ bybit: both taker fees (0.1 % each) + a 0.1 % margin. */
const NEED = 0.001 + 0.001 + 0.001;
/** Steps of 5 s (a dislocation lasts tens of seconds); one step moves all ~1,000 pairs. */
const STEP = 5000;
/** These tests walk the whole market for simulated hours. */
const SLOW = 120_000;

/** The better executable edge (best bid of one venue over best ask of the other) of ETH/USDT. */
function edge(sim: MarketSimulator): number {
  const a = sim.orderBook('binance', 'ETH/USDT', 1);
  const b = sim.orderBook('bybit', 'ETH/USDT', 1);
  return Math.max(b.bids[0]![0] / a.asks[0]![0] - 1, a.bids[0]![0] / b.asks[0]![0] - 1);
}

function paper(sim: MarketSimulator, exchange: string) {
  return new PaperVenue({
    accountId: `acct-${exchange}`,
    feed: new SimulatedMarketData(sim, exchange),
    store: new MemoryPaperStore(),
    addressSeed: 'user-1',
    initialBalances: { USDT: 10_000 },
  });
}

describe('simulated market: per-exchange spot fees and minimum order value', () => {
  it('has an entry for every exchange key; binance stays at 0.1 % and 5 USDT; swaps keep their fees', () => {
    const sim = new MarketSimulator({ startTime: T0 });
    for (const { key } of EXCHANGES) {
      const fees = SIM_SPOT_FEES[key];
      expect(fees, key).toBeDefined();
      expect(simSpotFees(key)).toEqual(fees);
      const m = sim.market(key, 'ETH/USDT');
      expect(m).toMatchObject({ taker: fees.taker, maker: fees.maker, minCost: fees.minCost });
      expect(sim.market(key, 'BTC/USDC').minCost).toBe(fees.minCost);
      expect(sim.market(key, 'ETH/USDT:USDT')).toMatchObject({
        taker: SWAP_TAKER_FEE,
        maker: SWAP_MAKER_FEE,
      });
    }
    expect(SIM_SPOT_FEES.binance).toEqual({ taker: 0.001, maker: 0.001, minCost: 5 });
    expect(SIM_SPOT_FEES.bybit).toEqual({ taker: 0.001, maker: 0.001, minCost: 5 });
    expect(SIM_SPOT_FEES.kraken).toEqual({ taker: 0.004, maker: 0.0025, minCost: 0.5 });
    expect(SIM_SPOT_FEES.coinbaseexchange).toEqual({ taker: 0.006, maker: 0.004, minCost: 1 });
    expect(SIM_SPOT_FEES.okx).toEqual({ taker: 0.001, maker: 0.0008, minCost: 1 });
    expect(simSpotFees('nope')).toEqual({ taker: 0.001, maker: 0.001, minCost: 5 });
  });

  it("charges the exchange's taker and maker fee on paper fills (worked numbers on kraken)", async () => {
    const sim = new MarketSimulator({ startTime: T0 });
    sim.setPrice('kraken', 'ETH/USDT', 3400);
    const venue = paper(sim, 'kraken');
    // A limit buy that crosses when placed fills at once at its own price: taker 0.4 %.
    const taker = await venue.createOrder({
      symbol: 'ETH/USDT',
      side: 'buy',
      type: 'limit',
      amount: 0.1,
      price: 3500,
      clientOrderId: 'k-taker',
    });
    expect(taker).toMatchObject({ status: 'closed', cost: 350, fee: { cost: 1.4, currency: 'USDT' } });
    expect((await venue.fetchBalance()).USDT).toEqual({ free: 9648.6, used: 0, total: 9648.6 });

    // A resting limit buy reserves price × amount × (1 + maker 0.25 %) and pays the maker fee.
    const maker = await venue.createOrder({
      symbol: 'ETH/USDT',
      side: 'buy',
      type: 'limit',
      amount: 0.1,
      price: 3000,
      clientOrderId: 'k-maker',
    });
    expect(maker.status).toBe('open');
    expect((await venue.fetchBalance()).USDT).toEqual({ free: 9347.85, used: 300.75, total: 9648.6 });
    sim.setPrice('kraken', 'ETH/USDT', 2990);
    const filled = await venue.fetchOrder(maker.id, 'ETH/USDT');
    expect(filled).toMatchObject({ status: 'closed', cost: 300, fee: { cost: 0.75, currency: 'USDT' } });
    expect((await venue.fetchBalance()).USDT).toEqual({ free: 9347.85, used: 0, total: 9347.85 });

    // A market order walks the book and pays the taker rate on what it cost.
    const market = await venue.createOrder({
      symbol: 'ETH/USDT',
      side: 'sell',
      type: 'market',
      amount: 0.05,
      clientOrderId: 'k-market',
    });
    expect(market.status).toBe('closed');
    expect(market.fee!.cost).toBeCloseTo(market.cost * 0.004, 8);
  });

  it("applies the exchange's minimum order value (binance 5, kraken 0.5, bitstamp 10)", async () => {
    const sim = new MarketSimulator({ startTime: T0 });
    for (const ex of ['binance', 'kraken', 'bitstamp']) sim.setPrice(ex, 'ETH/USDT', 3400);
    const order = (amount: number, price: number) => ({
      symbol: 'ETH/USDT',
      side: 'buy' as const,
      type: 'limit' as const,
      amount,
      price,
    });
    // 0.001 ETH at 3000 = 3 USDT: under Binance's 5, over Kraken's 0.5.
    await expect(
      paper(sim, 'binance').createOrder({ ...order(0.001, 3000), clientOrderId: 'b' }),
    ).rejects.toMatchObject({ reason: 'min_cost' });
    const k = await paper(sim, 'kraken').createOrder({ ...order(0.001, 3000), clientOrderId: 'k' });
    expect(k.status).toBe('open');
    // 0.002 ETH at 3000 = 6 USDT: over Binance's 5, under Bitstamp's 10.
    const b = await paper(sim, 'binance').createOrder({ ...order(0.002, 3000), clientOrderId: 'b2' });
    expect(b.status).toBe('open');
    await expect(
      paper(sim, 'bitstamp').createOrder({ ...order(0.002, 3000), clientOrderId: 's' }),
    ).rejects.toMatchObject({ reason: 'min_cost' });
  });
});

describe('simulated market: moving offsets (dislocations)', () => {
  it(
    'opens and closes a binance ↔ bybit ETH/USDT opportunity now and then, not most of the time',
    () => {
      const sim = new MarketSimulator({ startTime: T0 });
      const steps = (2 * 3_600_000) / STEP;
      let open = 0;
      let openings = 0;
      let closings = 0;
      let was = edge(sim) > NEED;
      for (let i = 1; i <= steps; i++) {
        sim.advance(T0 + i * STEP);
        const is = edge(sim) > NEED;
        if (is) open++;
        if (is && !was) openings++;
        if (!is && was) closings++;
        was = is;
      }
      expect(openings).toBeGreaterThanOrEqual(3);
      expect(closings).toBeGreaterThanOrEqual(openings - 1);
      expect(open / steps).toBeGreaterThan(0.005);
      expect(open / steps).toBeLessThan(0.2);
    },
    SLOW,
  );

  it(
    'is deterministic from the seed, and a dislocation decays back with its half-life',
    () => {
      const a = new MarketSimulator({ seed: 5, startTime: T0 });
      const b = new MarketSimulator({ seed: 5, startTime: T0 });
      const c = new MarketSimulator({ seed: 6, startTime: T0 });
      let differs = false;
      for (let i = 1; i <= 360; i++) {
        for (const s of [a, b, c]) s.advance(T0 + i * STEP);
        expect(a.price('bybit', 'ETH/USDT')).toBe(b.price('bybit', 'ETH/USDT'));
        if (edge(a) !== edge(c)) differs = true;
      }
      expect(differs).toBe(true);

      // Find a moment with an opportunity; ten half-lives later, if no new jump came, it has closed.
      const sim = new MarketSimulator({ startTime: T0 });
      let t = T0;
      for (let i = 0; i < 2880 && edge(sim) <= NEED; i++) sim.advance((t += STEP));
      expect(edge(sim)).toBeGreaterThan(NEED);
      const seen: number[] = [];
      for (let i = 0; i < (10 * SIM_DISLOCATION_HALF_LIFE_MS) / STEP; i++) {
        sim.advance((t += STEP));
        seen.push(edge(sim));
      }
      expect(Math.min(...seen)).toBeLessThan(NEED);
    },
    SLOW,
  );

  it(
    'holds a set price exactly, dislocations and offsets ignored, until released',
    () => {
      const sim = new MarketSimulator({ startTime: T0 });
      sim.setPrice('binance', 'ETH/USDT', 3400);
      sim.setPrice('bybit', 'ETH/USDT', 3400);
      for (let i = 1; i <= 720; i++) {
        sim.advance(T0 + i * STEP);
        expect(sim.price('binance', 'ETH/USDT')).toBe(3400);
        expect(sim.price('bybit', 'ETH/USDT')).toBe(3400);
      }
      expect(edge(sim)).toBeLessThan(0);
      sim.releasePrice('bybit', 'ETH/USDT');
      expect(sim.price('bybit', 'ETH/USDT')).not.toBe(3400);
    },
    SLOW,
  );

  it(
    'snapshot → restore continues the dislocations exactly (same prices as without a restart)',
    () => {
      const a = new MarketSimulator({ startTime: T0 });
      let t = T0;
      // Stop while a dislocation is under way.
      for (let i = 0; i < 2880 && edge(a) <= NEED; i++) a.advance((t += STEP));
      expect(edge(a)).toBeGreaterThan(NEED);
      a.setPrice('kraken', 'SOL/USDT', 150);
      a.setListed('okx', 'ADA/USDT', false);
      const snap = JSON.parse(JSON.stringify(a.snapshot())) as SimulatorSnapshot;
      expect(Object.values(snap.pairs).some((v) => v.length === 5 && v[3] !== 0)).toBe(true);

      const b = new MarketSimulator({ startTime: t + 3_600_000 });
      expect(b.restore(snap)).toBe(true);
      expect(b.snapshot()).toEqual(a.snapshot());
      const pairs = [
        ['binance', 'ETH/USDT'],
        ['bybit', 'ETH/USDT'],
        ['kraken', 'SOL/USDT'],
        ['okx', 'BTC/USDC'],
        ['gateio', 'DOGE/USDT'],
      ] as const;
      for (let i = 0; i < 120; i++) {
        t += 1000;
        a.advance(t);
        b.advance(t);
        for (const [ex, sym] of pairs) expect(b.price(ex, sym)).toBe(a.price(ex, sym));
      }
      expect(b.snapshot()).toEqual(a.snapshot());
      expect(b.price('kraken', 'SOL/USDT')).toBe(150);
      expect(b.isListed('okx', 'ADA/USDT')).toBe(false);
    },
    SLOW,
  );

  it(
    'loads an older snapshot without dislocations (no jump now, new ones later)',
    () => {
      const a = new MarketSimulator({ startTime: T0 });
      for (let i = 1; i <= 60; i++) a.advance(T0 + i * STEP);
      a.setPrice('kraken', 'ETH/USDT', 3210.5);
      a.setListed('okx', 'ADA/USDT', false);
      const current = a.snapshot();
      const old = {
        ...current,
        pairs: Object.fromEntries(
          Object.entries(current.pairs).map(([k, v]) => [k, v[2] === 1 ? [v[0], v[1], 1] : [v[0], v[1]]]),
        ),
      } as Record<string, unknown>;
      delete old.jumpRng;

      const b = new MarketSimulator({ startTime: T0 + 999_000 });
      expect(b.restore(JSON.parse(JSON.stringify(old)))).toBe(true);
      expect(b.time).toBe(a.time);
      expect(b.price('kraken', 'ETH/USDT')).toBe(3210.5);
      expect(b.isListed('okx', 'ADA/USDT')).toBe(false);
      for (const [, v] of Object.entries(b.snapshot().pairs)) {
        expect(v).toHaveLength(5);
        expect(v[3]).toBe(0);
        expect(v[4]).toBeGreaterThan(a.time);
      }
      let t = a.time;
      let opened = false;
      for (let i = 0; i < 2880 && !opened; i++) {
        b.advance((t += STEP));
        opened = edge(b) > NEED;
        const p = b.price('binance', 'ETH/USDT');
        if (!(Number.isFinite(p) && p > 0)) throw new Error(`bad price ${p}`);
      }
      expect(opened).toBe(true);
    },
    SLOW,
  );

  it('ignores damaged dislocation numbers in a snapshot', () => {
    const a = new MarketSimulator({ startTime: T0 });
    const snap = a.snapshot();
    const bad = {
      ...snap,
      jumpRng: 'x',
      pairs: {
        ...snap.pairs,
        'binance|ETH/USDT': [0, null, 0, Number.NaN, Number.POSITIVE_INFINITY],
        'bybit|ETH/USDT': [0, null, 0, 5, -1],
      },
    };
    const b = new MarketSimulator({ startTime: T0 });
    expect(b.restore(JSON.parse(JSON.stringify(bad)))).toBe(true);
    const ratio = b.price('bybit', 'ETH/USDT') / b.price('binance', 'ETH/USDT');
    // A jump of 5 (500 %) is capped at 2 %.
    expect(ratio).toBeGreaterThan(1);
    expect(ratio).toBeLessThan(1.025);
    const restored = b.snapshot().pairs;
    expect(restored['binance|ETH/USDT']![3]).toBe(0);
    expect(restored['bybit|ETH/USDT']![4]).toBeGreaterThan(T0);
    b.advance(T0 + 3_600_000);
    expect(Number.isFinite(b.price('binance', 'ETH/USDT'))).toBe(true);
  });
});

describe('simulated market: a held price keeps ticking', () => {
  it('sends an unchanged price again once a second to its subscribers, as a ticker stream does', () => {
    const t0 = Date.UTC(2026, 0, 1);
    const sim = new MarketSimulator({ seed: 7, startTime: t0 });
    sim.setPrice('binance', 'ETH/USDT', 3_000);
    const seen: [number, number][] = [];
    const off = sim.onPairPrice('binance', 'ETH/USDT', (e) => seen.push([e.timestamp - t0, e.price]));
    // Ten steps of 250 ms: the held price is sent at 1 s and 2 s (not at every step, not never).
    for (let i = 1; i <= 10; i++) sim.advance(t0 + i * 250);
    expect(seen).toEqual([
      [1_000, 3_000],
      [2_000, 3_000],
    ]);
    off();
  });
});
