import {
  AreaSeries,
  ColorType,
  createChart,
  LineSeries,
  type IChartApi,
  type ISeriesApi,
  type UTCTimestamp,
} from 'lightweight-charts';
import { useEffect, useRef } from 'react';
import type { EarningsHistoryPoint } from '../api/earnings';

/** Seconds since the epoch, whether the server sent seconds or milliseconds. */
const toSeconds = (t: number) => Math.floor(t > 1e12 ? t / 1000 : t);

/** Sorted by time, one point per second (the chart needs strictly rising times). */
export function chartSeries(points: EarningsHistoryPoint[]) {
  const byTime = new Map<number, EarningsHistoryPoint>();
  for (const p of points) byTime.set(toSeconds(p.t), p);
  const times = [...byTime.keys()].sort((a, b) => a - b);
  return {
    pool: times.map((time) => ({
      time: time as UTCTimestamp,
      value: Number(byTime.get(time)!.pool_available),
    })),
    rewards: times.map((time) => ({ time: time as UTCTimestamp, value: Number(byTime.get(time)!.rewards) })),
  };
}

/**
 * A price scale's range widened to at least 10 % of its magnitude (or `floor` around zero), and never
 * below zero for values that cannot be negative. Without it a flat series — no rewards yet (all 0) or
 * a pool that has not moved — gets an autoscaled range of ±0.000006 around its one value, and every
 * gridline reads the same ('50M' on each line; issue 37 point 21).
 */
export function widenRange(
  minValue: number,
  maxValue: number,
  floor = 1,
): { minValue: number; maxValue: number } {
  const span = maxValue - minValue;
  const need = Math.max(Math.abs(minValue), Math.abs(maxValue)) * 0.1 || floor;
  if (span >= need) return { minValue, maxValue };
  const mid = (minValue + maxValue) / 2;
  let lo = mid - need / 2;
  let hi = mid + need / 2;
  if (minValue >= 0 && lo < 0) {
    hi -= lo;
    lo = 0;
  }
  return { minValue: lo, maxValue: hi };
}

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 });
/**
 * An axis label that stays readable at any size: compact from 1,000 up (47.5M), 2 decimals from 1,
 * up to 4 significant digits below 1 (0.0001234), and '0' for zero.
 */
export function axisLabel(v: number): string {
  const a = Math.abs(v);
  if (a >= 1000) return compact.format(v);
  if (a >= 1) return v.toFixed(2);
  if (a === 0) return '0';
  return String(Number(v.toPrecision(4)));
}

/** The lowest and highest value of a series' data (null: no data). */
type DataRange = { min: number; max: number } | null;
const rangeOf = (values: number[]): DataRange =>
  values.length === 0 ? null : { min: Math.min(...values), max: Math.max(...values) };

/**
 * lightweight-charts' own autoscale while the series moves; for a flat series (one value, e.g. no
 * rewards yet) a range widened around that value (see widenRange).
 */
const saneScale =
  (data: { current: DataRange }, floor: number) =>
  (original: () => { priceRange: { minValue: number; maxValue: number } | null } | null) => {
    const r = data.current;
    if (!r || r.max > r.min) return original();
    return { ...(original() ?? {}), priceRange: widenRange(r.min, r.max, floor) };
  };

/**
 * The pool's available tokens (area, right scale) and the user's rewards (line, left scale) over time,
 * from GET /api/earnings/history. Loaded on demand (React.lazy) so lightweight-charts stays out of
 * the first page.
 */
export default function EarningsChart({
  points,
  label,
  height = 260,
  titles,
  testId = 'earnings-chart',
}: {
  points: EarningsHistoryPoint[];
  label: string;
  height?: number;
  titles: { pool: string; rewards: string };
  testId?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<IChartApi | null>(null);
  const pool = useRef<ISeriesApi<'Area'> | null>(null);
  const rewards = useRef<ISeriesApi<'Line'> | null>(null);
  const poolRange = useRef<DataRange>(null);
  const rewardsRange = useRef<DataRange>(null);

  useEffect(() => {
    if (!box.current) return;
    const c = createChart(box.current, {
      autoSize: true,
      height,
      layout: {
        attributionLogo: false,
        background: { type: ColorType.Solid, color: 'transparent' },
        textColor: '#909296',
      },
      grid: {
        vertLines: { color: 'rgba(144, 146, 150, 0.15)' },
        horzLines: { color: 'rgba(144, 146, 150, 0.15)' },
      },
      leftPriceScale: { visible: true, borderVisible: false },
      rightPriceScale: { borderVisible: false },
      timeScale: { borderVisible: false, timeVisible: true },
    });
    pool.current = c.addSeries(AreaSeries, {
      title: titles.pool,
      lineColor: '#fab005',
      topColor: 'rgba(250, 176, 5, 0.35)',
      bottomColor: 'rgba(250, 176, 5, 0.02)',
      priceScaleId: 'right',
      priceFormat: { type: 'custom', formatter: axisLabel, minMove: 0.01 },
      autoscaleInfoProvider: saneScale(poolRange, 1),
    });
    rewards.current = c.addSeries(LineSeries, {
      title: titles.rewards,
      color: '#2f9e44',
      priceScaleId: 'left',
      priceFormat: { type: 'custom', formatter: axisLabel, minMove: 0.000001 },
      // No rewards yet: 0 to 1 token, not ±0.000006.
      autoscaleInfoProvider: saneScale(rewardsRange, 1),
    });
    chart.current = c;
    return () => {
      c.remove();
      chart.current = null;
      pool.current = null;
      rewards.current = null;
    };
  }, [height, titles.pool, titles.rewards]);

  useEffect(() => {
    const s = chartSeries(points);
    poolRange.current = rangeOf(s.pool.map((p) => p.value));
    rewardsRange.current = rangeOf(s.rewards.map((p) => p.value));
    pool.current?.setData(s.pool);
    rewards.current?.setData(s.rewards);
    chart.current?.timeScale().fitContent();
  }, [points, height, titles.pool, titles.rewards]);

  return (
    <div
      ref={box}
      role="img"
      aria-label={label}
      data-testid={testId}
      data-points={points.length}
      style={{ width: '100%', height }}
    />
  );
}
