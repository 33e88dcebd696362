/**
 * The house style for numbers in both languages. The Spanish cases fail when a formatter loses
 * `useGrouping: 'always'` (es leaves "1234,56" ungrouped by default) or the locale is not passed.
 */
import i18n from 'i18next';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FIXED,
  NONE,
  currentLocale,
  formatCompact,
  formatFixed,
  formatMoney,
  formatPercent,
  formatPrice,
  formatQty,
  formatUpTo,
  numberLocale,
  numbersFor,
  stepDecimals,
} from './numbers';

// Intl puts a no-break space before "%" and in "1,2 mil"; compare with plain spaces.
const sp = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

describe('numbers: money', () => {
  it('2 decimals with each locale separators', () => {
    expect(formatMoney('en', 1234.56)).toBe('1,234.56');
    expect(formatMoney('es', 1234.56)).toBe('1.234,56');
    expect(formatMoney('en', 4.375, 'USD')).toBe('4.38 USD');
    expect(formatMoney('es', 4.375, 'USD')).toBe('4,38 USD');
    expect(formatMoney('es', 50000, 'BYTX')).toBe('50.000,00 BYTX');
    expect(formatMoney('en', -0.5, undefined, { signed: true })).toBe('-0.50');
    expect(formatMoney('en', 12, undefined, { signed: true })).toBe('+12.00');
  });
  it('a missing number is a dash, never 0', () => {
    expect(formatMoney('en', null)).toBe(NONE);
    expect(formatMoney('es', Number.NaN)).toBe(NONE);
    expect(formatPrice('en', undefined)).toBe(NONE);
    expect(formatQty('en', Infinity)).toBe(NONE);
    expect(formatPercent('en', null)).toBe(NONE);
    expect(formatCompact('en', null)).toBe(NONE);
  });
});

describe('numbers: prices and quantities', () => {
  it('rounds a price to the market tick and shows its decimals', () => {
    expect(formatPrice('en', 95909.587, { tick: 0.01 })).toBe('95,909.59');
    expect(formatPrice('es', 95909.587, { tick: 0.01 })).toBe('95.909,59');
    expect(formatPrice('en', 1.26, { tick: 0.5 })).toBe('1.5');
    expect(formatPrice('en', 0.000012345, { tick: 1e-8 })).toBe('0.00001235');
    expect(formatPrice('en', 95909.59, { decimals: 4 })).toBe('95,909.5900');
  });
  it('without a tick, decimals by size (never 8 on a BTC price)', () => {
    expect(formatPrice('en', 95909.59)).toBe('95,909.59');
    expect(formatPrice('es', 2.5)).toBe('2,5000');
    expect(formatPrice('en', 0.00012345)).toBe('0.0001235');
  });
  it('quantities to the market step, else the spec 6 decimals', () => {
    expect(formatQty('en', 0.123456789, { step: 0.001 })).toBe('0.123');
    expect(formatQty('es', 1234.5, { step: 0.1 })).toBe('1.234,5');
    expect(formatQty('en', 1.5)).toBe('1.500000');
    expect(formatQty('es', 10000, { decimals: 0 })).toBe('10.000');
  });
  it('step decimals as written', () => {
    expect(stepDecimals(0.001)).toBe(3);
    expect(stepDecimals(1e-8)).toBe(8);
    expect(stepDecimals(0.5)).toBe(1);
    expect(stepDecimals(10)).toBe(0);
    expect(stepDecimals(0)).toBe(0);
  });
});

describe('numbers: fixed, percent, compact', () => {
  it('keeps the spec fixed decimals', () => {
    expect(formatFixed('en', 10000, FIXED.walletBalance)).toBe('10,000.0000');
    expect(formatFixed('es', 10000, FIXED.walletBalance)).toBe('10.000,0000');
    expect(formatFixed('en', 0.1, FIXED.history)).toBe('0.10000000');
    expect(formatUpTo('en', 10000, 4)).toBe('10,000');
    expect(formatUpTo('es', 1.23456, 2)).toBe('1,23');
  });
  it('percentages to 2 decimals', () => {
    expect(formatPercent('en', 3.456)).toBe('3.46%');
    expect(sp(formatPercent('es', 3.456))).toBe('3,46 %');
    expect(formatPercent('en', 3.456, { signed: true })).toBe('+3.46%');
    expect(formatPercent('en', -1.2, { signed: true })).toBe('-1.20%');
  });
  it('compact large numbers in each language', () => {
    expect(formatCompact('en', 1234)).toBe('1.2K');
    expect(formatCompact('en', 3_400_000)).toBe('3.4M');
    expect(sp(formatCompact('es', 1234))).toBe('1,2 mil');
    expect(sp(formatCompact('es', 3_400_000))).toBe('3,4 M');
    expect(formatCompact('en', 42)).toBe('42');
  });
});

describe('numbers: locale', () => {
  afterEach(async () => {
    await i18n.changeLanguage('en');
  });
  it('only en and es; anything else is English', () => {
    expect(numberLocale('es-AR')).toBe('es');
    expect(numberLocale('cimode')).toBe('en');
    expect(numberLocale(undefined)).toBe('en');
    expect(numbersFor('fr').money(1234.5)).toBe('1,234.50');
  });
  it('reads i18next current language', async () => {
    await i18n.changeLanguage('es');
    expect(currentLocale()).toBe('es');
    expect(numbersFor(currentLocale()).money(1234.56)).toBe('1.234,56');
    await i18n.changeLanguage('en');
    expect(currentLocale()).toBe('en');
  });
});
