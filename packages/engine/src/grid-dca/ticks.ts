/**
 * Grid Bot DCA: a price tick: the anchor and entry at start, SL / TP+, auto-fund, RA, the range log, and
 * the ladder (with the allocation-free fast path when it is already settled).
 */
import { formatAmount } from '../money';
import { DCA_RANGE_LOG_INTERVAL_MS } from './config';
import { backoffOver, type Cx, log, logBelowMin, newRef, nextId } from './context';
import {
  buyAmountAt,
  firstLevelBelow,
  inRange,
  isShort,
  ladderOf,
  minimumViolation,
  rangeHigh,
  rangeLow,
} from './ladder';
import { autoFundTick } from './lot-actions';
import { crossedBuys, lotWaitsForTp, settledAt } from './quiet-band';
import { rebalance, relocate } from './rebalance';
import { beginStop, finishStop } from './stopping';

export function onTick(cx: Cx, price: number): void {
  const s = cx.s;
  if (!Number.isFinite(price) || price <= 0) return;
  s.lastPrice = price;
  s.lastTs = cx.ts;
  if (s.status === 'stopping') return;

  if (s.status === 'starting') {
    if (checkStopPrices(cx, price)) return;
    if (s.entry === null && backoffOver(s, cx.ts)) placeEntry(cx, price);
    return;
  }

  // running
  if (checkStopPrices(cx, price)) return;
  autoFundTick(cx, price);
  const high = rangeHigh(s);
  if (s.config.raEnabled && (isShort(s.config) ? price < rangeLow(s)! : high !== null && price > high)) {
    // RA: the price left the range on the take-profit side (above it; SHORT: below it).
    relocate(cx, 'ra_relocated');
    return;
  }
  const nowInRange = inRange(s, price);
  if (!nowInRange && s.inRange !== false) {
    const due = s.lastRangeLogTs === null || cx.ts - s.lastRangeLogTs >= DCA_RANGE_LOG_INTERVAL_MS;
    if (due) {
      s.lastRangeLogTs = cx.ts;
      log(cx, 'warn', 'out_of_range', {
        price,
        low: rangeEdgeText(rangeLow(s) ?? 0),
        high: rangeEdgeText(high ?? 0),
        side: high !== null && price > high ? 'above' : 'below',
      });
    }
  } else if (nowInRange && s.inRange === false) {
    log(cx, 'info', 'back_in_range', { price });
  }
  s.inRange = nowInRange;
  // Fast path: no take profit waits, no buy is crossed, and the ladder is already what rebalance would
  // build from the first level below this price: nothing can change (checked without allocating, since
  // this runs on every tick of every bot).
  const ladder = ladderOf(s);
  if (
    ladder &&
    !lotWaitsForTp(s) &&
    settledAt(s, ladder, firstLevelBelow(ladder, price), backoffOver(s, cx.ts), crossedBuys(s, price))
  ) {
    return;
  }
  rebalance(cx);
}

/**
 * formatAmount of a range edge, remembered: bots started at the same price share their edges, and a
 * price move takes many of them out of range in the same tick (exact decimal formatting is ~µs each).
 */
const edgeTexts = new Map<number, string>();
function rangeEdgeText(x: number): string {
  let t = edgeTexts.get(x);
  if (t === undefined) {
    if (edgeTexts.size >= 10_000) edgeTexts.clear();
    t = formatAmount(x);
    edgeTexts.set(x, t);
  }
  return t;
}

/** SL (price at or below) and TP+ (price at or above): sell every lot at market and stop. SHORT: SL at
 *  or above, TP+ at or below, and the lots are bought back. */
function checkStopPrices(cx: Cx, price: number): boolean {
  const { sl, tpPlus } = cx.s.config;
  const up = isShort(cx.s.config);
  if (sl !== null && sl !== undefined && (up ? price >= sl : price <= sl)) {
    log(cx, 'warn', 'sl_hit', { price, sl });
    beginStop(cx, 'close_market', 'sl_hit');
    return true;
  }
  if (tpPlus !== null && tpPlus !== undefined && (up ? price <= tpPlus : price >= tpPlus)) {
    log(cx, 'info', 'tp_plus_hit', { price, tp_plus: tpPlus });
    beginStop(cx, 'close_market', 'tp_plus_hit');
    return true;
  }
  return false;
}

function placeEntry(cx: Cx, price: number): void {
  const s = cx.s;
  const first = s.anchor === null;
  s.anchor = price;
  s.inRange = true;
  if (first) log(cx, 'info', 'started', { anchor: price, amount: s.config.amount });
  const amount = buyAmountAt(s.config, price);
  const violation = minimumViolation(s.config, amount, price);
  if (violation) {
    logBelowMin(cx, 'entry', violation, amount, price, { level: 0 });
    finishStop(cx, 'entry_failed');
    return;
  }
  const ref = newRef(nextId(s), price, amount);
  s.entry = { ...ref, level: 0 };
  if (isShort(s.config)) {
    cx.places.push({
      type: 'place_order',
      clientOrderId: ref.clientOrderId,
      side: 'sell',
      orderType: 'market',
      amount,
      role: 'entry',
      level: 0,
    });
    return;
  }
  cx.places.push({
    type: 'place_order',
    clientOrderId: ref.clientOrderId,
    side: 'buy',
    orderType: 'market',
    amount,
    quoteAmount: s.config.amount,
    role: 'entry',
    level: 0,
  });
}
