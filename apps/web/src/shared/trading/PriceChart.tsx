import type { CandlesResponse } from '@bytx/contract';
import {
  CandlestickSeries,
  ColorType,
  createChart,
  createSeriesMarkers,
  LineStyle,
  type IChartApi,
  type IPriceLine,
  type ISeriesApi,
  type ISeriesMarkersPluginApi,
  type SeriesMarker,
  type Time,
  type UTCTimestamp,
} from 'lightweight-charts';
import { useEffect, useRef } from 'react';

/** A horizontal line: the DCA average entry, the panel's Take Profit or Stop Loss. */
export interface ChartLine {
  id: 'dca' | 'tp' | 'sl';
  price: number;
  title: string;
}

/** A fill of the user on this pair (Trade History), at its candle. */
export interface ChartMarker {
  /** Open time (ms) of the candle the fill belongs to. */
  time: number;
  side: 'buy' | 'sell';
  text: string;
}

export interface PriceChartProps {
  candles: CandlesResponse['candles'];
  lines: ChartLine[];
  markers: ChartMarker[];
  /** Changes with the exchange, pair or timeframe: the view is fitted again. */
  dataKey: string;
  /** Screen-reader text. */
  label: string;
  height: number;
}

const UP = '#2f9e44';
const DOWN = '#e03131';
const LINE_COLORS: Record<ChartLine['id'], string> = { dca: '#f08c00', tp: UP, sl: DOWN };

/**
 * The trading screen's candles (lightweight-charts; loaded on demand with React.lazy so it stays out
 * of the first page's bundle). The last candle moves as the poll brings it; lines and markers follow
 * the chart's settings menu.
 */
export default function PriceChart({ candles, lines, markers, dataKey, label, height }: PriceChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<IChartApi | null>(null);
  const series = useRef<ISeriesApi<'Candlestick'> | null>(null);
  const markerApi = useRef<ISeriesMarkersPluginApi<Time> | null>(null);
  const priceLines = useRef<IPriceLine[]>([]);
  const fitted = useRef('');

  useEffect(() => {
    if (!box.current) return;
    const c = createChart(box.current, {
      autoSize: true,
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
    const s = c.addSeries(CandlestickSeries, {
      upColor: UP,
      downColor: DOWN,
      wickUpColor: UP,
      wickDownColor: DOWN,
      borderVisible: false,
    });
    series.current = s;
    markerApi.current = createSeriesMarkers(s, []);
    chart.current = c;
    return () => {
      c.remove();
      chart.current = null;
      series.current = null;
      markerApi.current = null;
      priceLines.current = [];
      fitted.current = '';
    };
  }, []);

  useEffect(() => {
    const s = series.current;
    if (!s) return;
    const ref = candles[candles.length - 1]?.[4] ?? 1;
    const precision = ref >= 1000 ? 2 : ref >= 1 ? 4 : 8;
    s.applyOptions({ priceFormat: { type: 'price', precision, minMove: 10 ** -precision } });
    s.setData(
      candles.map(([ts, open, high, low, close]) => ({
        time: Math.floor(ts / 1000) as UTCTimestamp,
        open,
        high,
        low,
        close,
      })),
    );
    if (candles.length > 0 && fitted.current !== dataKey) {
      chart.current?.timeScale().fitContent();
      fitted.current = dataKey;
    }
  }, [candles, dataKey]);

  useEffect(() => {
    const s = series.current;
    if (!s) return;
    for (const l of priceLines.current) s.removePriceLine(l);
    priceLines.current = lines.map((l) =>
      s.createPriceLine({
        price: l.price,
        color: LINE_COLORS[l.id],
        title: l.title,
        lineWidth: 2,
        lineStyle: l.id === 'dca' ? LineStyle.Solid : LineStyle.Dashed,
        axisLabelVisible: true,
      }),
    );
  }, [lines]);

  useEffect(() => {
    const data: SeriesMarker<Time>[] = markers
      .map((m) => ({
        time: Math.floor(m.time / 1000) as UTCTimestamp,
        position: m.side === 'buy' ? ('belowBar' as const) : ('aboveBar' as const),
        shape: m.side === 'buy' ? ('arrowUp' as const) : ('arrowDown' as const),
        color: m.side === 'buy' ? UP : DOWN,
        text: m.text,
      }))
      .sort((a, b) => a.time - b.time);
    markerApi.current?.setMarkers(data);
  }, [markers]);

  return (
    <div
      ref={box}
      role="img"
      aria-label={label}
      data-testid="trade-chart-canvas"
      data-candles={candles.length}
      data-lines={lines.map((l) => l.id).join(',')}
      data-markers={markers.length}
      style={{ width: '100%', height }}
    />
  );
}
