/**
 * The quiet-candle fast path changes nothing: over random candle series (flat stretches, small and
 * wide candles, gaps in time) and random configs of each kind, runBacktest with the fast path gives
 * exactly the result of stepping every path point (`fastPath: false`): the same trades, fills, equity
 * and summary, and the same final strategy state (read through a spy: the last state a step returned
 * or a quiet tick was written into). The runs also take the fast path often enough to be a test of it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  classicDca,
  gridBot,
  gridBotDca,
  runBacktest,
  type BacktestCandle,
  type BacktestInput,
  type BacktestResult,
  type MarketRules,
  type Strategy,
} from '../../src/index';

const T0 = Date.UTC(2025, 0, 1);
const MIN = 60_000;

const moveArb = fc.record({
  /** close vs open, % */
  pct: fc.oneof(fc.constant(0), fc.double({ min: -2.5, max: 2.5, noNaN: true })),
  /** wicks above / below, % */
  up: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1.5, noNaN: true })),
  down: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1.5, noNaN: true })),
  /** minutes since the previous candle */
  gap: fc.oneof(fc.constant(1), fc.integer({ min: 2, max: 8 })),
});

const r2 = (x: number) => Math.round(x * 100) / 100;

/** Candles from moves, scaled by `scale` (0.1: calm series, mostly quiet candles). */
function series(
  moves: { pct: number; up: number; down: number; gap: number }[],
  scale = 1,
): BacktestCandle[] {
  let p = 100;
  let t = T0;
  return moves.map((m) => {
    const o = p;
    const c = Math.max(1, r2(o * (1 + (scale * m.pct) / 100)));
    const h = r2(Math.max(o, c) * (1 + (scale * m.up) / 100));
    const l = Math.max(0.5, r2(Math.min(o, c) * (1 - (scale * m.down) / 100)));
    const k: BacktestCandle = [t, o, h, l, c];
    t += m.gap * MIN;
    p = c;
    return k;
  });
}

const seriesArb = fc
  .tuple(fc.array(moveArb, { minLength: 1, maxLength: 90 }), fc.constantFrom(1, 0.1))
  .map(([moves, scale]) => series(moves, scale));

const marketArb = fc.record({
  fee: fc.constantFrom(0, 0.001),
  minCost: fc.constantFrom(0, 5),
});
const market = (m: { fee: number; minCost: number }): MarketRules => ({
  amountStep: 0.0001,
  priceStep: 0.01,
  minAmount: 0,
  minCost: m.minCost,
  takerFee: m.fee,
  makerFee: m.fee,
});

const withoutStats = (r: BacktestResult) => ({ ...r, stats: null });
/** Quiet candles taken whole by the fast-path runs of a property. */
let quiet = 0;

/** The strategy, and a reader of the last state it stepped to or noted a quiet tick into. */
function spied<S, C>(strategy: Strategy<S, C>): { strategy: Strategy<S, C>; last: () => S | undefined } {
  let cur: S | undefined;
  return {
    strategy: {
      ...strategy,
      step(state, event) {
        const r = strategy.step(state, event);
        cur = r.state;
        return r;
      },
      noteQuietTick(state, price, ts) {
        strategy.noteQuietTick!(state, price, ts);
        cur = state;
      },
    },
    last: () => cur,
  };
}

function same<S, C>(input: BacktestInput<S, C>): void {
  const a = spied(input.strategy);
  const fast = runBacktest({ ...input, strategy: a.strategy });
  const b = spied(input.strategy);
  const full = runBacktest({ ...input, strategy: b.strategy, fastPath: false });
  expect(withoutStats(fast)).toEqual(withoutStats(full));
  expect(a.last()).toEqual(b.last());
  expect(full.stats.quietCandles).toBe(0);
  quiet += fast.stats.quietCandles;
}

const RUNS = 150;

describe('fast path ≡ stepping every point', () => {
  it('Grid Bot DCA', () => {
    quiet = 0;
    fc.assert(
      fc.property(
        seriesArb,
        marketArb,
        fc.record({
          os: fc.integer({ min: 1, max: 5 }),
          sepPct: fc.constantFrom(0.5, 1, 2),
          tpPct: fc.constantFrom(0.5, 1, 2),
          amount: fc.constantFrom(20, 100),
          raEnabled: fc.boolean(),
          sl: fc.option(fc.constantFrom(85, 95)),
          tpPlus: fc.option(fc.constantFrom(104, 115)),
          budget: fc.constantFrom(150, 10_000),
          slippagePct: fc.constantFrom(0, 0.1),
        }),
        (candles, mk, c) => {
          const m = market(mk);
          same({
            strategy: gridBotDca,
            config: {
              symbol: 'BTC/USDT',
              amount: c.amount,
              tpPct: c.tpPct,
              sepPct: c.sepPct,
              os: c.os,
              direction: 'LONG' as const,
              market: m,
              raEnabled: c.raEnabled,
              sl: c.sl,
              tpPlus: c.tpPlus,
            },
            candles,
            market: m,
            initialQuote: c.budget,
            slippagePct: c.slippagePct,
          });
        },
      ),
      { numRuns: RUNS },
    );
    expect(quiet).toBeGreaterThan(0);
  });

  it('classic DCA', () => {
    quiet = 0;
    fc.assert(
      fc.property(
        seriesArb,
        marketArb,
        fc.record({
          os: fc.integer({ min: 1, max: 5 }),
          sepPct: fc.constantFrom(0.5, 1, 2),
          tpPct: fc.constantFrom(0.5, 1, 2),
          amount: fc.constantFrom(20, 100),
          r: fc.boolean(),
          rOs: fc.boolean(),
          trendFilter: fc.boolean(),
          smartAveraging: fc.boolean(),
          maPeriod: fc.integer({ min: 2, max: 6 }),
          candleMs: fc.constantFrom(MIN, 5 * MIN),
          sl: fc.option(fc.constantFrom(85, 95)),
          tpPlus: fc.option(fc.constantFrom(104, 115)),
          budget: fc.constantFrom(150, 10_000),
          slippagePct: fc.constantFrom(0, 0.1),
        }),
        (candles, mk, c) => {
          const m = market(mk);
          same({
            strategy: classicDca,
            config: {
              symbol: 'BTC/USDT',
              amount: c.amount,
              tpPct: c.tpPct,
              sepPct: c.sepPct,
              os: c.os,
              market: m,
              sl: c.sl,
              tpPlus: c.tpPlus,
              r: c.r,
              rOs: c.rOs,
              trendFilter: c.trendFilter,
              smartAveraging: c.smartAveraging,
              smartAmount: 10,
              maPeriod: c.maPeriod,
              candleMs: c.candleMs,
              tpVncPct: 0.5,
            },
            candles,
            market: m,
            initialQuote: c.budget,
            slippagePct: c.slippagePct,
          });
        },
      ),
      { numRuns: RUNS },
    );
    expect(quiet).toBeGreaterThan(0);
  });

  it('Grid bot', () => {
    quiet = 0;
    fc.assert(
      fc.property(
        seriesArb,
        marketArb,
        fc.record({
          low: fc.constantFrom(80, 90, 97),
          high: fc.constantFrom(103, 110, 125),
          stepPct: fc.constantFrom(1, 2, 5),
          amountPerLevel: fc.constantFrom(20, 50),
          profitCurrency: fc.constantFrom('quote' as const, 'base' as const),
          budget: fc.constantFrom(150, 10_000),
          slippagePct: fc.constantFrom(0, 0.1),
        }),
        (candles, mk, c) => {
          const m = market(mk);
          const input = {
            strategy: gridBot,
            config: {
              symbol: 'BTC/USDT',
              low: c.low,
              high: c.high,
              stepPct: c.stepPct,
              amountPerLevel: c.amountPerLevel,
              position: 'long' as const,
              profitCurrency: c.profitCurrency,
              derivatives: false,
              market: m,
            },
            candles,
            market: m,
            initialQuote: c.budget,
            slippagePct: c.slippagePct,
          };
          same(input);
        },
      ),
      { numRuns: RUNS },
    );
    expect(quiet).toBeGreaterThan(0);
  });
});

describe('the classic DCA on 5-minute candle buckets', () => {
  it('writes the extremes of quiet candles into its forming candle as stepping does', () => {
    // Quiet 1-minute candles inside one 5-minute bucket: the bot's forming candle must get their
    // highs and lows (its smart-averaging rule reads the previous candle's high).
    const candles: BacktestCandle[] = [];
    let p = 100;
    for (let i = 0; i < 40; i++) {
      const o = p;
      const c = r2(o + (i % 3 === 0 ? 0.2 : -0.1));
      candles.push([T0 + i * MIN, o, r2(Math.max(o, c) + 0.05 * (i % 4)), r2(Math.min(o, c) - 0.05), c]);
      p = c;
    }
    const m = market({ fee: 0, minCost: 0 });
    const input: BacktestInput<unknown, unknown> = {
      strategy: classicDca,
      config: {
        symbol: 'X',
        amount: 20,
        tpPct: 2,
        sepPct: 2,
        os: 2,
        market: m,
        sl: null,
        tpPlus: null,
        r: true,
        rOs: false,
        trendFilter: true,
        smartAveraging: true,
        smartAmount: 10,
        maPeriod: 3,
        candleMs: 5 * MIN,
        tpVncPct: 0.5,
      },
      candles,
      market: m,
      initialQuote: 1000,
    };
    quiet = 0;
    same(input);
    expect(quiet).toBeGreaterThan(20);
  });
});
