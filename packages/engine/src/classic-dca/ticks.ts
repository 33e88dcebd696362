/**
 * Classic DCA: a price tick: the forming candle, SL / TP+, and a closed candle's decisions (the trend
 * rule, smart averaging).
 */
import { roundDownToStep } from '../money';
import { backoffOver } from '../shared/backoff';
import { log } from '../shared/logging';
import { checkStopPrices as checkStopPricesBy } from '../shared/stopping';
import type { ClassicDcaState } from './types';
import { autoFundTick } from './lot-actions';
import { type Cx, placeMarketBuy } from './orders';
import { classicAverage, classicMinViolation, hasMarketBuy } from './position';
import { beginStop } from './stopping';

export function onTick(cx: Cx, price: number): boolean {
  const s = cx.s;
  if (!Number.isFinite(price) || price <= 0) return false;
  s.lastPrice = price;
  s.lastTs = cx.ts;
  const closed = updateCandles(s, price, cx.ts);
  if (s.status !== 'running') return false;
  if (checkStopPrices(cx, price)) return true;
  if (closed) onCandleClosed(cx);
  autoFundTick(cx, price);
  return true;
}

/** Builds the forming candle; returns true when a candle closed. */
function updateCandles(s: ClassicDcaState, price: number, ts: number): boolean {
  const ms = s.config.candleMs;
  const bucket = Math.floor(ts / ms) * ms;
  const f = s.forming;
  if (f === null) {
    const last = s.candles[s.candles.length - 1];
    if (last && last.t > bucket) return false; // older than the seeded candles
    if (last && last.t === bucket) {
      // The seeded candle of this interval is still forming: reopen it.
      s.candles = s.candles.slice(0, -1);
      s.forming = { t: bucket, o: last.o, h: Math.max(last.h, price), l: Math.min(last.l, price), c: price };
      return false;
    }
    s.forming = { t: bucket, o: price, h: price, l: price, c: price };
    return false;
  }
  if (bucket <= f.t) {
    s.forming = { t: f.t, o: f.o, h: Math.max(f.h, price), l: Math.min(f.l, price), c: price };
    return false;
  }
  const keep = s.config.maPeriod + 2;
  const next = s.candles.length >= keep ? s.candles.slice(s.candles.length - keep + 1) : s.candles.slice();
  next.push(f);
  s.candles = next;
  s.forming = { t: bucket, o: price, h: price, l: price, c: price };
  return true;
}

/** SL (price at or below) and TP+ (price at or above): sell the position at market and stop. */
function checkStopPrices(cx: Cx, price: number): boolean {
  return checkStopPricesBy(cx, price, beginStop);
}

/**
 * Smart averaging, decided on candle close: in a position with the close below the average entry, a
 * candle closing above the previous candle's high, after that one closed below the one before it,
 * buys `smartAmount` quote at market.
 */
function onCandleClosed(cx: Cx): void {
  const s = cx.s;
  const c = s.config;
  if (!c.smartAveraging || !s.cycleOpen || s.entry === null || s.lotBusy || hasMarketBuy(s)) return;
  const n = s.candles.length;
  if (n < 3) return;
  const c0 = s.candles[n - 3]!;
  const c1 = s.candles[n - 2]!;
  const c2 = s.candles[n - 1]!;
  const avg = classicAverage(s);
  if (avg === null || !(c2.c < avg)) return;
  if (!(c1.c < c0.c && c2.c > c1.h)) return;
  const price = s.lastPrice ?? c2.c;
  const qty = roundDownToStep(c.smartAmount / price, c.market.amountStep);
  const violation = classicMinViolation(c.market, qty, price);
  if (violation) {
    log(cx, 'warn', 'smart_buy_skipped', {
      reason: violation === 'min_amount' ? 'min_amount' : 'min_cost',
      amount: c.smartAmount,
      min_cost: c.market.minCost,
    });
    return;
  }
  if (!backoffOver(s, cx.ts)) {
    log(cx, 'warn', 'smart_buy_skipped', {
      reason: 'backoff',
      amount: c.smartAmount,
      min_cost: c.market.minCost,
    });
    return;
  }
  log(cx, 'info', 'smart_buy', { close: c2.c, high: c1.h });
  placeMarketBuy(cx, 'smart_buy', c.smartAmount, qty, price);
}
