import { describe, expect, it } from 'vitest';
import { DASH, formatChange, formatPrice, parseTickerResponse } from './tickerFormat';

describe('ticker formatting', () => {
  it('shows a price with at most 4 decimals', () => {
    expect(formatPrice(67123.456789)).toBe('$67,123.4568');
    expect(formatPrice(0.123456)).toBe('$0.1235');
    expect(formatPrice(2.5)).toBe('$2.5');
    expect(formatPrice(100)).toBe('$100');
  });

  it('shows a dash for missing or non-numeric prices', () => {
    expect(formatPrice(undefined)).toBe(DASH);
    expect(formatPrice(null)).toBe(DASH);
    expect(formatPrice(Number.NaN)).toBe(DASH);
  });

  it('shows the 24 h change with 2 decimals, negative down, otherwise up', () => {
    expect(formatChange(-1.234)).toEqual({ text: '▼ -1.23%', direction: 'down' });
    expect(formatChange(2.5)).toEqual({ text: '▲ 2.50%', direction: 'up' });
    expect(formatChange(0)).toEqual({ text: '▲ 0.00%', direction: 'up' });
    expect(formatChange(undefined)).toEqual({ text: DASH, direction: null });
  });

  it('keeps only well-formed entries of a response and refuses a non-map', () => {
    expect(parseTickerResponse({ bitcoin: { usd: 1, usd_24h_change: 'x' }, bad: 3 })).toEqual({
      bitcoin: { usd: 1, usd_24h_change: null },
    });
    expect(() => parseTickerResponse([1, 2])).toThrow();
    expect(() => parseTickerResponse(null)).toThrow();
  });
});
