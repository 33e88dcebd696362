import { Stack, Text } from '@mantine/core';
import {
  BaselineSeries,
  CandlestickSeries,
  ColorType,
  createChart,
  createSeriesMarkers,
  type DeepPartial,
  type ChartOptions,
  type SeriesMarker,
  type Time,
  type UTCTimestamp,
} from 'lightweight-charts';
import { useEffect, useMemo, useRef } from 'react';
import type { BacktestChartCandle, BacktestEquityPoint, BacktestFill } from './api';
import { price as fmtPrice } from './format';

const UP = '#2f9e44';
const DOWN = '#e03131';
/** Above this many fills the markers carry no text (they would cover the candles). */
const MARKER_TEXT_MAX = 60;

const baseOptions = (height: number): DeepPartial<ChartOptions> => ({
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
  rightPriceScale: { borderVisible: false },
  // Up to 2,000 points must fit a phone's 300 px: fitContent cannot go below minBarSpacing (0.5 px by
  // default), which showed only the last days of the period on a narrow screen.
  timeScale: { borderVisible: false, timeVisible: true, minBarSpacing: 0.01 },
});

const sec = (ms: number) => Math.floor(ms / 1000) as UTCTimestamp;

/** Sorted by time with one point per second (lightweight-charts refuses repeated or unordered times). */
function uniqueByTime<T>(rows: T[], timeOf: (r: T) => number): T[] {
  const sorted = [...rows].sort((a, b) => timeOf(a) - timeOf(b));
  const out: T[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && sec(timeOf(last)) === sec(timeOf(r))) out[out.length - 1] = r;
    else out.push(r);
  }
  return out;
}

/** The open time of the candle a fill falls in (the last candle opening at or before it). */
export function snapToCandles(times: number[], t: number): number {
  if (times.length === 0) return t;
  let lo = 0;
  let hi = times.length - 1;
  if (t < times[0]!) return times[0]!;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (times[mid]! <= t) lo = mid;
    else hi = mid - 1;
  }
  return times[lo]!;
}

const precisionOf = (ref: number) => (ref >= 1000 ? 2 : ref >= 1 ? 4 : 8);

export interface BacktestChartsProps {
  candles: BacktestChartCandle[];
  fills: BacktestFill[];
  equity: BacktestEquityPoint[];
  titles: { equity: string; price: string };
  labels: { equity: string; price: string; legend: string };
}

/** The equity curve (green above the starting capital, red below). */
function EquityChart({ equity, label }: { equity: BacktestEquityPoint[]; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  const points = useMemo(() => uniqueByTime(equity, (p) => p.time), [equity]);

  useEffect(() => {
    if (!box.current) return;
    const c = createChart(box.current, baseOptions(200));
    const start = points[0]?.equity ?? 0;
    const s = c.addSeries(BaselineSeries, {
      baseValue: { type: 'price', price: start },
      topLineColor: UP,
      bottomLineColor: DOWN,
      priceFormat: { type: 'price', precision: 2, minMove: 0.01 },
    });
    s.setData(points.map((p) => ({ time: sec(p.time), value: p.equity })));
    c.timeScale().fitContent();
    return () => c.remove();
  }, [points]);

  return (
    <div
      ref={box}
      role="img"
      aria-label={label}
      data-testid="backtest-equity-chart"
      data-points={points.length}
      style={{ width: '100%', height: 200 }}
    />
  );
}

/** The candles with every fill marked at its price (buys ▲ green, sells ▼ red). */
function PriceChart({
  candles,
  fills,
  label,
}: {
  candles: BacktestChartCandle[];
  fills: BacktestFill[];
  label: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const bars = useMemo(() => uniqueByTime(candles, (c) => c[0]), [candles]);
  const markers = useMemo<SeriesMarker<Time>[]>(() => {
    const times = bars.map((b) => b[0]);
    const withText = fills.length <= MARKER_TEXT_MAX;
    return fills
      .map((f) => ({
        time: sec(snapToCandles(times, f.time)),
        position: 'atPriceMiddle' as const,
        price: f.price,
        shape: f.side === 'buy' ? ('arrowUp' as const) : ('arrowDown' as const),
        color: f.side === 'buy' ? UP : DOWN,
        ...(withText ? { text: fmtPrice(f.price) } : {}),
      }))
      .sort((a, b) => a.time - b.time);
  }, [bars, fills]);

  useEffect(() => {
    if (!box.current) return;
    const c = createChart(box.current, baseOptions(320));
    const ref = bars[bars.length - 1]?.[4] ?? 1;
    const precision = precisionOf(ref);
    const s = c.addSeries(CandlestickSeries, {
      upColor: UP,
      downColor: DOWN,
      wickUpColor: UP,
      wickDownColor: DOWN,
      borderVisible: false,
      priceFormat: { type: 'price', precision, minMove: 10 ** -precision },
    });
    s.setData(bars.map(([ts, open, high, low, close]) => ({ time: sec(ts), open, high, low, close })));
    createSeriesMarkers(s, markers);
    c.timeScale().fitContent();
    return () => c.remove();
  }, [bars, markers]);

  return (
    <div
      ref={box}
      role="img"
      aria-label={label}
      data-testid="backtest-price-chart"
      data-candles={bars.length}
      data-markers={markers.length}
      style={{ width: '100%', height: 320 }}
    />
  );
}

/**
 * The backtest's charts: its equity curve and the price with every fill. Loaded on demand
 * (React.lazy) so lightweight-charts stays out of the start forms' bundle.
 */
export default function BacktestCharts({ candles, fills, equity, titles, labels }: BacktestChartsProps) {
  return (
    <Stack gap="xs">
      <Text fw={600} size="sm">
        {titles.equity}
      </Text>
      <EquityChart equity={equity} label={labels.equity} />
      <Text fw={600} size="sm">
        {titles.price}
      </Text>
      <PriceChart candles={candles} fills={fills} label={labels.price} />
      <Text size="xs" c="dimmed" data-testid="backtest-fills-legend">
        {labels.legend}
      </Text>
    </Stack>
  );
}
