import { SPOT, SPOT_BASES } from '@bytx/contract';
import { STORAGE } from '../api/client';
import type { OrderTypeName } from './orderRules';

/**
 * The spot screen's local storage keys, named exactly as spec part 1 §3 names them: `lastPair`
 * ({base, quote}), `orderType` ('Limit' | 'Market'), `tpSlValues` ({tp, sl}); plus ours,
 * `tradeExchange` (the exchange last picked in the screen's selector).
 */
export const TRADE_STORAGE = {
  lastPair: STORAGE.lastPair,
  orderType: STORAGE.orderType,
  tpSlValues: STORAGE.tpSlValues,
  tradeExchange: 'tradeExchange',
} as const;

export type Quote = (typeof SPOT.quotes)[number];
export interface Pair {
  base: string;
  quote: Quote;
}

const read = (key: string) => {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
};
const write = (key: string, value: string) => {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Private mode or a full storage: the screen keeps working without remembering.
  }
};
const readJson = (key: string): unknown => {
  const raw = read(key);
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
};

export const isQuote = (v: unknown): v is Quote => (SPOT.quotes as readonly unknown[]).includes(v);
export const isBase = (v: unknown): v is string => (SPOT_BASES as readonly unknown[]).includes(v);

/** The remembered pair; BTC/USDT (the spec's default) when none or not one of ours. */
export function readLastPair(): Pair {
  const v = readJson(TRADE_STORAGE.lastPair) as { base?: unknown; quote?: unknown } | null;
  if (v && typeof v === 'object' && isBase(v.base) && isQuote(v.quote))
    return { base: v.base, quote: v.quote };
  return { base: SPOT.defaultPair.base, quote: SPOT.defaultPair.quote };
}
export const saveLastPair = (p: Pair) =>
  write(TRADE_STORAGE.lastPair, JSON.stringify({ base: p.base, quote: p.quote }));

/** 'Limit' unless 'Market' was remembered. */
export function readOrderType(): OrderTypeName {
  const v = readJson(TRADE_STORAGE.orderType);
  return v === 'Market' ? 'Market' : 'Limit';
}
export const saveOrderType = (t: OrderTypeName) => write(TRADE_STORAGE.orderType, t);

export function readTpSl(): { tp: string; sl: string } {
  const v = readJson(TRADE_STORAGE.tpSlValues) as { tp?: unknown; sl?: unknown } | null;
  const s = (x: unknown) => (typeof x === 'string' ? x : typeof x === 'number' ? String(x) : '');
  return v && typeof v === 'object' ? { tp: s(v.tp), sl: s(v.sl) } : { tp: '', sl: '' };
}
export const saveTpSl = (v: { tp: string; sl: string }) =>
  write(TRADE_STORAGE.tpSlValues, JSON.stringify({ tp: v.tp, sl: v.sl }));

export const readTradeExchange = () => read(TRADE_STORAGE.tradeExchange) ?? '';
export const saveTradeExchange = (exchange: string) => write(TRADE_STORAGE.tradeExchange, exchange);

/** The order call's symbol: 'BTC/USDT' on spot, the linear perpetual 'BTC/USDT:USDT' on futures. */
export const venueSymbol = (p: Pair, market: 'spot' | 'swap') =>
  market === 'swap' ? `${p.base}/${p.quote}:${p.quote}` : `${p.base}/${p.quote}`;
