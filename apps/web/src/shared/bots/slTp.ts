import { LIMITS } from '@bytx/contract';
import type { SlTpField } from './hooks';

/** What is wrong with an SL or TP+ text: an i18n key under `bots.slTp` and its parameters; null: fine. */
export interface SlTpProblem {
  key: 'notPrice' | 'slAbove' | 'slBelow' | 'tpBelow' | 'tpAbove';
  params: { price?: string; max?: string };
}

/** A price as the row shows it: 2 decimals from 1 up, 8 significant digits below. */
export const fmtPrice = (p: number) =>
  p >= 1 ? p.toLocaleString('en-US', { maximumFractionDigits: 2 }) : String(Number(p.toPrecision(8)));

/**
 * The checks the server makes on SL and TP+ (modules/bots/bot-input.ts: a price > 0 and at most
 * LIMITS.maxPrice, or empty to clear; on the side of the current price where it can trigger — for a
 * LONG bot SL below and TP+ above, SHORT mirrored), made as the user types so a wrong value is said
 * at once beside the field instead of by a toast after the 30 s countdown. Without a current price
 * only the number is checked (the server checks the side again).
 */
export function slTpProblem(
  field: SlTpField,
  raw: string,
  price: number | null,
  direction: 'LONG' | 'SHORT' = 'LONG',
): SlTpProblem | null {
  const text = raw.trim();
  if (text === '') return null; // empty clears it
  const n = Number(text);
  if (!/^\d*\.?\d+$|^\d+\.$/.test(text) || !Number.isFinite(n) || n <= 0 || n > LIMITS.maxPrice) {
    return { key: 'notPrice', params: { max: LIMITS.maxPrice.toLocaleString('en-US') } };
  }
  if (price === null || !Number.isFinite(price) || price <= 0) return null;
  const long = direction === 'LONG';
  const p = { price: fmtPrice(price) };
  if (field === 'sl' && (long ? n >= price : n <= price))
    return { key: long ? 'slAbove' : 'slBelow', params: p };
  if (field === 'tpPlus' && (long ? n <= price : n >= price)) {
    return { key: long ? 'tpBelow' : 'tpAbove', params: p };
  }
  return null;
}

/** The quote currency of a pair ('ETH/USDT' → 'USDT', 'BTC/USDT:USDT' → 'USDT'). */
export const quoteOf = (symbol: string) => symbol.split('/')[1]?.split(':')[0] ?? '';
