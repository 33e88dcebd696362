/**
 * runBacktest's mechanics with small strategies of the test's own (every tick stepped, no quiet band):
 * the intra-candle path and the order of ticks and fills, progress and cancel, the summary figures
 * worked out by hand, equity downsampling, input checks; and the classic DCA's trend filter fed by the
 * path's candles or by a seeded state.
 */
import { describe, expect, it } from 'vitest';
import {
  BacktestInputError,
  candlePath,
  classicDca,
  createClassicDca,
  runBacktest,
  type BacktestCandle,
  type ClassicDcaConfig,
  type MarketRules,
  type StepResult,
  type Strategy,
  type StrategyCommand,
  type StrategyEvent,
} from '../../src/index';
import { testMarket } from '../shared/shared-helpers';

const T0 = Date.UTC(2025, 0, 1);
const MIN = 60_000;
const at = (i: number) => T0 + i * MIN;
const noFees: MarketRules = { ...testMarket(), takerFee: 0, makerFee: 0, minCost: 0 };

interface Rec {
  botId: string;
  /** What the strategy saw, e.g. 'tick 94 @2' (ms after T0) or 'fill b-2 95'. */
  seen: string[];
  placed: boolean;
}

/** Places `orders` at its first tick and records every event. */
function recorder(orders: StrategyCommand[]): Strategy<Rec, null> {
  return {
    kind: 'rec',
    create: (botId) => ({ botId, seen: [], placed: false }),
    step(s: Rec, e: StrategyEvent): StepResult<Rec> {
      const seen = [...s.seen];
      if (e.type === 'tick') seen.push(`tick ${e.price} @${e.ts - T0}`);
      else if (e.type === 'order_filled') seen.push(`fill ${e.clientOrderId} ${e.price}`);
      else seen.push(e.type);
      if (e.type === 'tick' && !s.placed) return { state: { ...s, seen, placed: true }, commands: orders };
      return { state: { ...s, seen }, commands: [] };
    },
    samePersisted: () => false,
    realizedPnl: () => '0',
  };
}

const limit = (id: string, side: 'buy' | 'sell', price: number, amount: number): StrategyCommand => ({
  type: 'place_order',
  clientOrderId: id,
  side,
  orderType: 'limit',
  price,
  amount,
  role: side === 'buy' ? 'ladder_buy' : 'take_profit',
});

/** The final state of a recorder run (the run keeps it private: read it through a wrapper). */
function seenBy(strategy: Strategy<Rec, null>, candles: BacktestCandle[], initialBase = 1): string[] {
  let last: Rec | null = null;
  const spy: Strategy<Rec, null> = {
    ...strategy,
    step: (s, e) => {
      const r = strategy.step(s, e);
      last = r.state;
      return r;
    },
  };
  runBacktest({ strategy: spy, config: null, candles, market: noFees, initialQuote: 1000, initialBase });
  return last!.seen;
}

describe('the intra-candle path', () => {
  it('is open → low → high → close for a rising candle, open → high → low → close for a falling one', () => {
    expect(candlePath(100, 106, 94, 104)).toEqual([100, 94, 106, 104]);
    expect(candlePath(100, 106, 94, 100)).toEqual([100, 94, 106, 100]);
    expect(candlePath(100, 106, 94, 96)).toEqual([100, 106, 94, 96]);
  });

  it('delivers each point as a tick, 1 ms apart, and the fills of a point before the next one', () => {
    const rec = recorder([limit('b-1', 'buy', 95, 1), limit('b-2', 'sell', 105, 1)]);
    // Rising: the low (94) reaches the buy before the high (106) reaches the sell.
    expect(seenBy(rec, [[at(0), 100, 106, 94, 104]])).toEqual([
      'tick 100 @0',
      'tick 94 @1',
      'fill b-1 95',
      'tick 106 @2',
      'fill b-2 105',
      'tick 104 @3',
    ]);
    // Falling: the sell first.
    expect(seenBy(rec, [[at(0), 100, 106, 94, 96]])).toEqual([
      'tick 100 @0',
      'tick 106 @1',
      'fill b-2 105',
      'tick 94 @2',
      'fill b-1 95',
      'tick 96 @3',
    ]);
  });

  it('fills the orders a move crosses in the order it crosses them, ties first placed first', () => {
    const rec = recorder([
      limit('b-1', 'buy', 97, 1),
      limit('b-2', 'buy', 99, 1),
      limit('b-3', 'buy', 97, 1),
      limit('b-4', 'buy', 98, 1),
    ]);
    expect(seenBy(rec, [[at(0), 100, 100, 96, 96]])).toEqual([
      'tick 100 @0',
      'tick 100 @1',
      'tick 96 @2',
      'fill b-2 99',
      'fill b-4 98',
      'fill b-1 97',
      'fill b-3 97',
      'tick 96 @3',
    ]);
  });

  it('fills a limit placed beyond the price at once at its own price (taker), and refuses what the account cannot pay', () => {
    const rec = recorder([
      limit('b-1', 'buy', 101, 1),
      limit('b-2', 'buy', 50, 100),
      limit('b-3', 'sell', 99, 5),
    ]);
    expect(seenBy(rec, [[at(0), 100, 100, 100, 100]])).toEqual([
      'tick 100 @0',
      'fill b-1 101',
      'order_rejected',
      'order_rejected',
      'tick 100 @1',
      'tick 100 @2',
      'tick 100 @3',
    ]);
  });
});

describe('progress and cancel', () => {
  const candles: BacktestCandle[] = Array.from({ length: 100 }, (_, i) => [at(i), 100, 101, 99, 100]);
  const rec = recorder([]);

  it('reports progress once per progressEvery candles and at the end', () => {
    const seen: number[] = [];
    const r = runBacktest({
      strategy: rec,
      config: null,
      candles,
      market: noFees,
      initialQuote: 100,
      progressEvery: 30,
      onProgress: (f) => seen.push(f),
    });
    expect(seen).toEqual([0.3, 0.6, 0.9, 1]);
    expect(r.cancelled).toBe(false);
    expect(r.summary.candles).toBe(100);
  });

  it('stops at the first check that asks for it and summarizes the candles done', () => {
    let checks = 0;
    const progress: number[] = [];
    const r = runBacktest({
      strategy: rec,
      config: null,
      candles,
      market: noFees,
      initialQuote: 100,
      progressEvery: 10,
      shouldCancel: () => ++checks === 3,
      onProgress: (f) => progress.push(f),
    });
    expect(r.cancelled).toBe(true);
    expect(progress).toEqual([0.1, 0.2]);
    expect(r.summary.candles).toBe(30);
    expect(r.summary.to).toBe(at(29));
    expect(r.equity).toHaveLength(30);
  });
});

describe('summary', () => {
  /*
   * A strategy that buys 1 at market at the first tick of minute 1, then rests a buy of 2 at 90 and a
   * sell of 1 at 120; no fees, 1,000 USDT.
   *   c0 100 flat                     no position                   equity 1000
   *   c1 100 flat                     buys 1 at 100; buy 2 @ 90 reserves 180, sell 1 @ 120
   *                                   capital = cost 100 + reserved 180 = 280            900 + 100 = 1000
   *   c2 100 → 101 → 95 → 96                                        900 + 96 = 996
   *   c3 96 → 97 → 89 → 92            the buy at 90 fills: base 3, cost 280             720 + 276 = 996
   *   c4 92 → 91 → 125 → 124          the sell at 120 fills: base 2, cost 280 × 2/3     840 + 248 = 1088
   *   c5 124 → 124 → 110 → 110                                      840 + 220 = 1060
   * initial equity 1000 (at the first open); net 60 = 6 %; drawdown: 4 from 1000 (0.4 %), then 28 from
   * 1088 = 2.5735294118 %; in the market 5 of 6 candles = 83.3333333333 %; buy and hold 110 / 100 − 1
   * = 10 %, 100 USDT; open position 2 at 186.666… / 2 = 93.3333333333, worth 220; capital peak 280.
   */
  const buyer: Strategy<{ botId: string; phase: number }, null> = {
    kind: 'buyer',
    create: (botId) => ({ botId, phase: 0 }),
    step(s, e) {
      if (e.type === 'tick' && s.phase === 0 && e.ts >= at(1)) {
        return {
          state: { ...s, phase: 1 },
          commands: [
            {
              type: 'place_order',
              clientOrderId: 'x-1',
              side: 'buy',
              orderType: 'market',
              amount: 1,
              role: 'entry',
            },
          ],
        };
      }
      if (e.type === 'order_filled' && e.clientOrderId === 'x-1') {
        return {
          state: { ...s, phase: 2 },
          commands: [limit('x-2', 'buy', 90, 2), limit('x-3', 'sell', 120, 1)],
        };
      }
      return { state: s, commands: [] };
    },
    samePersisted: () => true,
    realizedPnl: () => '0',
  };
  const candles: BacktestCandle[] = [
    [at(0), 100, 100, 100, 100],
    [at(1), 100, 100, 100, 100],
    [at(2), 100, 101, 95, 96],
    [at(3), 96, 97, 89, 92],
    [at(4), 92, 125, 91, 124],
    [at(5), 124, 124, 110, 110],
  ];

  it('figures worked out by hand', () => {
    const r = runBacktest({ strategy: buyer, config: null, candles, market: noFees, initialQuote: 1000 });
    expect(r.equity.map((p) => p.equity)).toEqual([1000, 1000, 996, 996, 1088, 1060]);
    expect(r.equity.map((p) => p.time)).toEqual(candles.map((c) => c[0]));
    expect(r.summary).toEqual({
      from: at(0),
      to: at(5),
      candles: 6,
      initialEquity: 1000,
      finalEquity: 1060,
      netPnl: 60,
      returnPct: 6,
      realizedPnl: 0,
      maxDrawdownPct: 2.5735294118,
      maxDrawdownQuote: 28,
      feesPaid: 0,
      closedTrades: 0,
      cycles: null,
      fills: 3,
      capitalPeak: 280,
      timeInMarketPct: 83.3333333333,
      openPosition: { qty: 2, avgEntry: 93.3333333333, value: 220 },
      buyAndHoldPct: 10,
      buyAndHoldPnl: 100,
      rejections: { insufficient_funds: 0, min_cost: 0 },
      stopReason: null,
    });
  });

  it('keeps at most maxEquityPoints, with the first, the last, the lowest and the highest', () => {
    const idle: Strategy<{ botId: string }, null> = {
      kind: 'idle',
      create: (botId) => ({ botId }),
      step: (s) => ({ state: s, commands: [] }),
      samePersisted: () => true,
      realizedPnl: () => '0',
    };
    const n = 1000;
    const wave: BacktestCandle[] = Array.from({ length: n }, (_, i) => {
      const c = 100 + 50 * Math.sin(i / 37) + (i === 613 ? -60 : 0) + (i === 77 ? 70 : 0);
      return [at(i), c, c, c, c];
    });
    const r = runBacktest({
      strategy: idle,
      config: null,
      candles: wave,
      market: noFees,
      initialQuote: 0,
      initialBase: 1,
      maxEquityPoints: 50,
    });
    expect(r.equity.length).toBeLessThanOrEqual(50);
    const values = r.equity.map((p) => p.equity);
    // Equity points are rounded to 10 decimals.
    expect(Math.min(...values)).toBeCloseTo(Math.min(...wave.map((c) => c[4])), 9);
    expect(Math.max(...values)).toBeCloseTo(Math.max(...wave.map((c) => c[4])), 9);
    expect(r.equity[0]!.time).toBe(at(0));
    expect(r.equity[0]!.equity).toBeCloseTo(wave[0]![4], 9);
    expect(r.equity.at(-1)!.time).toBe(at(n - 1));
    expect(r.equity.at(-1)!.equity).toBeCloseTo(wave[n - 1]![4], 9);
    const times = r.equity.map((p) => p.time);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(r.summary.buyAndHoldPct).toBeCloseTo((wave[n - 1]![4] / wave[0]![1] - 1) * 100, 8);
  });
});

describe('input', () => {
  const rec = recorder([]);
  const run = (candles: BacktestCandle[]) =>
    runBacktest({ strategy: rec, config: null, candles, market: noFees, initialQuote: 1 });

  it('refuses candles it cannot walk, naming the candle', () => {
    expect(() => run([])).toThrow(BacktestInputError);
    expect(() => run([[at(0), 100, 99, 98, 100]])).toThrow(
      'candle 0: low 98 / high 99 do not hold open 100 and close 100',
    );
    expect(() =>
      run([
        [at(0), 100, 100, 100, 100],
        [at(0), 100, 100, 100, 100],
      ]),
    ).toThrow('candle 1: time');
    expect(() => run([[at(0), 100, 100, 0, 100]])).toThrow('candle 0: prices must be positive numbers');
    expect(() => run([[Number.NaN, 100, 100, 100, 100]])).toThrow('candle 0: time NaN is not a number');
  });

  it('takes columns as well as tuples', () => {
    const tuples: BacktestCandle[] = [
      [at(0), 100, 101, 99, 100.5, 12],
      [at(1), 100.5, 102, 100, 101],
    ];
    const cols = {
      ts: tuples.map((c) => c[0]),
      open: tuples.map((c) => c[1]),
      high: tuples.map((c) => c[2]),
      low: tuples.map((c) => c[3]),
      close: tuples.map((c) => c[4]),
    };
    const a = runBacktest({ strategy: rec, config: null, candles: tuples, market: noFees, initialQuote: 1 });
    const b = runBacktest({ strategy: rec, config: null, candles: cols, market: noFees, initialQuote: 1 });
    expect(b).toEqual(a);
  });
});

describe('the classic DCA trend filter', () => {
  // The bot builds its candles from the path's ticks: each 1-minute input candle becomes one closed
  // candle of its own (open, high, low and close are all ticks of that minute).
  const config: ClassicDcaConfig = {
    symbol: 'BTC/USDT',
    amount: 100,
    tpPct: 1,
    sepPct: 2,
    os: 1,
    market: testMarket(),
    sl: null,
    tpPlus: null,
    r: false,
    rOs: false,
    trendFilter: true,
    smartAveraging: false,
    smartAmount: 10,
    maPeriod: 3,
    candleMs: MIN,
    tpVncPct: 0.5,
  };
  // Rising closes: 100, 101, 102, 103, 104.
  const candles: BacktestCandle[] = [0, 1, 2, 3, 4].map((i) => [
    at(i),
    100 + i,
    100.5 + i,
    99.5 + i,
    100 + i,
  ]);

  it('warms up on the period’s own candles', () => {
    const r = runBacktest({
      strategy: classicDca,
      config,
      candles,
      market: testMarket(),
      initialQuote: 1000,
    });
    // Closed candles at minute 3's first tick: 100, 101, 102: close 102 > MA 101 → the base buys at 103.
    expect(r.fills[0]).toMatchObject({ time: at(3), side: 'buy', price: 103, role: 'base' });
  });

  it('starts at once from a state seeded with the candles before the period', () => {
    const history = [-3, -2, -1].map((i) => ({ t: at(i), o: 97 + i, h: 98 + i, l: 96 + i, c: 98 + i }));
    const r = runBacktest({
      strategy: classicDca,
      config,
      initialState: createClassicDca('bt', config, history),
      candles,
      market: testMarket(),
      initialQuote: 1000,
    });
    expect(r.fills[0]).toMatchObject({ time: at(0), side: 'buy', price: 100, role: 'base' });
  });
});
