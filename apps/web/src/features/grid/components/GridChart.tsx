import type { CandlesResponse } from '@bytx/contract';
import {
  CandlestickSeries,
  type AutoscaleInfo,
  ColorType,
  createChart,
  LineStyle,
  type IChartApi,
  type IPriceLine,
  type ISeriesApi,
  type UTCTimestamp,
} from 'lightweight-charts';
import { useEffect, useRef } from 'react';

/** One grid level: a resting buy, a resting sell, or empty (the slot nearest the price). */
export interface ChartLevel {
  price: number;
  kind: 'buy' | 'sell' | 'empty';
}

export interface GridChartProps {
  candles: CandlesResponse['candles'];
  high: number | null;
  low: number | null;
  levels: ChartLevel[];
  /** Screen-reader text (the same facts the legend under the chart shows). */
  label: string;
  titles: { high: string; low: string; buy: string; sell: string };
}

const HIGH_LOW = '#f08c00';
const BUY = '#2f9e44';
const SELL = '#e03131';
const EMPTY = '#868e96';

/**
 * The grid page's chart: our candles of the venue symbol, the grid's high and low lines and every
 * level (buys green, sells red, an empty slot grey). Loaded on demand (React.lazy) so
 * lightweight-charts stays out of the main bundle.
 */
export default function GridChart({ candles, high, low, levels, label, titles }: GridChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<IChartApi | null>(null);
  const series = useRef<ISeriesApi<'Candlestick'> | null>(null);
  const lines = useRef<IPriceLine[]>([]);

  useEffect(() => {
    if (!box.current) return;
    const c = createChart(box.current, {
      autoSize: true,
      height: 420,
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
      timeScale: { borderVisible: false, timeVisible: true },
    });
    series.current = c.addSeries(CandlestickSeries, {
      upColor: BUY,
      downColor: SELL,
      wickUpColor: BUY,
      wickDownColor: SELL,
      borderVisible: false,
    });
    chart.current = c;
    return () => {
      c.remove();
      chart.current = null;
      series.current = null;
      lines.current = [];
    };
  }, []);

  useEffect(() => {
    const s = series.current;
    if (!s) return;
    const ref = candles[candles.length - 1]?.[4] ?? high ?? 1;
    const precision = ref >= 1000 ? 2 : ref >= 1 ? 4 : 8;
    s.applyOptions({
      priceFormat: { type: 'price', precision, minMove: 10 ** -precision },
      // The price scale takes in the grid's range as well as the candles.
      autoscaleInfoProvider: (original: () => AutoscaleInfo | null) => {
        const r = original();
        const bounds = [high, low].filter((v): v is number => v !== null);
        if (bounds.length === 0) return r;
        const min = Math.min(...bounds, ...(r?.priceRange ? [r.priceRange.minValue] : []));
        const max = Math.max(...bounds, ...(r?.priceRange ? [r.priceRange.maxValue] : []));
        return { ...r, priceRange: { minValue: min, maxValue: max } };
      },
    });
    s.setData(
      candles.map(([ts, open, hi, lo, close]) => ({
        time: Math.floor(ts / 1000) as UTCTimestamp,
        open,
        high: hi,
        low: lo,
        close,
      })),
    );
    chart.current?.timeScale().fitContent();
  }, [candles, high, low]);

  useEffect(() => {
    const s = series.current;
    if (!s) return;
    for (const l of lines.current) s.removePriceLine(l);
    const add = (price: number, color: string, title: string, solid: boolean) =>
      s.createPriceLine({
        price,
        color,
        title,
        lineWidth: solid ? 2 : 1,
        lineStyle: solid ? LineStyle.Solid : LineStyle.Dotted,
        axisLabelVisible: solid,
      });
    lines.current = [
      ...levels.map((l) =>
        l.kind === 'buy'
          ? add(l.price, BUY, titles.buy, false)
          : l.kind === 'sell'
            ? add(l.price, SELL, titles.sell, false)
            : add(l.price, EMPTY, '', false),
      ),
      ...(high !== null ? [add(high, HIGH_LOW, titles.high, true)] : []),
      ...(low !== null ? [add(low, HIGH_LOW, titles.low, true)] : []),
    ];
  }, [levels, high, low, titles]);

  return (
    <div
      ref={box}
      role="img"
      aria-label={label}
      data-testid="grid-chart-canvas"
      data-candles={candles.length}
      data-lines={levels.length + (high !== null ? 1 : 0) + (low !== null ? 1 : 0)}
      style={{ width: '100%', height: 420 }}
    />
  );
}
