import { z } from 'zod';
import { LIMITS } from './input';
import { userIdField } from './common';

/** Market data calls (spec part 1 §7 external price calls served by us, part 2 `GET /api/precio`). */

const exchangeField = z.string().trim().min(1, 'exchange is required').max(40);
const symbolField = z.string().trim().min(1, 'symbol is required').max(40);

export const precioQuery = z.object({
  symbol: symbolField,
  exchange: exchangeField,
  user: userIdField,
  user_id: userIdField,
});
export const precioResponse = z.object({ price: z.number() });
export type PrecioResponse = z.infer<typeof precioResponse>;

/** Optional CoinGecko-style `ids` filter (comma-separated asset ids). */
export const tickerQuery = z.object({ ids: z.string().max(2000).optional() });
export const tickerPrice = z.object({ usd: z.number(), usd_24h_change: z.number().nullable() });
/** Asset id (e.g. 'bitcoin') -> price in USD and 24 h change in percent. */
export const tickerResponse = z.record(z.string(), tickerPrice);
export type TickerResponse = z.infer<typeof tickerResponse>;

const level = z.tuple([z.number(), z.number()]);

export const orderBookQuery = z.object({
  exchange: exchangeField,
  symbol: symbolField,
  limit: z.coerce.number().int().min(1).max(10).default(10),
});
export const orderBookResponse = z.object({
  exchange: z.string(),
  symbol: z.string(),
  bids: z.array(level),
  asks: z.array(level),
  timestamp: z.number(),
});
export type OrderBookResponse = z.infer<typeof orderBookResponse>;

/** Our timeframes, plus the chart widget's names (1, 5, 15, 60, 240, D, W, M). */
export const CANDLE_TIMEFRAMES = ['1m', '5m', '15m', '1h', '4h', '1d', '1w', '1M'] as const;
export type CandleTimeframe = (typeof CANDLE_TIMEFRAMES)[number];
const TIMEFRAME_ALIASES: Record<string, CandleTimeframe> = {
  '1': '1m',
  '5': '5m',
  '15': '15m',
  '60': '1h',
  '240': '4h',
  D: '1d',
  '1D': '1d',
  W: '1w',
  '1W': '1w',
  M: '1M',
  '1Mth': '1M',
  '1H': '1h',
  '4H': '4h',
  '5M': '5m',
  '15M': '15m',
};
export const timeframeField = z
  .string()
  .trim()
  .transform((v, ctx) => {
    const tf = (CANDLE_TIMEFRAMES as readonly string[]).includes(v)
      ? (v as CandleTimeframe)
      : TIMEFRAME_ALIASES[v];
    if (!tf) {
      ctx.addIssue({ code: 'custom', message: `must be one of ${CANDLE_TIMEFRAMES.join(', ')}` });
      return z.NEVER;
    }
    return tf;
  });

export const candlesQuery = z.object({
  exchange: exchangeField,
  symbol: symbolField,
  timeframe: timeframeField.default('15m'),
  limit: z.coerce.number().int().min(1).max(1000).default(300),
});
/** [openTime ms, open, high, low, close, volume]. */
export const candle = z.tuple([z.number(), z.number(), z.number(), z.number(), z.number(), z.number()]);
export const candlesResponse = z.object({
  exchange: z.string(),
  symbol: z.string(),
  timeframe: z.enum(CANDLE_TIMEFRAMES),
  candles: z.array(candle),
});
export type CandlesResponse = z.infer<typeof candlesResponse>;

export const pairsQuery = z.object({ exchange: exchangeField });
export const pairsResponse = z.object({ exchange: z.string(), pairs: z.array(z.string()) });
export type PairsResponse = z.infer<typeof pairsResponse>;

export const marketTickerQuery = z.object({ exchange: exchangeField, symbol: symbolField });
export const marketTickerResponse = z.object({
  exchange: z.string(),
  symbol: z.string(),
  last: z.number(),
  bid: z.number().nullable(),
  ask: z.number().nullable(),
  percentage: z.number().nullable(),
  timestamp: z.number(),
});
export type MarketTickerResponse = z.infer<typeof marketTickerResponse>;

/** POST /api/dev/market/price (only with SIMULATOR_CONTROL=1). */
export const devPriceBody = z.object({
  exchange: exchangeField,
  symbol: symbolField,
  price: z.coerce
    .number({ message: 'price must be a number' })
    .finite('price must be a finite number')
    .positive('price must be a positive number')
    .max(LIMITS.maxPrice, `price must be at most ${LIMITS.maxPrice.toExponential()}`),
});
export const devPriceResponse = z.object({
  ok: z.literal(true),
  exchange: z.string(),
  symbol: z.string(),
  price: z.number(),
});

/** Simulator control: delist (listed false) or relist a pair (SIMULATOR_CONTROL=1 only). */
export const devDelistBody = z.object({
  exchange: exchangeField,
  symbol: symbolField,
  listed: z.boolean({ message: 'listed must be true or false' }),
});
export const devDelistResponse = z.object({
  ok: z.literal(true),
  exchange: z.string(),
  symbol: z.string(),
  listed: z.boolean(),
});
