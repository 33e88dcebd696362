import { currentLocale, formatUpTo } from '../../../shared/ui/numbers';

/*
 * The pool's figures in the house style (shared/ui/numbers): the user's separators, i18next's
 * language unless a locale is given (the panels re-render on a language change).
 */

/** Token figures: up to `decimals` decimals, thousands separated. */
export const fmtTokens = (v: number | string | null | undefined, decimals = 4, locale = currentLocale()) => {
  const n = Number(v);
  if (v === null || v === undefined || !Number.isFinite(n)) return '-';
  return formatUpTo(locale, n, decimals);
};

/** A per-second rate: enough significant digits to see it move. */
export const fmtRate = (v: number | string | null | undefined, locale = currentLocale()) => {
  const n = Number(v);
  if (v === null || v === undefined || !Number.isFinite(n)) return '-';
  if (n === 0) return '0';
  return Math.abs(n) < 1 ? rateFormat(locale).format(n) : formatUpTo(locale, n, 6);
};

const rates = new Map<string, Intl.NumberFormat>();
/** Significant digits are this rate's own need (not in the house helpers): one cached formatter a locale. */
function rateFormat(locale: string): Intl.NumberFormat {
  let f = rates.get(locale);
  if (!f) {
    f = new Intl.NumberFormat(locale, { maximumSignificantDigits: 4, maximumFractionDigits: 18 });
    rates.set(locale, f);
  }
  return f;
}

export const fmtPercent = (v: number | string | null | undefined, locale = currentLocale()) => {
  const n = Number(v);
  return v === null || v === undefined || !Number.isFinite(n) ? '-' : `${formatUpTo(locale, n, 2)} %`;
};
