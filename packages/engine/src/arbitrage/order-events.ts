/**
 * Arbitrage bot: the venue's answers about its orders, matched to a prepare buy, a trip leg, an unwind or
 * a close: the legs' progress, a failed leg unwound and recorded as a loss, the trip's end.
 */
import {
  type Dec,
  decDiv,
  decMul,
  decToNumber,
  decToString,
  formatAmount,
  roundDownToStep,
  toDec,
} from '../money';
import type { RejectReason } from '../strategy';
import { nextId } from '../shared/context';
import { log, rejectParams } from '../shared/logging';
import { recordTrade, roundPnl } from '../shared/trades';
import type { ArbitrageState, ArbOrderRef, ArbVenueState } from './types';
import { ARB_FAIL_PAUSE_MAX_MS, ARB_FAIL_PAUSE_MS, ARB_MAX_UNWIND_ATTEMPTS, marginPct } from './config';
import { type Cx, newRef, type Outcome, own, venueOf } from './context';
import { minOk } from './decision';
import { beginStop, closeDone, continueStop } from './stopping';

type Found =
  | { kind: 'prepare'; ref: ArbOrderRef; venue: ArbVenueState }
  | { kind: 'close'; ref: ArbOrderRef; venue: ArbVenueState }
  | { kind: 'leg'; ref: ArbOrderRef; leg: 'buy' | 'sell' }
  | { kind: 'unwind'; ref: ArbOrderRef };

function find(s: ArbitrageState, id: string): Found | null {
  for (const v of s.venues) {
    if (v.prepare && !v.prepare.done && v.prepare.clientOrderId === id)
      return { kind: 'prepare', ref: v.prepare, venue: v };
    if (v.close && !v.close.done && v.close.clientOrderId === id)
      return { kind: 'close', ref: v.close, venue: v };
  }
  const t = s.trip;
  if (t) {
    if (!t.buy.done && t.buy.clientOrderId === id) return { kind: 'leg', ref: t.buy, leg: 'buy' };
    if (!t.sell.done && t.sell.clientOrderId === id) return { kind: 'leg', ref: t.sell, leg: 'sell' };
    if (t.unwind && !t.unwind.done && t.unwind.clientOrderId === id) return { kind: 'unwind', ref: t.unwind };
  }
  return null;
}

/**
 * An event about order `id`: `apply` updates the order's ref (null: an invalid event, ignored). Events
 * of unknown or settled orders are ignored (re-deliveries are harmless).
 */
export function onOrderEvent(cx: Cx, id: string, apply: (o: ArbOrderRef) => Outcome | null): void {
  if (!find(cx.s, id)) return;
  own(cx);
  const f = find(cx.s, id)!;
  const outcome = apply(f.ref);
  if (!outcome || !f.ref.done) return;
  const { why, message } = outcome;
  const o = f.ref;
  if (o.filled > 0) applyFill(cx.s, o);
  switch (f.kind) {
    case 'prepare':
      prepareDone(cx, f.venue, o, why, message);
      break;
    case 'leg':
      if (o.filled <= 0 && why)
        log(
          cx,
          'warn',
          'order_rejected',
          rejectParams(
            { role: f.leg === 'buy' ? 'arb_buy' : 'arb_sell', reason: why, exchange: o.exchange },
            message,
          ),
        );
      legsProgress(cx);
      break;
    case 'unwind':
      unwindDone(cx, o, why, message);
      break;
    case 'close':
      closeDone(cx, f.venue, o, why, message);
      break;
  }
  if (cx.s.status === 'stopping') continueStop(cx);
}

/** A settled order's fill moves the venue's inventory: a buy adds base and costs quote + fee, a sell
 *  the reverse (fees are in quote). */
function applyFill(s: ArbitrageState, o: ArbOrderRef): void {
  const inv = venueOf(s, o.exchange).inventory;
  const q = toDec(o.filled);
  const value = decMul(q, toDec(o.avgPrice));
  const fee = toDec(o.fee);
  if (o.side === 'buy') {
    inv.base = decToString(toDec(inv.base) + q);
    inv.quote = decToString(toDec(inv.quote) - value - fee);
  } else {
    inv.base = decToString(toDec(inv.base) - q);
    inv.quote = decToString(toDec(inv.quote) + value - fee);
  }
}

function prepareDone(
  cx: Cx,
  v: ArbVenueState,
  o: ArbOrderRef,
  why: RejectReason | 'cancelled' | null,
  message: string | undefined,
): void {
  const s = cx.s;
  if (o.filled > 0) {
    log(cx, 'info', 'arb_prepared', {
      exchange: v.exchange,
      qty: o.filled,
      price: o.avgPrice,
      fee: o.fee,
      base: v.inventory.base,
      quote: formatAmount(v.inventory.quote),
    });
  } else {
    log(
      cx,
      'warn',
      why === 'min_cost' ? 'below_min_cost' : 'order_rejected',
      rejectParams({ role: 'arb_prepare', reason: why ?? 'unknown', exchange: v.exchange }, message),
    );
    // The other venue's base (if it filled) is sold back at the stop.
    if (s.status === 'starting') beginStop(cx, 'close_market', 'entry_failed');
    return;
  }
  if (s.status !== 'starting') return;
  const [a, b] = s.venues;
  if (a.prepare?.done && b.prepare?.done && a.prepare.filled > 0 && b.prepare.filled > 0) {
    s.status = 'running';
    log(cx, 'info', 'started', {
      symbol: s.config.symbol,
      amount: s.config.amountQuote,
      exchanges: s.config.exchanges.join(','),
      margin_pct: marginPct(s.config),
    });
  }
}

/** Share of `fee` for `part` of `whole` (exact). */
function feeShare(fee: number, part: Dec, whole: Dec): Dec {
  if (whole <= 0n || part >= whole) return toDec(fee);
  return decDiv(decMul(toDec(fee), part), whole);
}

/** Both legs settled: the matched part is the round trip's trade; what one leg filled beyond the
 *  other is unwound on its venue. */
function legsProgress(cx: Cx): void {
  const s = cx.s;
  const t = s.trip;
  if (!t || t.phase !== 'legs' || !t.buy.done || !t.sell.done) return;
  const fb = toDec(t.buy.filled);
  const fs = toDec(t.sell.filled);
  const matched = fb < fs ? fb : fs;
  if (matched > 0n) {
    const buyFee = decToNumber(feeShare(t.buy.fee, matched, fb));
    const sellFee = decToNumber(feeShare(t.sell.fee, matched, fs));
    const pnl = roundPnl(
      decMul(matched, toDec(t.sell.avgPrice) - toDec(t.buy.avgPrice)) - toDec(buyFee) - toDec(sellFee),
    );
    recordTrade(cx, {
      lotId: t.id,
      qty: decToNumber(matched),
      buyPrice: t.buy.avgPrice,
      sellPrice: t.sell.avgPrice,
      buyTime: cx.ts,
      sellTime: cx.ts,
      buyFee,
      sellFee,
      pnlNet: pnl,
      buyExchange: t.buy.exchange,
      sellExchange: t.sell.exchange,
    });
    s.trips += 1;
    log(cx, 'info', 'arb_round_trip', {
      buy_exchange: t.buy.exchange,
      sell_exchange: t.sell.exchange,
      qty: decToNumber(matched),
      buy_price: t.buy.avgPrice,
      sell_price: t.sell.avgPrice,
      fees: decToNumber(toDec(buyFee) + toDec(sellFee)),
      pnl_net: pnl,
      expected_net: t.expectedNet,
    });
  }
  if (fb === fs) {
    if (matched > 0n) s.failStreak = 0;
    return finishTrip(cx);
  }
  pauseAfterFailedLeg(cx);
  const leg: 'buy' | 'sell' = fb > fs ? 'buy' : 'sell';
  const filled = t[leg];
  const other = t[leg === 'buy' ? 'sell' : 'buy'];
  const excess = fb > fs ? fb - fs : fs - fb;
  log(cx, 'warn', 'arb_leg_failed', {
    trip: t.id,
    failed_exchange: other.exchange,
    failed_side: other.side,
    failed_filled: other.filled,
    filled_exchange: filled.exchange,
    filled_side: filled.side,
    filled_qty: filled.filled,
    unwind_qty: decToNumber(excess),
  });
  t.phase = 'unwinding';
  t.unwindLeg = leg;
  t.unwindLeft = decToString(excess);
  placeUnwind(cx);
}

/** Sends the unwind of what is left (the filled leg's venue, opposite side), or ends the trip when it
 *  cannot be sent (below the minimum, attempts used up). */
export function placeUnwind(cx: Cx): void {
  const s = cx.s;
  const t = s.trip!;
  const leg = t[t.unwindLeg!];
  const r = s.config.rules[leg.exchange]!;
  const amount = roundDownToStep(decToNumber(toDec(t.unwindLeft)), r.amountStep);
  const m = s.market[leg.exchange];
  const side: 'buy' | 'sell' = leg.side === 'buy' ? 'sell' : 'buy';
  const price = (side === 'sell' ? m?.book?.bids[0]?.[0] : m?.book?.asks[0]?.[0]) ?? m?.price ?? leg.avgPrice;
  if (!minOk(r, amount, price)) {
    log(cx, 'warn', 'arb_unwind_skipped', {
      trip: t.id,
      exchange: leg.exchange,
      side,
      amount,
      price,
      reason: 'below_min_cost',
      min_cost: r.minCost,
      min_amount: r.minAmount,
    });
    return finishTrip(cx);
  }
  if (t.unwindAttempts >= ARB_MAX_UNWIND_ATTEMPTS) {
    log(cx, 'warn', 'arb_unwind_failed', {
      trip: t.id,
      exchange: leg.exchange,
      side,
      amount,
      attempts: t.unwindAttempts,
    });
    return finishTrip(cx);
  }
  t.unwindAttempts += 1;
  const id = nextId(s);
  t.unwind = newRef(id, leg.exchange, side, price, amount);
  cx.places.push({
    type: 'place_order',
    exchange: leg.exchange,
    symbol: s.config.symbol,
    clientOrderId: id,
    side,
    orderType: 'market',
    amount,
    role: 'arb_unwind',
    lotId: t.id,
  });
}

function unwindDone(cx: Cx, o: ArbOrderRef, why: RejectReason | 'cancelled' | null, message?: string): void {
  const s = cx.s;
  const t = s.trip!;
  const leg = t[t.unwindLeg!];
  t.unwind = null;
  if (o.filled > 0) {
    const q = toDec(o.filled);
    const legShare = decToNumber(feeShare(leg.fee, q, toDec(leg.filled)));
    const unwoundBuy = leg.side === 'buy';
    const buyPrice = unwoundBuy ? leg.avgPrice : o.avgPrice;
    const sellPrice = unwoundBuy ? o.avgPrice : leg.avgPrice;
    const buyFee = unwoundBuy ? legShare : o.fee;
    const sellFee = unwoundBuy ? o.fee : legShare;
    const pnl = roundPnl(decMul(q, toDec(sellPrice) - toDec(buyPrice)) - toDec(buyFee) - toDec(sellFee));
    recordTrade(cx, {
      lotId: t.id,
      key: t.unwindAttempts <= 1 ? `${t.id}#unwind` : `${t.id}#unwind-${t.unwindAttempts}`,
      qty: decToNumber(q),
      buyPrice,
      sellPrice,
      buyTime: cx.ts,
      sellTime: cx.ts,
      buyFee,
      sellFee,
      pnlNet: pnl,
      buyExchange: leg.exchange,
      sellExchange: leg.exchange,
    });
    log(cx, 'warn', 'arb_unwound', {
      exchange: leg.exchange,
      side: o.side,
      qty: decToNumber(q),
      price: o.avgPrice,
      leg_price: leg.avgPrice,
      fees: decToNumber(toDec(buyFee) + toDec(sellFee)),
      pnl_net: pnl,
    });
    const left = toDec(t.unwindLeft) - q;
    t.unwindLeft = decToString(left > 0n ? left : 0n);
  } else {
    log(
      cx,
      'warn',
      'order_rejected',
      rejectParams({ role: 'arb_unwind', reason: why ?? 'unknown', exchange: leg.exchange }, message),
    );
    // Funds, minimum or precision refusals will not pass by retrying.
    if (why !== 'exchange_error' && why !== 'unknown' && why !== 'cancelled')
      t.unwindAttempts = ARB_MAX_UNWIND_ATTEMPTS;
  }
  const r = s.config.rules[leg.exchange]!;
  if (toDec(t.unwindLeft) < toDec(r.amountStep)) return finishTrip(cx);
  if (t.unwindAttempts >= ARB_MAX_UNWIND_ATTEMPTS) {
    log(cx, 'warn', 'arb_unwind_failed', {
      trip: t.id,
      exchange: leg.exchange,
      amount: decToNumber(toDec(t.unwindLeft)),
      attempts: t.unwindAttempts,
    });
    return finishTrip(cx);
  }
  // Retried at the next tick (a fresh price; never in a loop within one step).
}

/** A leg failed: no new trip for a while, longer for each failure in a row (logged with the time). */
function pauseAfterFailedLeg(cx: Cx): void {
  const s = cx.s;
  const streak = (s.failStreak ?? 0) + 1;
  const ms = Math.min(ARB_FAIL_PAUSE_MAX_MS, ARB_FAIL_PAUSE_MS * 2 ** Math.min(streak - 1, 20));
  s.failStreak = streak;
  s.pausedUntil = cx.ts + ms;
  log(cx, 'warn', 'arb_paused', { seconds: ms / 1000, failed_in_a_row: streak, until: s.pausedUntil });
}

function finishTrip(cx: Cx): void {
  const s = cx.s;
  s.trip = null;
  s.lastTripEndTs = cx.ts;
}
