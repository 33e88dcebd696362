import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { useAfterFirstPaint } from '../ui/afterFirstPaint';
import type { RowChartProps } from './RowChart';

/** The chart's code is a chunk of its own, fetched only when a row shows it (not on the first paint). */
const RowChart = lazy(() => import('./RowChart'));

/** RowChart.tsx's ROW_CHART_W × ROW_CHART_H (kept here as numbers: importing them would bundle the chart). */
const W = 360;
const H = 110;

/**
 * Where a bot row's small price chart goes: a box of the chart's size (nothing moves when it comes),
 * filled after the page's first paint and only once the row is on screen (IntersectionObserver), so
 * /bot-dca's first paint neither runs nor fetches it and rows below the fold fetch nothing.
 */
export function RowChartSlot(props: RowChartProps) {
  const painted = useAfterFirstPaint();
  const ref = useRef<HTMLDivElement>(null);
  const [seen, setSeen] = useState(false);
  useEffect(() => {
    if (!painted || seen) return;
    const el = ref.current;
    if (!el) return;
    if (typeof IntersectionObserver === 'undefined') {
      setSeen(true);
      return;
    }
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        setSeen(true);
        io.disconnect();
      }
    });
    io.observe(el);
    return () => io.disconnect();
  }, [painted, seen]);
  return (
    <div
      ref={ref}
      data-testid="row-chart-slot"
      style={{ width: '100%', maxWidth: W, aspectRatio: `${W} / ${H}` }}
    >
      {seen && (
        <Suspense fallback={null}>
          <RowChart {...props} />
        </Suspense>
      )}
    </div>
  );
}
