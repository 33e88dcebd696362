/**
 * The house style for numbers (issue 40 point 2). Usage:
 *   import { FIXED, useNumbers } from '../../../shared/ui/numbers';  // bound to the current language
 *   const num = useNumbers();
 *   num.price(95909.587, { tick: 0.01 })   → "95,909.59"  (es "95.909,59"); { decimals: 4 } works too
 *   num.qty(0.123456789, { step: 0.001 })  → "0.123"      (no step: the spec's 6 decimals)
 *   num.money(1234.5, 'USDT')              → "1,234.50 USDT"   (2 decimals, the user's separators)
 *   num.percent(3.456, { signed: true })   → "+3.46%"     (es "+3,46 %")
 *   num.compact(3_400_000)                 → "3.4M"       (es "3,4 M")
 *   num.fixed(12.5, FIXED.walletBalance)   → "12.5000"    (where the spec fixes the decimals)
 * Outside React, the pure forms take the locale first: formatMoney('es', 1234.5) → "1.234,50";
 * `currentLocale()` reads i18next's language. Missing or non-finite numbers show NONE ("—").
 * Never feed these strings back into inputs or Number(): they carry the locale's separators.
 */
import i18n from 'i18next';
import { useTranslation } from 'react-i18next';

export const NONE = '—';

/** The decimals the spec fixes (part 1 §9 "Display decimals", part 2 "Number display"). */
export const FIXED = {
  /** Wallet rows (part 1 §2 Wallet: "balance to 4 decimals"). */
  walletBalance: 4,
  /** Order panel quantity. */
  quantity: 6,
  /** Order panel value, totals. */
  value: 2,
  /** Ticker prices: at most 4. */
  tickerPriceMax: 4,
  /** 24-hour change, percentages. */
  change: 2,
  /** Global history amounts. */
  history: 8,
  /** Totals (global history, summaries). */
  total: 2,
  /** A DCA bot's entry price. */
  entryPrice: 4,
} as const;

type Num = number | null | undefined;
const finite = (n: Num): n is number => typeof n === 'number' && Number.isFinite(n);

/** Only the app's two languages; anything else ('en-US', 'cimode', '') formats as English. */
export function numberLocale(lng: string | undefined): 'en' | 'es' {
  return lng?.toLowerCase().startsWith('es') ? 'es' : 'en';
}

/** i18next's current language as a number locale. */
export const currentLocale = (): 'en' | 'es' => numberLocale(i18n.language);

const cache = new Map<string, Intl.NumberFormat>();
/** Formatters are costly to build and tables format thousands of cells: one per locale and options. */
function nf(locale: string, opts: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${locale}|${JSON.stringify(opts)}`;
  let f = cache.get(key);
  if (!f) {
    // 'always': Spanish otherwise leaves 4-digit numbers ungrouped ("1234,56" beside "12.345,67").
    f = new Intl.NumberFormat(numberLocale(locale), { useGrouping: 'always', ...opts });
    cache.set(key, f);
  }
  return f;
}

const clampDigits = (d: number) => Math.max(0, Math.min(20, Math.floor(d)));

/** Decimals of a step as written: 0.001 → 3, 1e-8 → 8, 0.5 → 1, 10 → 0. */
export function stepDecimals(step: number): number {
  if (!(step > 0) || !Number.isFinite(step)) return 0;
  const s = step.toString();
  const exp = /e-(\d+)$/.exec(s);
  if (exp) {
    const mantissa = s.split('e')[0] ?? '';
    return Number(exp[1]) + (mantissa.split('.')[1]?.length ?? 0);
  }
  return s.split('.')[1]?.length ?? 0;
}

/** The nearest multiple of `step`, without the float tail (0.1 + 0.2). */
function toStep(n: number, step: number): number {
  if (!(step > 0) || !Number.isFinite(step)) return n;
  return Number((Math.round(n / step) * step).toFixed(clampDigits(stepDecimals(step))));
}

interface SignOpt {
  /** '+' before positive numbers (profits, changes). */
  signed?: boolean;
}
const sign = (o?: SignOpt): Intl.NumberFormatOptions => (o?.signed ? { signDisplay: 'exceptZero' } : {});

/** Exactly `decimals` decimals: for the places the spec fixes them (FIXED). */
export function formatFixed(locale: string, n: Num, decimals: number, o?: SignOpt): string {
  if (!finite(n)) return NONE;
  const d = clampDigits(decimals);
  return nf(locale, { minimumFractionDigits: d, maximumFractionDigits: d, ...sign(o) }).format(n);
}

/** Up to `decimals` decimals, trailing zeros dropped ("10,000" rather than "10000.0000"). */
export function formatUpTo(locale: string, n: Num, decimals: number, o?: SignOpt): string {
  if (!finite(n)) return NONE;
  return nf(locale, { maximumFractionDigits: clampDigits(decimals), ...sign(o) }).format(n);
}

export interface PriceOpt extends SignOpt {
  /** The market's tick size (price step): rounds to it and shows its decimals. */
  tick?: number;
  /** The market's price decimals, when only those are known. */
  decimals?: number;
}

/** Decimals for a price of unknown tick: 2 from 100, 4 from 1, 8 significant-ish below. */
function autoPriceDecimals(n: number): number {
  const a = Math.abs(n);
  if (a >= 100) return 2;
  if (a >= 1) return 4;
  if (a === 0) return 2;
  // 0.000012345 → 8: keep about 4 significant digits of a small price.
  return clampDigits(Math.min(12, Math.max(6, 3 - Math.floor(Math.log10(a)))));
}

/** A price to the market's tick (or decimals); without either, by its size. */
export function formatPrice(locale: string, n: Num, o: PriceOpt = {}): string {
  if (!finite(n)) return NONE;
  if (o.tick !== undefined && o.tick > 0) {
    return formatFixed(locale, toStep(n, o.tick), stepDecimals(o.tick), o);
  }
  if (o.decimals !== undefined) return formatFixed(locale, n, o.decimals, o);
  return formatFixed(locale, n, autoPriceDecimals(n), o);
}

export interface QtyOpt extends SignOpt {
  /** The market's amount step: rounds to it and shows its decimals. */
  step?: number;
  /** Decimals when the step is unknown (default the spec's quantity 6). */
  decimals?: number;
}

/** A quantity to the market's step; without one, the spec's 6 decimals. */
export function formatQty(locale: string, n: Num, o: QtyOpt = {}): string {
  if (!finite(n)) return NONE;
  if (o.step !== undefined && o.step > 0) {
    return formatFixed(locale, toStep(n, o.step), stepDecimals(o.step), o);
  }
  return formatFixed(locale, n, o.decimals ?? FIXED.quantity, o);
}

/** Money: 2 decimals, the locale's separators, the unit after it when given ("1,234.50 USDT"). */
export function formatMoney(locale: string, n: Num, unit?: string, o?: SignOpt): string {
  if (!finite(n)) return NONE;
  const text = formatFixed(locale, n, FIXED.value, o);
  return unit ? `${text} ${unit}` : text;
}

/** A percentage given in percent units (3.456 → "3.46%", es "3,46 %"). */
export function formatPercent(locale: string, n: Num, o: SignOpt & { decimals?: number } = {}): string {
  if (!finite(n)) return NONE;
  const d = clampDigits(o.decimals ?? FIXED.change);
  return nf(locale, {
    style: 'percent',
    minimumFractionDigits: d,
    maximumFractionDigits: d,
    ...sign(o),
  }).format(n / 100);
}

/** Large numbers shortened: 1.2K / 3.4M (es "1,2 mil" / "3,4 M"); small ones as they are. */
export function formatCompact(locale: string, n: Num, o?: SignOpt): string {
  if (!finite(n)) return NONE;
  return nf(locale, { notation: 'compact', maximumFractionDigits: 1, ...sign(o) }).format(n);
}

/** The pure forms bound to one locale. */
export function numbersFor(locale: string) {
  return {
    locale: numberLocale(locale),
    fixed: (n: Num, decimals: number, o?: SignOpt) => formatFixed(locale, n, decimals, o),
    upTo: (n: Num, decimals: number, o?: SignOpt) => formatUpTo(locale, n, decimals, o),
    price: (n: Num, o?: PriceOpt) => formatPrice(locale, n, o),
    qty: (n: Num, o?: QtyOpt) => formatQty(locale, n, o),
    money: (n: Num, unit?: string, o?: SignOpt) => formatMoney(locale, n, unit, o),
    percent: (n: Num, o?: SignOpt & { decimals?: number }) => formatPercent(locale, n, o),
    compact: (n: Num, o?: SignOpt) => formatCompact(locale, n, o),
  };
}
export type Numbers = ReturnType<typeof numbersFor>;

const bound = new Map<string, Numbers>();
/** The formatters in the current language; re-renders when the language changes. */
export function useNumbers(): Numbers {
  const { i18n: inst } = useTranslation();
  const locale = numberLocale(inst.language);
  let b = bound.get(locale);
  if (!b) {
    b = numbersFor(locale);
    bound.set(locale, b);
  }
  return b;
}
