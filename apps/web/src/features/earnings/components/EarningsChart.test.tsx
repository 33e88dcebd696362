import { render } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import EarningsChart, { axisLabel, widenRange } from './EarningsChart';

type Scale = { priceRange: { minValue: number; maxValue: number } | null } | null;
interface SeriesOptions {
  priceFormat: { type: string; formatter?: (v: number) => string };
  autoscaleInfoProvider?: (original: () => Scale) => Scale;
}

/** lightweight-charts draws on a canvas happy-dom lacks: a stand-in records each series' options. */
const made = vi.hoisted(() => ({ options: [] as unknown[] }));
vi.mock('lightweight-charts', () => ({
  AreaSeries: { type: 'Area' },
  LineSeries: { type: 'Line' },
  ColorType: { Solid: 'solid' },
  createChart: () => ({
    addSeries: (_type: unknown, options: unknown) => {
      made.options.push(options);
      return { setData: () => undefined };
    },
    timeScale: () => ({ fitContent: () => undefined }),
    remove: () => undefined,
  }),
}));

// Issue 37 point 21: the chart with no earnings drew ±0.000006 on the rewards scale and '50M' on every
// gridline of the pool scale (both series flat, autoscaled to a vanishing range).
describe('earnings chart axes', () => {
  it('widens a flat range: no rewards yet read 0 to 1, not ±0.000006', () => {
    expect(widenRange(0, 0)).toEqual({ minValue: 0, maxValue: 1 });
    expect(widenRange(2, 2)).toEqual({ minValue: 1.9, maxValue: 2.1 });
  });

  it('widens a flat pool to 10 % of its size, so gridlines differ', () => {
    const r = widenRange(50_000_000, 50_000_000);
    expect(r).toEqual({ minValue: 47_500_000, maxValue: 52_500_000 });
    const labels = [r.minValue, 48_750_000, 50_000_000, 51_250_000, r.maxValue].map(axisLabel);
    expect(new Set(labels).size).toBe(labels.length);
    expect(labels).toEqual(['47.5M', '48.75M', '50M', '51.25M', '52.5M']);
  });

  it('keeps a range that already moves', () => {
    expect(widenRange(10, 20)).toEqual({ minValue: 10, maxValue: 20 });
    expect(widenRange(0.5, 3)).toEqual({ minValue: 0.5, maxValue: 3 });
  });

  it('labels every size readably', () => {
    expect(axisLabel(0)).toBe('0');
    expect(axisLabel(0.000123456)).toBe('0.0001235');
    expect(axisLabel(0.25)).toBe('0.25');
    expect(axisLabel(12.345)).toBe('12.35');
    expect(axisLabel(1500)).toBe('1.5K');
  });

  it('the chart with no earnings gets sane scales: pool ±5 % around 50M, rewards 0 to 1', () => {
    made.options = [];
    const points = [0, 1, 2].map((i) => ({
      t: 1_700_000_000_000 + i * 60_000,
      pool_available: 5e7,
      rewards: 0,
    }));
    render(<EarningsChart points={points} label="chart" titles={{ pool: 'Pool', rewards: 'Rewards' }} />);
    const [pool, rewards] = made.options as SeriesOptions[];
    // What lightweight-charts' own autoscale gives a flat series: a vanishing range.
    const flat = (v: number) => () => ({ priceRange: { minValue: v - 0.000006, maxValue: v + 0.000006 } });
    expect(pool!.autoscaleInfoProvider!(flat(5e7))?.priceRange).toEqual({
      minValue: 47_500_000,
      maxValue: 52_500_000,
    });
    expect(rewards!.autoscaleInfoProvider!(flat(0))?.priceRange).toEqual({ minValue: 0, maxValue: 1 });
    expect(pool!.priceFormat.formatter!(48_750_000)).toBe('48.75M');
    expect(rewards!.priceFormat.formatter!(0.25)).toBe('0.25');
  });
});
