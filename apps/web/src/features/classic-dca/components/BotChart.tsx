import { Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { formatPrice, numberLocale } from '../../../shared/ui/numbers';
import { dashboardApi } from '../api/dashboard';

const W = 420;
const H = 150;
/** Room on the left for the price axis' labels ("98,010.00" at font size 9). */
const PAD_L = 52;
/** Room on the right for the level labels ("Next OS 98,010.00" fits at font size 9). */
const PAD_R = 96;
const PAD_TOP = 8;
/** Room at the bottom for the time axis' labels. */
const PAD_BOTTOM = 20;
const AXIS = '#868e96';
/** The price axis' ticks (besides the levels' own labels on the right). */
const PRICE_TICKS = 4;
/** The time axis' ticks: first, middle and last close. */
const TIME_TICKS = 3;

interface Level {
  key: 'dca' | 'tp' | 'next';
  value: number;
  color: string;
}

/**
 * A bot's price line (last ~60 one-minute closes) with its average entry, take-profit price and next
 * safety level as labelled horizontal lines, a price axis on the left and a time axis under it (issue
 * 40 pt 3). Inline SVG (no chart library on this page), described for screen readers by its label.
 */
export function BotChart({
  exchange,
  symbol,
  dca,
  tpPrice,
  nextSafety,
  price,
  paused,
}: {
  exchange: string;
  symbol: string;
  dca: number | null;
  tpPrice: number | null;
  nextSafety: number | null;
  price: number | null;
  paused: boolean;
}) {
  const { t, i18n } = useTranslation();
  // Prices in the house style (shared/ui/numbers.ts): by their size, with the user's separators.
  const fmtPrice = (n: number) => formatPrice(numberLocale(i18n.language), n);
  const q = useQuery({
    queryKey: ['dashboard', 'candles', exchange, symbol],
    queryFn: () => dashboardApi.candles(exchange, symbol),
    refetchInterval: paused ? false : 10_000,
    retry: false,
  });
  const candles = (q.data?.candles ?? []).filter((c) => Number.isFinite(c[4]) && Number.isFinite(c[0]));
  const closes = candles.map((c) => c[4]);
  const times = candles.map((c) => c[0]);
  if (closes.length === 0 && price !== null) {
    closes.push(price);
    times.push(Date.now());
  }
  const last = price ?? closes[closes.length - 1] ?? null;

  const levels: Level[] = [];
  if (dca !== null && Number.isFinite(dca)) levels.push({ key: 'dca', value: dca, color: '#1c7ed6' });
  if (tpPrice !== null && Number.isFinite(tpPrice))
    levels.push({ key: 'tp', value: tpPrice, color: '#2f9e44' });
  if (nextSafety !== null && Number.isFinite(nextSafety))
    levels.push({ key: 'next', value: nextSafety, color: '#f08c00' });

  const none = t('classic-dca.chart.none');
  const label = t('classic-dca.chart.label', {
    symbol,
    exchange,
    n: closes.length,
    low: closes.length ? fmtPrice(Math.min(...closes)) : none,
    high: closes.length ? fmtPrice(Math.max(...closes)) : none,
    last: last === null ? none : fmtPrice(last),
    dca: dca === null ? none : fmtPrice(dca),
    tp: tpPrice === null ? none : fmtPrice(tpPrice),
    next: nextSafety === null ? none : fmtPrice(nextSafety),
  });

  if (closes.length === 0 && levels.length === 0) {
    return (
      <Text size="xs" c="dimmed" role="img" aria-label={label} data-testid="dash-chart">
        {t('classic-dca.errors.chart')}
      </Text>
    );
  }

  const all = [...closes, ...levels.map((l) => l.value)];
  let lo = Math.min(...all);
  let hi = Math.max(...all);
  if (hi - lo < 1e-12) {
    const pad = Math.abs(hi) * 0.001 || 1;
    lo -= pad;
    hi += pad;
  }
  const plotH = H - PAD_TOP - PAD_BOTTOM;
  const y = (v: number) => PAD_TOP + ((hi - v) / (hi - lo)) * plotH;
  const plotW = W - PAD_L - PAD_R;
  const x = (i: number) => PAD_L + (closes.length <= 1 ? plotW : (i / (closes.length - 1)) * plotW);
  const path = closes.map((c, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(c).toFixed(1)}`).join(' ');
  // The axes: prices evenly spread from the lowest to the highest shown, times of the first, middle
  // and last close (HH:MM in the user's locale).
  // One number of decimals for every tick, by the highest price shown.
  const tickDecimals = Math.abs(hi) >= 100 ? 2 : Math.abs(hi) >= 1 ? 4 : 8;
  const priceTicks = Array.from({ length: PRICE_TICKS }, (_, i) => lo + ((hi - lo) * i) / (PRICE_TICKS - 1));
  const timeIdx =
    closes.length <= 1
      ? [0]
      : [
          ...new Set(
            Array.from({ length: TIME_TICKS }, (_, i) =>
              Math.round(((closes.length - 1) * i) / (TIME_TICKS - 1)),
            ),
          ),
        ];
  const locale = i18n.language || 'en';
  const timeText = (ms: number) =>
    new Date(ms).toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' });

  return (
    <svg
      role="img"
      aria-label={label}
      viewBox={`0 0 ${W} ${H}`}
      width="100%"
      style={{ maxWidth: W, display: 'block' }}
      data-testid="dash-chart"
    >
      <title>{label}</title>
      <rect x={0} y={0} width={W} height={H} fill="none" stroke="#dee2e6" />
      <g data-testid="dash-chart-price-axis" aria-hidden="true">
        <line x1={PAD_L} x2={PAD_L} y1={PAD_TOP} y2={PAD_TOP + plotH} stroke={AXIS} strokeWidth={1} />
        {priceTicks.map((v) => (
          <g key={v}>
            <line x1={PAD_L - 3} x2={PAD_L} y1={y(v)} y2={y(v)} stroke={AXIS} />
            <line x1={PAD_L} x2={W - PAD_R} y1={y(v)} y2={y(v)} stroke="#e9ecef" strokeWidth={0.5} />
            <text
              x={PAD_L - 5}
              y={y(v) + 3}
              fontSize={9}
              fill={AXIS}
              textAnchor="end"
              data-testid="dash-chart-price-tick"
            >
              {formatPrice(numberLocale(i18n.language), v, { decimals: tickDecimals })}
            </text>
          </g>
        ))}
      </g>
      <g data-testid="dash-chart-time-axis" aria-hidden="true">
        <line
          x1={PAD_L}
          x2={W - PAD_R}
          y1={PAD_TOP + plotH}
          y2={PAD_TOP + plotH}
          stroke={AXIS}
          strokeWidth={1}
        />
        {timeIdx.map((i) => (
          <g key={i}>
            <line x1={x(i)} x2={x(i)} y1={PAD_TOP + plotH} y2={PAD_TOP + plotH + 3} stroke={AXIS} />
            <text
              x={x(i)}
              y={H - 5}
              fontSize={9}
              fill={AXIS}
              textAnchor={
                timeIdx.length > 1 && i === 0 ? 'start' : i === closes.length - 1 ? 'end' : 'middle'
              }
              data-testid="dash-chart-time-tick"
            >
              {times[i] === undefined ? '' : timeText(times[i])}
            </text>
          </g>
        ))}
      </g>
      {levels.map((l) => (
        <g key={l.key} data-testid={`dash-chart-${l.key}`}>
          <line
            x1={PAD_L}
            x2={W - PAD_R}
            y1={y(l.value)}
            y2={y(l.value)}
            stroke={l.color}
            strokeDasharray="4 3"
            strokeWidth={1}
          />
          <text x={W - PAD_R + 3} y={y(l.value) + 3} fontSize={9} fill={l.color}>
            {t(`classic-dca.chart.${l.key}`)} {fmtPrice(l.value)}
          </text>
        </g>
      ))}
      {closes.length > 1 && <path d={path} fill="none" stroke="#495057" strokeWidth={1.5} />}
      {closes.length === 1 && <circle cx={x(0)} cy={y(closes[0]!)} r={2} fill="#495057" />}
    </svg>
  );
}
