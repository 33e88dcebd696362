import type { BacktestSummary } from '@bytx/contract';
import { describe, expect, it } from 'vitest';
import i18n from '../i18n/index';
import { fmtTime, money, pairParts, pct, price, qty, signed, summaryFigures } from './format';
import { snapToCandles } from './BacktestCharts';

const summary: BacktestSummary = {
  from: 0,
  to: 1,
  candles: 2,
  initialEquity: 1000,
  finalEquity: 990,
  netPnl: -10,
  returnPct: -1,
  realizedPnl: 0,
  maxDrawdownPct: 0,
  maxDrawdownQuote: 0,
  feesPaid: 1.5,
  closedTrades: 0,
  cycles: 3,
  fills: 0,
  capitalPeak: 0,
  timeInMarketPct: 0,
  openPosition: { qty: 0, avgEntry: null, value: 0 },
  buyAndHoldPct: 0,
  buyAndHoldPnl: 0,
  rejections: { insufficient_funds: 0, min_cost: 0 },
  stopReason: null,
};

describe('backtest formatting', () => {
  it('formats amounts, prices, quantities and percentages', () => {
    expect(pairParts('ETH/BTC')).toEqual({ base: 'ETH', quote: 'BTC' });
    expect(pairParts('BTC/USDT:USDT')).toEqual({ base: 'BTC', quote: 'USDT' });
    expect(money(12.345)).toBe('12.35');
    expect(money(-0.001)).toBe('-0.001');
    expect(money(-0.0000001)).toBe('-0.0000001');
    expect(money(0.00421234)).toBe('0.00421');
    expect(money(-0.000000001)).toBe('0.00');
    expect(money(0)).toBe('0.00');
    expect(money(-0.004999)).toBe('-0.005');
    expect(money(NaN)).toBe('—');
    expect(price(65432.109)).toBe('65432.11');
    expect(price(1.23456)).toBe('1.2346');
    expect(price(0.000012346)).toBe('0.00001235');
    expect(price(null)).toBe('—');
    expect(qty(0.123456789)).toBe('0.12345679');
    expect(pct(-0.001)).toBe('0.00 %');
    expect(signed(pct(1.5), 1.5)).toBe('+1.50 %');
    expect(signed(pct(0.001), 0.001)).toBe('0.00 %');
    expect(signed(money(-2), -2)).toBe('-2.00');
    expect(fmtTime(new Date(2025, 0, 2, 3, 4).getTime())).toBe('2025-01-02 03:04');
    expect(fmtTime(null)).toBe('—');
  });

  it('lists the summary: a loss in red, no drawdown, cycles when counted, no open position', async () => {
    await i18n.changeLanguage('en');
    const f = Object.fromEntries(summaryFigures(summary, 'ETH/BTC', i18n.t).map((x) => [x.id, x]));
    expect(f['net-pnl']).toMatchObject({ value: '-10.00 BTC', color: 'red' });
    expect(f['return']).toMatchObject({ value: '-1.00 %', color: 'red' });
    expect(f['max-drawdown']).toEqual({
      id: 'max-drawdown',
      label: 'backtest.result.maxDrawdown',
      value: '0.00 %',
    });
    expect(f['fees']!.value).toBe('1.50 BTC');
    expect(f['cycles']!.value).toBe('3');
    expect(f['open-position']!.value).toBe('None');
    expect(f['buy-hold']!.value).toBe('0.00 % (0.00 BTC)');
    expect(f['buy-hold']!.color).toBeUndefined();
  });

  it('puts a fill on the candle it happened in', () => {
    const times = [1000, 2000, 3000];
    expect(snapToCandles(times, 500)).toBe(1000);
    expect(snapToCandles(times, 1000)).toBe(1000);
    expect(snapToCandles(times, 2999)).toBe(2000);
    expect(snapToCandles(times, 9999)).toBe(3000);
    expect(snapToCandles([], 42)).toBe(42);
  });
});
