import type { HistoryDailyPoint } from '@bytx/contract';
import { BaselineSeries, ColorType, createChart, type IChartApi, type ISeriesApi } from 'lightweight-charts';
import { useEffect, useRef } from 'react';

/**
 * Cumulative PnL (USD equivalent) by UTC day, from the server's daily series; green above zero, red
 * below. Loaded on demand (React.lazy) so lightweight-charts stays out of the main bundle.
 */
export default function PnlChart({ points, label }: { points: HistoryDailyPoint[]; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<IChartApi | null>(null);
  const series = useRef<ISeriesApi<'Baseline'> | null>(null);

  useEffect(() => {
    if (!box.current) return;
    const c = createChart(box.current, {
      autoSize: true,
      height: 220,
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
      timeScale: { borderVisible: false },
    });
    series.current = c.addSeries(BaselineSeries, {
      baseValue: { type: 'price', price: 0 },
      topLineColor: '#2f9e44',
      bottomLineColor: '#e03131',
      priceFormat: { type: 'price', precision: 2, minMove: 0.01 },
    });
    chart.current = c;
    return () => {
      c.remove();
      chart.current = null;
      series.current = null;
    };
  }, []);

  useEffect(() => {
    series.current?.setData(points.map((p) => ({ time: p.day, value: p.cumulative_usd })));
    chart.current?.timeScale().fitContent();
  }, [points]);

  return (
    <div
      ref={box}
      role="img"
      aria-label={label}
      data-testid="gh-chart"
      data-points={points.length}
      style={{ width: '100%', height: 220 }}
    />
  );
}
