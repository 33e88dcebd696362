import type { BacktestSummary } from './api';

/** `BTC/USDT` (or `BTC/USDT:USDT`) → { base: 'BTC', quote: 'USDT' }. */
export function pairParts(symbol: string): { base: string; quote: string } {
  const [base = '', quote = ''] = (symbol.split(':')[0] ?? '').split('/');
  return { base, quote };
}

const finite = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n);

/** Drops a minus sign from a figure that rounds to zero (`-0.00` → `0.00`). */
const unsignZero = (s: string) => (/^-0(\.0+)?$/.test(s) ? s.slice(1) : s);

/** A quote amount: 2 decimals, more below one cent so small fees do not read as 0.00. */
export function money(n: number | null | undefined): string {
  if (!finite(n)) return '—';
  const abs = Math.abs(n);
  if (abs > 0 && abs < 0.01) {
    // Three significant digits, at most 8 decimals, never in exponent notation.
    const d = Math.min(8, 2 - Math.floor(Math.log10(abs)));
    const s = unsignZero(n.toFixed(d).replace(/0+$/, '').replace(/\.$/, ''));
    return s === '0' ? '0.00' : s;
  }
  return unsignZero(n.toFixed(2));
}

/** A price: 2 decimals from 1000 up, 4 from 1, else up to 8. */
export function price(n: number | null | undefined): string {
  if (!finite(n)) return '—';
  const abs = Math.abs(n);
  const d = abs >= 1000 ? 2 : abs >= 1 ? 4 : 8;
  return String(Number(n.toFixed(d)));
}

/** A base quantity, up to 8 decimals without trailing zeros. */
export function qty(n: number | null | undefined): string {
  return finite(n) ? String(Number(n.toFixed(8))) : '—';
}

/** A percentage with 2 decimals. */
export function pct(n: number | null | undefined): string {
  return finite(n) ? `${unsignZero(n.toFixed(2))} %` : '—';
}

/** `+` in front of a positive figure. */
export const signed = (s: string, n: number | null | undefined) =>
  finite(n) && n > 0 && !/^0(\.0+)?( |$)/.test(s) ? `+${s}` : s;

/** A time in ms as `YYYY-MM-DD HH:mm` in the browser's time zone. */
export function fmtTime(ms: number | null | undefined): string {
  if (!finite(ms)) return '—';
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

export type FigureId =
  | 'net-pnl'
  | 'return'
  | 'max-drawdown'
  | 'fees'
  | 'closed-trades'
  | 'cycles'
  | 'capital-peak'
  | 'time-in-market'
  | 'open-position'
  | 'buy-hold';

/** One figure of the result's summary, as shown: its i18n label key, text and colour. */
export interface Figure {
  id: FigureId;
  label: string;
  value: string;
  color?: 'green' | 'red';
}

const tone = (n: number): Pick<Figure, 'color'> =>
  finite(n) && n !== 0 ? { color: n > 0 ? 'green' : 'red' } : {};

/**
 * The summary as the result screen shows it: net PnL and return, max drawdown (as a loss), fees,
 * closed trades and cycles (when the kind counts them), capital at peak, time in market, the open
 * position at the end, and buy-and-hold over the same period for comparison.
 */
export function summaryFigures(
  s: BacktestSummary,
  symbol: string,
  t: (key: string, opts?: Record<string, unknown>) => string,
): Figure[] {
  const { base, quote } = pairParts(symbol);
  const q = (n: number) => `${money(n)} ${quote}`.trim();
  const dd = Math.abs(s.maxDrawdownPct);
  const ddQuote = Math.abs(s.maxDrawdownQuote);
  const pos = s.openPosition;
  const figures: Figure[] = [
    {
      id: 'net-pnl',
      label: 'backtest.result.netPnl',
      value: signed(q(s.netPnl), s.netPnl),
      ...tone(s.netPnl),
    },
    {
      id: 'return',
      label: 'backtest.result.return',
      value: signed(pct(s.returnPct), s.returnPct),
      ...tone(s.returnPct),
    },
    {
      id: 'max-drawdown',
      label: 'backtest.result.maxDrawdown',
      value: dd > 0 ? `-${pct(dd)} (-${q(ddQuote)})` : `${pct(0)}`,
      ...(dd > 0 ? { color: 'red' as const } : {}),
    },
    { id: 'fees', label: 'backtest.result.fees', value: q(s.feesPaid) },
    { id: 'closed-trades', label: 'backtest.result.closedTrades', value: String(s.closedTrades) },
  ];
  if (finite(s.cycles))
    figures.push({ id: 'cycles', label: 'backtest.result.cycles', value: String(s.cycles) });
  figures.push(
    { id: 'capital-peak', label: 'backtest.result.capitalPeak', value: q(s.capitalPeak) },
    { id: 'time-in-market', label: 'backtest.result.timeInMarket', value: pct(s.timeInMarketPct) },
    {
      id: 'open-position',
      label: 'backtest.result.openPosition',
      value:
        pos && finite(pos.qty) && pos.qty !== 0
          ? t('backtest.result.openPositionValue', {
              qty: qty(pos.qty),
              base,
              avg: price(pos.avgEntry),
              value: q(pos.value),
            })
          : t('backtest.result.none'),
    },
    {
      id: 'buy-hold',
      label: 'backtest.result.buyHold',
      value: t('backtest.result.buyHoldValue', {
        pct: signed(pct(s.buyAndHoldPct), s.buyAndHoldPct),
        pnl: signed(q(s.buyAndHoldPnl), s.buyAndHoldPnl),
      }),
      ...tone(s.buyAndHoldPct),
    },
  );
  return figures;
}
