import { currentLocale, FIXED, formatFixed } from '../../../shared/ui/numbers';

/**
 * Spec part 2 §9: 8 decimals in the rows, 2 in the totals; green at or above zero, red below. In the
 * house style (shared/ui/numbers): the user's separators, i18next's language unless one is given.
 */
export const fix8 = (n: number, locale = currentLocale()) => formatFixed(locale, n, FIXED.history);
export const fix2 = (n: number, locale = currentLocale()) => formatFixed(locale, n, FIXED.total);
export const signColor = (n: number) => (n >= 0 ? 'green' : 'red');
