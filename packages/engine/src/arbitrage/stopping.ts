/**
 * Arbitrage bot: stopping: wait for a trip in flight, cancel what rests, sell the inventory at market when
 * asked, then 'stopped'.
 */
import { decMul, decToNumber, decToString, formatAmount, roundDownToStep, toDec } from '../money';
import type { RejectReason, StopMode, StopReason } from '../strategy';
import { nextId } from '../shared/context';
import { log, rejectParams } from '../shared/logging';
import { markStopped, markStopping } from '../shared/stopping';
import type { ArbOrderRef, ArbVenueState } from './types';
import { ARB_MAX_CLOSE_ATTEMPTS } from './config';
import { type Cx, newRef, own } from './context';
import { minOk } from './decision';

export function beginStop(cx: Cx, mode: StopMode, reason: StopReason): void {
  const s = cx.s;
  if (s.status === 'stopped' || s.status === 'stopping') return;
  own(cx);
  markStopping(cx, mode, reason);
  continueStop(cx);
}

/** Once nothing is in flight (prepares, the trip with its unwind): close_market sells each venue's base
 *  at market, then the bot stops; cancel_only stops at once (the assets stay). */
export function continueStop(cx: Cx): void {
  const s = cx.s;
  if (s.status !== 'stopping') return;
  if (s.trip) return;
  for (const v of s.venues) if ((v.prepare && !v.prepare.done) || (v.close && !v.close.done)) return;
  if (s.stopMode === 'close_market') {
    let placed = false;
    for (const v of s.venues) {
      if (v.closeAttempts >= ARB_MAX_CLOSE_ATTEMPTS) continue;
      const r = s.config.rules[v.exchange]!;
      const amount = roundDownToStep(decToNumber(toDec(v.inventory.base)), r.amountStep);
      if (!(amount > 0)) continue;
      const m = s.market[v.exchange];
      const price = m?.book?.bids[0]?.[0] ?? m?.price ?? v.prepare?.avgPrice ?? 0;
      if (!minOk(r, amount, price)) {
        v.closeAttempts = ARB_MAX_CLOSE_ATTEMPTS;
        log(cx, 'warn', 'below_min_cost', {
          role: 'arb_close',
          reason: amount < r.minAmount ? 'min_amount' : 'min_cost',
          amount,
          price,
          cost: formatAmount(decToString(decMul(toDec(amount), toDec(price)))),
          min_cost: r.minCost,
          min_amount: r.minAmount,
          symbol: s.config.symbol,
          exchange: v.exchange,
        });
        continue;
      }
      v.closeAttempts += 1;
      const id = nextId(s);
      v.close = newRef(id, v.exchange, 'sell', price, amount);
      cx.places.push({
        type: 'place_order',
        exchange: v.exchange,
        symbol: s.config.symbol,
        clientOrderId: id,
        side: 'sell',
        orderType: 'market',
        amount,
        role: 'arb_close',
      });
      placed = true;
    }
    if (placed) return;
  }
  markStopped(cx, s.stopReason ?? 'user_cancel_only');
}

export function closeDone(
  cx: Cx,
  v: ArbVenueState,
  o: ArbOrderRef,
  why: RejectReason | 'cancelled' | null,
  message: string | undefined,
): void {
  if (o.filled > 0) {
    log(cx, 'info', 'arb_closed', {
      exchange: v.exchange,
      qty: o.filled,
      price: o.avgPrice,
      fee: o.fee,
      base_left: v.inventory.base,
    });
    return;
  }
  if (why !== 'exchange_error' && why !== 'unknown' && why !== 'cancelled')
    v.closeAttempts = ARB_MAX_CLOSE_ATTEMPTS;
  log(cx, 'warn', 'close_failed', {
    ...rejectParams({ reason: why ?? 'unknown', exchange: v.exchange }, message),
    attempt: v.closeAttempts,
    max_attempts: ARB_MAX_CLOSE_ATTEMPTS,
  });
}
