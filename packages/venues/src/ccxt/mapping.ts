// ccxt's unified structures (markets, orders, positions, balances, tickers, books, candles) read into
// ours. Pure functions: no ccxt instance, no network. Per-exchange readings live in ../exchanges/.
import { marketTypeOf } from '../derivatives';
import { toNumber } from '../exchanges/numbers';
import { mapPosition, type MarginMode } from '../exchanges/positions';
import { finestStep, precisionRule } from '../exchanges/precision';
import type { Balances, Candle, Market, Order, OrderBook, OrderStatus, Position, Ticker } from '../types';

/** The fields of a ccxt market we read. */
export interface CcxtMarket {
  symbol: string;
  base: string;
  quote: string;
  active?: boolean | null;
  spot?: boolean;
  swap?: boolean;
  linear?: boolean | null;
  inverse?: boolean | null;
  settle?: string | null;
  contractSize?: number | null;
  taker?: number | null;
  maker?: number | null;
  precision?: { amount?: number | null; price?: number | null };
  limits?: {
    amount?: { min?: number | null };
    cost?: { min?: number | null };
    leverage?: { max?: number | null };
  };
}

/** Numbers and numeric strings alike (Kraken's and Bybit's fees come as strings): exchanges/numbers.ts. */
export const num = toNumber;

/** A string or a number as a string; anything else as ''. */
export const str = (v: unknown): string =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';

/**
 * Precision of a ccxt market as its finest step, whatever the exchange's precision mode (significant
 * digits: the finest step they allow; the digits themselves are kept on the market, see toMarket).
 */
export function precisionStep(value: unknown, precisionMode: number): number {
  return finestStep(precisionRule(value, precisionMode, 'price'));
}

/** `ccxtId` selects the exchange's precision exceptions (exchanges/precision.ts). */
export function toMarket(m: CcxtMarket, precisionMode: number, ccxtId = ''): Market {
  const amountRule = precisionRule(m.precision?.amount, precisionMode, 'amount', ccxtId);
  const priceRule = precisionRule(m.precision?.price, precisionMode, 'price', ccxtId);
  const amountStep = finestStep(amountRule);
  const priceStep = finestStep(priceRule);
  const market: Market = {
    symbol: m.symbol,
    base: m.base,
    quote: m.quote,
    active: m.active !== false,
    amountStep,
    priceStep,
    ...(amountRule.kind === 'significant' ? { amountSignificantDigits: amountRule.digits } : {}),
    ...(priceRule.kind === 'significant' ? { priceSignificantDigits: priceRule.digits } : {}),
    minAmount: num(m.limits?.amount?.min) ?? 0,
    minCost: num(m.limits?.cost?.min) ?? 0,
    taker: num(m.taker) ?? 0.001,
    maker: num(m.maker) ?? 0.001,
  };
  if (m.swap === true) {
    // Swap amounts are contracts (ccxt's unit); margin and PnL are in `settle`.
    const maxLeverage = num(m.limits?.leverage?.max);
    Object.assign(market, {
      type: 'swap',
      linear: m.linear === true,
      inverse: m.inverse === true,
      settle: m.settle ?? m.quote,
      contractSize: num(m.contractSize) ?? 1,
      ...(maxLeverage !== null ? { maxLeverage } : {}),
    });
  }
  return market;
}

const STATUS: Record<string, OrderStatus> = {
  open: 'open',
  closed: 'closed',
  canceled: 'canceled',
  cancelled: 'canceled',
  rejected: 'rejected',
  expired: 'expired',
};

/** The fields of a ccxt order we read (ccxt's own type is wider and loosely typed). */
interface CcxtOrder {
  id?: unknown;
  clientOrderId?: unknown;
  symbol?: unknown;
  side?: unknown;
  type?: unknown;
  price?: unknown;
  amount?: unknown;
  filled?: unknown;
  remaining?: unknown;
  average?: unknown;
  cost?: unknown;
  status?: unknown;
  fee?: { cost?: unknown; currency?: unknown } | null;
  timestamp?: unknown;
  lastUpdateTimestamp?: unknown;
  lastTradeTimestamp?: unknown;
  reduceOnly?: unknown;
}

/** `feeCurrency`: the currency of a fee the reply gives without one (exchanges/calls.ts FEE_CURRENCY). */
export function toOrder(input: unknown, feeCurrency?: string): Order {
  const o = (input ?? {}) as CcxtOrder;
  const amount = num(o.amount) ?? 0;
  const filled = num(o.filled) ?? 0;
  const feeCost = num(o.fee?.cost);
  return {
    id: str(o.id),
    clientOrderId: str(o.clientOrderId) || null,
    symbol: str(o.symbol),
    side: o.side === 'sell' ? 'sell' : 'buy',
    type: o.type === 'market' ? 'market' : 'limit',
    price: num(o.price),
    amount,
    filled,
    remaining: num(o.remaining) ?? Math.max(0, amount - filled),
    // Nothing filled, no average (HitBTC's price_average of a resting order is its limit price).
    average: filled > 0 ? num(o.average) : null,
    cost: num(o.cost) ?? 0,
    status: STATUS[str(o.status)] ?? 'open',
    fee: feeCost === null ? null : { cost: feeCost, currency: str(o.fee?.currency) || feeCurrency || '' },
    timestamp: num(o.timestamp) ?? Date.now(),
    lastUpdateTimestamp: num(o.lastUpdateTimestamp) ?? num(o.lastTradeTimestamp),
    ...(o.reduceOnly === true ? { reduceOnly: true } : {}),
  };
}

/**
 * A ccxt position in our shape, as the exchange reports it (exchanges/positions.ts: margin mode,
 * collateral, contract size, base amount); `settle` from the market; funding paid is not reported: 0.
 */
export function toPosition(
  input: unknown,
  settle: string,
  ccxtId = '',
  market?: Market,
  accountMode: MarginMode | null = null,
): Position {
  const type = marketTypeOf(str((input as { symbol?: unknown } | null)?.symbol));
  return mapPosition(ccxtId, input, { ...market, settle }, type === 'Spot' ? 'Margin' : type, accountMode);
}

/** A ccxt ticker; `last` falls back to `close`, then 0. */
export function toTicker(
  symbol: string,
  t: {
    last?: unknown;
    close?: unknown;
    bid?: unknown;
    ask?: unknown;
    percentage?: unknown;
    timestamp?: unknown;
  },
): Ticker {
  const last = num(t.last) ?? num(t.close) ?? 0;
  return {
    symbol,
    last,
    bid: num(t.bid),
    ask: num(t.ask),
    percentage: num(t.percentage),
    timestamp: num(t.timestamp) ?? Date.now(),
  };
}

/** A ccxt order book cut to `limit` levels a side, [price, amount] as numbers. */
export function toOrderBook(
  symbol: string,
  b: { bids: unknown[][]; asks: unknown[][]; timestamp?: unknown },
  limit: number,
): OrderBook {
  const lv = (x: unknown[][]): [number, number][] =>
    x.slice(0, limit).map((l) => [Number(l[0]), Number(l[1])] as [number, number]);
  return { symbol, bids: lv(b.bids), asks: lv(b.asks), timestamp: num(b.timestamp) ?? Date.now() };
}

/** ccxt OHLCV rows ([ms, open, high, low, close, volume]) as numbers. */
export function toCandles(rows: unknown[][]): Candle[] {
  return rows.map((r) => r.map((v) => Number(v)) as Candle);
}

/** A ccxt balance: per coin free, used and total (total = free + used where the exchange omits it). */
export function toBalances(input: unknown): Balances {
  const b = input as { free?: unknown; used?: unknown; total?: unknown };
  const out: Balances = {};
  const free = (b.free ?? {}) as Record<string, number | undefined>;
  const used = (b.used ?? {}) as Record<string, number | undefined>;
  const total = (b.total ?? {}) as Record<string, number | undefined>;
  for (const coin of Object.keys(total)) {
    const f = num(free[coin]) ?? 0;
    const u = num(used[coin]) ?? 0;
    out[coin] = { free: f, used: u, total: num(total[coin]) ?? f + u };
  }
  return out;
}
