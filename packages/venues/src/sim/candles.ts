// The simulated market's candles: timeframe arithmetic, the live candle of each series moved by
// every price, and the history generated backwards on a series' first use.
import { roundToStep } from '../precision';
import type { Candle, Timeframe } from '../types';
import { DAILY_VOL } from './config';
import { gaussian, hash32, mulberry32 } from './random';

/** One candle series of one pair, as `candles` returns it. */
export interface CandleSeriesSnapshot {
  exchange: string;
  symbol: string;
  timeframe: Timeframe;
  candles: Candle[];
}

const MINUTE = 60_000;
const TF_MS: Record<Exclude<Timeframe, '1M'>, number> = {
  '1m': MINUTE,
  '5m': 5 * MINUTE,
  '15m': 15 * MINUTE,
  '1h': 60 * MINUTE,
  '4h': 240 * MINUTE,
  '1d': 1440 * MINUTE,
  '1w': 7 * 1440 * MINUTE,
};

/** Open time of the candle holding ts (UTC; weeks start on Monday like Binance, months on the 1st). */
export function timeframeStart(tf: Timeframe, ts: number): number {
  if (tf === '1M') {
    const d = new Date(ts);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  }
  if (tf === '1w') {
    const monday = 4 * 86_400_000; // 1970-01-05 was a Monday
    return ts - ((((ts - monday) % TF_MS['1w']) + TF_MS['1w']) % TF_MS['1w']);
  }
  const ms = TF_MS[tf];
  return ts - (((ts % ms) + ms) % ms);
}

function previousStart(tf: Timeframe, start: number): number {
  if (tf === '1M') {
    const d = new Date(start);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1);
  }
  return start - TF_MS[tf];
}

function timeframeMinutes(tf: Timeframe): number {
  return tf === '1M' ? 30 * 1440 : TF_MS[tf] / MINUTE;
}

export interface CandleSeries {
  candles: Candle[];
}

/** Volume a price update adds to a live candle. */
function volumeTick(base: string, price: number): number {
  // ~20,000 USD of volume per second on the big pairs, less on the small ones.
  const usdPerSecond = base === 'BTC' || base === 'ETH' ? 20_000 : 2_000;
  return Number((usdPerSecond / price).toPrecision(6));
}

/** Moves the live candle of each of a pair's series to `price` at `now` (a new candle when one starts). */
export function updateCandles(
  series: Map<Timeframe, CandleSeries>,
  base: string,
  price: number,
  now: number,
  maxCandles: number,
): void {
  for (const [tf, s] of series) {
    const start = timeframeStart(tf, now);
    const last = s.candles[s.candles.length - 1];
    if (last && last[0] === start) {
      last[2] = Math.max(last[2], price);
      last[3] = Math.min(last[3], price);
      last[4] = price;
      last[5] += volumeTick(base, price);
    } else if (!last || start > last[0]) {
      s.candles.push([
        start,
        last ? last[4] : price,
        Math.max(price, last?.[4] ?? price),
        Math.min(price, last?.[4] ?? price),
        price,
        0,
      ]);
      if (s.candles.length > maxCandles) s.candles.splice(0, s.candles.length - maxCandles);
    }
  }
}

/** What the history of one series is generated from. */
export interface HistoryOf {
  seed: number;
  exchange: string;
  symbol: string;
  base: string;
  /** The price now (the current candle's) and the tick. */
  price: number;
  priceStep: number;
}

/** The current candle and `count` candles before it, seeded per pair and timeframe, oldest first. */
export function candleHistory(p: HistoryOf, tf: Timeframe, now: number, count: number): Candle[] {
  const r = mulberry32(hash32(`${p.seed}:candles:${p.exchange}:${p.symbol}:${tf}`));
  const base = DAILY_VOL[p.base] ?? 0.045;
  const sigma = base * Math.sqrt(timeframeMinutes(tf) / 1440);
  const step = p.priceStep;
  const out: Candle[] = [];
  let start = timeframeStart(tf, now);
  const usdVol = p.base === 'BTC' || p.base === 'ETH' ? 20_000 : 2_000;
  // The current candle, then history backwards: each candle closes where the next one opens.
  out.push([start, p.price, p.price, p.price, p.price, 0]);
  let close = p.price;
  for (let i = 0; i < count; i++) {
    start = previousStart(tf, start);
    const open = Math.max(step, roundToStep(close * Math.exp(-sigma * gaussian(r)), step));
    const hi = Math.max(open, close) * (1 + Math.abs(gaussian(r)) * sigma * 0.4);
    const lo = Math.min(open, close) * (1 - Math.abs(gaussian(r)) * sigma * 0.4);
    const volume = Number(((usdVol * timeframeMinutes(tf) * 60 * (0.5 + r())) / close).toPrecision(6));
    out.push([start, open, roundToStep(hi, step), Math.max(step, roundToStep(lo, step)), close, volume]);
    close = open;
  }
  return out.reverse();
}
