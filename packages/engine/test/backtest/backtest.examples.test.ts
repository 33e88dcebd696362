/**
 * runBacktest on hand-built candles, one scenario per kind, the money worked out by hand.
 * Market (all three): amount step 0.0001, price step 0.01, minimum cost 5, fees 0.1 % (maker and
 * taker), no slippage. The venue rounds every fee to 8 decimals (as the paper venue). Candles are one
 * minute apart; a rising candle is walked open → low → high → close, a falling one open → high → low →
 * close.
 */
import { describe, expect, it } from 'vitest';
import {
  classicDca,
  gridBot,
  gridBotDca,
  runBacktest,
  type BacktestCandle,
  type ClassicDcaConfig,
  type DcaConfig,
  type GridConfig,
} from '../../src/index';
import { testMarket } from '../shared/shared-helpers';

const T0 = Date.UTC(2025, 0, 1);
const MIN = 60_000;
const at = (i: number) => T0 + i * MIN;

describe('Grid Bot DCA', () => {
  /*
   * A = 100 USDT per buy, TP 1 %, separation 1 %, 3 OS, 1,000 USDT.
   * c0 100 flat: the first tick buys A at market: 1 base at 100, fee 0.1 (lot 1, level 0). Its TP
   *    sells 1 at 101; the ladder buys 1.0101 at 99, 1.0203 at 98.01, 1.0307 at 97.02.
   * c1 falling 100 → 100.5 → 98.5 → 99.5: at 98.5 the buy at 99 fills: 1.0101 × 99 = 99.9999,
   *    fee 0.0999999 (lot 2, client id bt-3). Its TP sells 1.0101 at 99 × 1.01 = 99.99; the ladder adds 96.05.
   * c2 rising 99.5 → 99.4 → 101.2 → 101: at 101.2 both TPs fill, the lower first:
   *    lot 2: 1.0101 × 99.99 = 100.999899, fee 0.1009999 (8 decimals of 0.100999899)
   *           pnl = 1.0101 × (99.99 − 99) − 0.0999999 − 0.1009999 = 0.999999 − 0.2009998 = 0.7989992
   *    lot 1: 1 × 101 = 101, fee 0.101: pnl = 1 − 0.1 − 0.101 = 0.799
   * Flat at the end: net = 0.7989992 + 0.799 = 1.5979992 (equity 1,001.5979992); fees 0.1 + 0.0999999 +
   * 0.1009999 + 0.101 = 0.4019998.
   */
  const config: DcaConfig = {
    symbol: 'BTC/USDT',
    amount: 100,
    tpPct: 1,
    sepPct: 1,
    os: 3,
    direction: 'LONG',
    market: testMarket(),
    raEnabled: false,
  };
  const candles: BacktestCandle[] = [
    [at(0), 100, 100, 100, 100],
    [at(1), 100, 100.5, 98.5, 99.5],
    [at(2), 99.5, 101.2, 99.4, 101],
  ];

  it('entry, a ladder fill and two take profits', () => {
    const r = runBacktest({
      strategy: gridBotDca,
      config,
      candles,
      market: testMarket(),
      initialQuote: 1000,
    });
    expect(r.trades).toEqual([
      {
        lotId: 'bt-3',
        buyTime: at(1) + 2,
        sellTime: at(2) + 2,
        qty: 1.0101,
        buyPrice: 99,
        sellPrice: 99.99,
        buyFee: 0.0999999,
        sellFee: 0.1009999,
        fees: 0.0999999 + 0.1009999,
        pnlNet: 0.7989992,
      },
      {
        lotId: 'bt-1',
        buyTime: at(0),
        sellTime: at(2) + 2,
        qty: 1,
        buyPrice: 100,
        sellPrice: 101,
        buyFee: 0.1,
        sellFee: 0.101,
        fees: 0.1 + 0.101,
        pnlNet: 0.799,
      },
    ]);
    const s = r.summary;
    expect(s.closedTrades).toBe(2);
    expect(s.realizedPnl).toBe(1.5979992);
    expect(s.netPnl).toBe(1.5979992);
    expect(s.finalEquity).toBe(1001.5979992);
    expect(s.feesPaid).toBe(0.4019998);
    expect(s.openPosition).toEqual({ qty: 0, avgEntry: null, value: 0 });
    expect(r.fills.map((f) => [f.time - T0, f.side, f.price, f.qty, f.role, f.orderType])).toEqual([
      [0, 'buy', 100, 1, 'entry', 'market'],
      [MIN + 2, 'buy', 99, 1.0101, 'ladder_buy', 'limit'],
      [2 * MIN + 2, 'sell', 99.99, 1.0101, 'take_profit', 'limit'],
      [2 * MIN + 2, 'sell', 101, 1, 'take_profit', 'limit'],
    ]);
    expect(r.cancelled).toBe(false);
  });

  it('gives the same result without the fast path', () => {
    const a = runBacktest({
      strategy: gridBotDca,
      config,
      candles,
      market: testMarket(),
      initialQuote: 1000,
    });
    const b = runBacktest({
      strategy: gridBotDca,
      config,
      candles,
      market: testMarket(),
      initialQuote: 1000,
      fastPath: false,
    });
    expect({ ...a, stats: null }).toEqual({ ...b, stats: null });
  });
});

describe('classic DCA', () => {
  /*
   * amount 100, TP 1 %, separation 2 %, 3 safety orders, r off, trend filter and smart averaging off
   * (docs/bots/classic-dca.md's worked example), 1,000 USDT.
   * c0 100 flat: base at market, 1 at 100, fee 0.1; TP 101.11 for 1; safety buys 1.0204 at 98,
   *    1.0412 at 96.04, 1.0625 at 94.11.
   * c1 falling 100 → 100 → 97.5 → 99: at 97.5 the safety at 98 fills: 99.9992, fee 0.0999992. The TP is
   *    cancelled and placed again at dca × 1.01 = 200.1991992 / 2.0204 × 1.01 → 100.08 for 2.0204.
   * c2 rising 99 → 98.9 → 100.5 → 100.2: at 100.5 the TP fills: 2.0204 × 100.08 = 202.201632, fee
   *    0.20220163 (8 decimals). One trade: buyPrice = 199.9992 / 2.0204, buyFee 0.1999992,
   *    pnl = 202.201632 − 199.9992 − 0.1999992 − 0.20220163 = 1.80023117; r off → the remaining
   *    safety buys are cancelled and the bot stops (cycle_done).
   */
  const config: ClassicDcaConfig = {
    symbol: 'BTC/USDT',
    amount: 100,
    tpPct: 1,
    sepPct: 2,
    os: 3,
    market: testMarket(),
    sl: null,
    tpPlus: null,
    r: false,
    rOs: false,
    trendFilter: false,
    smartAveraging: false,
    smartAmount: 10,
    maPeriod: 70,
    candleMs: MIN,
    tpVncPct: 0.5,
  };
  const candles: BacktestCandle[] = [
    [at(0), 100, 100, 100, 100],
    [at(1), 100, 100, 97.5, 99],
    [at(2), 99, 100.5, 98.9, 100.2],
    [at(3), 100.2, 100.3, 90, 95],
  ];

  it('base, a safety fill and the take profit close the cycle', () => {
    const r = runBacktest({
      strategy: classicDca,
      config,
      candles,
      market: testMarket(),
      initialQuote: 1000,
    });
    expect(r.trades).toHaveLength(1);
    const t = r.trades[0]!;
    expect(t).toMatchObject({
      lotId: 'bt-c1',
      buyTime: at(0),
      sellTime: at(2) + 2,
      qty: 2.0204,
      sellPrice: 100.08,
      buyFee: 0.1999992,
      sellFee: 0.20220163,
      pnlNet: 1.80023117,
    });
    expect(t.buyPrice).toBeCloseTo(199.9992 / 2.0204, 10);
    expect(r.summary.stopReason).toBe('cycle_done');
    expect(r.summary.cycles).toBe(1);
    expect(r.summary.netPnl).toBe(1.80023117);
    // c3 falls to 90 after the stop: the cancelled safety buys at 96.04 and 94.11 do not fill.
    expect(r.fills.map((f) => [f.side, f.price, f.qty, f.role])).toEqual([
      ['buy', 100, 1, 'base'],
      ['buy', 98, 1.0204, 'safety'],
      ['sell', 100.08, 2.0204, 'take_profit'],
    ]);
    expect(r.summary.openPosition.qty).toBe(0);
  });
});

describe('Grid bot', () => {
  /*
   * low 100, high 150, step 10 %, 100 USDT per level, long, 1,000 USDT (grid.example.test.ts):
   * levels 100, 110, 121, 133.1, 146.41; slot qty 1, 0.909, 0.8264, 0.7513.
   * c0 120 flat: the nearest level 121 stays empty; the base of the two sell slots (0.8264 + 0.7513 =
   *    1.5777) is bought at market at 120: 189.324, fee 0.189324; then buys rest at 110 (0.909) and
   *    100 (1), sells at 133.1 (0.8264) and 146.41 (0.7513).
   * c1 falling 120 → 120 → 109 → 112: at 109 the buy at 110 fills: 99.99, fee 0.09999; its sell goes to
   *    121 (slot 1).
   * c2 rising 112 → 111 → 121.5 → 121.2: at 121.5 the sell at 121 fills: 109.989, fee 0.109989:
   *    one round, pnl = 0.909 × (121 − 110) − 0.09999 − 0.109989 = 9.789021; the buy at 110 rests again.
   * End: base 1.5777 marked at 121.2 = 191.21724; quote 1000 − 189.324 − 0.189324 − 99.99 − 0.09999 +
   * 109.989 − 0.109989 = 820.275697 (free and reserved): equity 1011.492937, net 11.492937.
   */
  const config: GridConfig = {
    symbol: 'BTC/USDT',
    low: 100,
    high: 150,
    stepPct: 10,
    amountPerLevel: 100,
    position: 'long',
    profitCurrency: 'quote',
    derivatives: false,
    market: testMarket(),
  };
  const candles: BacktestCandle[] = [
    [at(0), 120, 120, 120, 120],
    [at(1), 120, 120, 109, 112],
    [at(2), 112, 121.5, 111, 121.2],
  ];

  it('a buy level and its sell make one round', () => {
    const r = runBacktest({ strategy: gridBot, config, candles, market: testMarket(), initialQuote: 1000 });
    expect(r.trades).toHaveLength(1);
    expect(r.trades[0]).toMatchObject({
      buyTime: at(1) + 2,
      sellTime: at(2) + 2,
      qty: 0.909,
      buyPrice: 110,
      sellPrice: 121,
      buyFee: 0.09999,
      sellFee: 0.109989,
      pnlNet: 9.789021,
    });
    expect(r.fills.map((f) => [f.side, f.price, f.qty, f.role])).toEqual([
      ['buy', 120, 1.5777, 'grid_init'],
      ['buy', 110, 0.909, 'grid_buy'],
      ['sell', 121, 0.909, 'grid_sell'],
    ]);
    expect(r.summary.openPosition.qty).toBe(1.5777);
    expect(r.summary.finalEquity).toBe(1011.492937);
    expect(r.summary.netPnl).toBe(11.492937);
    expect(r.summary.realizedPnl).toBe(9.789021);
  });
});
