/**
 * The figures a bot row and a bot page's summary show: profit as a percentage of what the bot commits,
 * how long it has run, and the realised profit of stopped bots by the day they stopped (issue 40 pt 3).
 * Pure functions, so the rows stay cheap to render and the tests can check the arithmetic.
 */
import { formatMoney, formatPercent, formatUpTo, numberLocale } from '../ui/numbers';

/** Profit as a percentage of `capital`; null when there is no capital to measure it against. */
export function profitPct(pnl: number, capital: number): number | null {
  if (!Number.isFinite(pnl) || !Number.isFinite(capital) || capital <= 0) return null;
  return (pnl / capital) * 100;
}

/**
 * The most a DCA bot (Grid Bot DCA or classic) commits: its first buy and one buy per OS, each of the
 * row's amount (both strategies buy `amount` USDT per order).
 */
export const dcaCapital = (amount: number, os: number) =>
  Number.isFinite(amount) && Number.isFinite(os) ? amount * (Math.max(0, os) + 1) : 0;

/** Whole days, hours and minutes from `fromIso` to `now` (ms); null for a missing or future start. */
export function runtimeParts(
  fromIso: string | null | undefined,
  now: number,
): { d: number; h: number; m: number } | null {
  if (!fromIso) return null;
  const from = Date.parse(fromIso);
  if (!Number.isFinite(from) || from > now + 60_000) return null;
  const mins = Math.max(0, Math.floor((now - from) / 60_000));
  return { d: Math.floor(mins / 1440), h: Math.floor((mins % 1440) / 60), m: mins % 60 };
}

/** The catalog key and values of a runtime: '3 d 4 h', '4 h 5 min', '5 min'. */
export function runtimeKey(p: { d: number; h: number; m: number }): {
  key: 'bots.row.runtimeDays' | 'bots.row.runtimeHours' | 'bots.row.runtimeMinutes';
  values: { d: number; h: number; m: number };
} {
  if (p.d > 0) return { key: 'bots.row.runtimeDays', values: p };
  if (p.h > 0) return { key: 'bots.row.runtimeHours', values: p };
  return { key: 'bots.row.runtimeMinutes', values: p };
}

/** One closed result: when it was realised (a bot's stop, a trip's time) and its profit. */
export interface Realised {
  at: string | null | undefined;
  pnl: number;
}

export interface RealisedSummary {
  today: number;
  week: number;
  all: number;
}

/**
 * The realised profit of `items` since local midnight, over the last 7 days (today and the 6 days
 * before it, from their midnight) and in all. An item without a time counts in "all" only.
 */
export function realisedSummary(items: readonly Realised[], now: number): RealisedSummary {
  const midnight = new Date(now);
  midnight.setHours(0, 0, 0, 0);
  const today = midnight.getTime();
  const weekStart = new Date(midnight);
  weekStart.setDate(weekStart.getDate() - 6);
  const week = weekStart.getTime();
  const sum = { today: 0, week: 0, all: 0 };
  for (const { at, pnl } of items) {
    if (!Number.isFinite(pnl)) continue;
    sum.all += pnl;
    const ts = at ? Date.parse(at) : Number.NaN;
    if (!Number.isFinite(ts)) continue;
    if (ts >= week) sum.week += pnl;
    if (ts >= today) sum.today += pnl;
  }
  return sum;
}

/** Money: 2 decimals with the locale's separators (the house style, shared/ui/numbers.ts). */
export const fmtMoney = (n: number, locale: string) => formatMoney(numberLocale(locale), n);

/** A signed percentage to 2 decimals ('+2.46%', es '+2,46 %'). */
export const fmtPct = (n: number, locale: string) => formatPercent(numberLocale(locale), n, { signed: true });

/**
 * A figure of unknown kind (a price, a quantity, a fee: an event's params carry no market) with the
 * locale's separators: up to 2 decimals from 1,000, 4 from 1, 8 below; trailing zeros dropped.
 */
export function fmtFigure(n: number, locale: string): string {
  const abs = Math.abs(n);
  return formatUpTo(numberLocale(locale), n, abs >= 1000 ? 2 : abs >= 1 ? 4 : 8);
}
