import type { CandlesResponse } from '@bytx/contract';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api } from '../api/client';
import { formatPrice, numberLocale } from '../ui/numbers';

/** One horizontal line of the bot (entry, take profit, lowest buy…), its label already translated. */
export interface RowChartLevel {
  key: string;
  label: string;
  value: number;
  color: string;
}

export interface RowChartProps {
  exchange: string;
  symbol: string;
  levels: RowChartLevel[];
  /** Refresh the candles while the bot runs (a stopped bot's chart stays as it was). */
  live?: boolean;
}

/** The drawing's size (viewBox units); RowChartSlot reserves the same box before this chunk loads. */
export const ROW_CHART_W = 360;
export const ROW_CHART_H = 110;
const PAD_L = 50;
const PAD_R = 84;
const PAD_TOP = 6;
const PAD_BOTTOM = 16;
const AXIS = '#868e96';
const PRICE_TICKS = 3;
/** The last 24 hourly closes: a day of the pair, one request per pair for every row that shows it. */
const TIMEFRAME = '1h';
const CANDLES = 24;

/** The query key: rows of the same pair (any bot kind) share one request (TanStack Query dedupes). */
export const rowChartKey = (exchange: string, symbol: string) =>
  ['bots', 'row-chart', exchange, symbol] as const;

const fetchCandles = (exchange: string, symbol: string) =>
  api<CandlesResponse>('/api/market/candles', {
    query: { exchange, symbol, timeframe: TIMEFRAME, limit: CANDLES },
  });

/**
 * A bot row's small price chart (issue 40 pt 3): the pair's last 24 hourly closes with the bot's levels
 * as dashed horizontal lines labelled on the right, a price axis on the left and a time axis below.
 * Inline SVG of a few dozen elements (no chart library); loaded with React.lazy by RowChartSlot after
 * the page's first paint, and renders nothing until its candles have come.
 */
export default function RowChart({ exchange, symbol, levels, live = true }: RowChartProps) {
  const { t, i18n } = useTranslation();
  const locale = numberLocale(i18n.language);
  const q = useQuery({
    queryKey: rowChartKey(exchange, symbol),
    queryFn: () => fetchCandles(exchange, symbol),
    // An hourly chart: a minute's refresh is plenty, and cheap for the page.
    refetchInterval: live ? 60_000 : false,
    staleTime: 30_000,
    retry: false,
  });
  const candles = (q.data?.candles ?? []).filter((c) => Number.isFinite(c[0]) && Number.isFinite(c[4]));
  if (candles.length === 0) return null;
  const closes = candles.map((c) => c[4]);
  const times = candles.map((c) => c[0]);
  const shown = levels.filter((l) => Number.isFinite(l.value) && l.value > 0);

  const all = [...closes, ...shown.map((l) => l.value)];
  let lo = Math.min(...all);
  let hi = Math.max(...all);
  if (hi - lo < 1e-12) {
    const pad = Math.abs(hi) * 0.001 || 1;
    lo -= pad;
    hi += pad;
  }
  const plotW = ROW_CHART_W - PAD_L - PAD_R;
  const plotH = ROW_CHART_H - PAD_TOP - PAD_BOTTOM;
  const bottom = PAD_TOP + plotH;
  const right = ROW_CHART_W - PAD_R;
  const y = (v: number) => PAD_TOP + ((hi - v) / (hi - lo)) * plotH;
  const x = (i: number) => PAD_L + (closes.length <= 1 ? plotW : (i / (closes.length - 1)) * plotW);
  const path = closes.map((c, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(c).toFixed(1)}`).join(' ');
  // One number of decimals for every price tick, by the highest price shown (house style, numbers.ts).
  const tickDecimals = Math.abs(hi) >= 100 ? 2 : Math.abs(hi) >= 1 ? 4 : 8;
  const priceTicks = Array.from({ length: PRICE_TICKS }, (_, i) => lo + ((hi - lo) * i) / (PRICE_TICKS - 1));
  const timeIdx = [...new Set([0, Math.round((closes.length - 1) / 2), closes.length - 1])];
  const timeText = (ms: number) =>
    new Date(ms).toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' });
  const label = t('bots.rowChart.label', { symbol });
  const levelsText = shown.map((l) => `${l.label} ${formatPrice(locale, l.value)}`).join('; ');
  const title = levelsText ? `${label}: ${levelsText}` : label;

  return (
    <svg
      role="img"
      aria-label={label}
      viewBox={`0 0 ${ROW_CHART_W} ${ROW_CHART_H}`}
      width="100%"
      style={{ display: 'block' }}
      data-testid="row-chart"
    >
      <title>{title}</title>
      <g aria-hidden="true" data-testid="row-chart-price-axis">
        <line x1={PAD_L} x2={PAD_L} y1={PAD_TOP} y2={bottom} stroke={AXIS} />
        {priceTicks.map((v) => (
          <g key={v}>
            <line x1={PAD_L - 3} x2={right} y1={y(v)} y2={y(v)} stroke="#e9ecef" strokeWidth={0.5} />
            <text
              x={PAD_L - 5}
              y={y(v) + 3}
              fontSize={9}
              fill={AXIS}
              textAnchor="end"
              data-testid="row-chart-price-tick"
            >
              {formatPrice(locale, v, { decimals: tickDecimals })}
            </text>
          </g>
        ))}
      </g>
      <g aria-hidden="true" data-testid="row-chart-time-axis">
        <line x1={PAD_L} x2={right} y1={bottom} y2={bottom} stroke={AXIS} />
        {timeIdx.map((i, n) => (
          <text
            key={i}
            x={x(i)}
            y={ROW_CHART_H - 4}
            fontSize={9}
            fill={AXIS}
            textAnchor={timeIdx.length > 1 && n === 0 ? 'start' : n === timeIdx.length - 1 ? 'end' : 'middle'}
            data-testid="row-chart-time-tick"
          >
            {timeText(times[i]!)}
          </text>
        ))}
      </g>
      <g aria-hidden="true">
        {shown.map((l) => (
          <g key={l.key} data-testid={`row-chart-level-${l.key}`} data-value={l.value}>
            <line
              x1={PAD_L}
              x2={right}
              y1={y(l.value)}
              y2={y(l.value)}
              stroke={l.color}
              strokeDasharray="4 3"
            />
            <text x={right + 3} y={y(l.value) + 3} fontSize={9} fill={l.color}>
              {l.label} {formatPrice(locale, l.value)}
            </text>
          </g>
        ))}
        {closes.length > 1 ? (
          <path d={path} fill="none" stroke="#495057" strokeWidth={1.5} />
        ) : (
          <circle cx={x(0)} cy={y(closes[0]!)} r={2} fill="#495057" />
        )}
      </g>
    </svg>
  );
}
