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
      priceFormat: { type: 'volume' },
    });
    rewards.current = c.addSeries(LineSeries, {
      title: titles.rewards,
      color: '#2f9e44',
      priceScaleId: 'left',
      priceFormat: { type: 'price', precision: 6, minMove: 0.000001 },
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
