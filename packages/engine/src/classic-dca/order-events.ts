/**
 * Classic DCA: the venue's answers about its orders (filled, partially filled, cancelled, rejected) and
 * what a settled order of each role does.
 */
import type { RejectReason } from '../strategy';
import { pauseBuys, resetBackoff } from '../shared/backoff';
import { validFill } from '../shared/checks';
import { log, rejectParams } from '../shared/logging';
import { closeRefused, markStopped } from '../shared/stopping';
import type { ClassicDcaState, ClassicOrderRef } from './types';
import { CLASSIC_MAX_CLOSE_ATTEMPTS, CLASSIC_TP_RETRY_MS } from './config';
import { closeCycle, keepResidual } from './cycles';
import { saleSettled } from './lot-actions';
import { applyFill, BACKOFF, bumpBackoff, type Cx, ownOrders } from './orders';
import { classicPositionId, tradableQty } from './position';

function orderIndex(s: ClassicDcaState, id: string): number {
  const o = s.orders;
  for (let i = 0; i < o.length; i++) if (o[i]!.clientOrderId === id) return i;
  return -1;
}

export function onPartial(cx: Cx, id: string, filled: number, price: number, fee: number): boolean {
  const i = orderIndex(cx.s, id);
  if (i < 0 || !validFill(filled, price, fee)) return false;
  if (filled <= cx.s.orders[i]!.filled) return false; // stale or repeated update
  ownOrders(cx);
  applyFill(cx, cx.s.orders[i]!, filled, price, fee);
  return true;
}

function removeOrder(s: ClassicDcaState, i: number): ClassicOrderRef {
  const ref = s.orders[i]!;
  s.orders.splice(i, 1);
  return ref;
}

export function onFilled(cx: Cx, id: string, amount: number, price: number, fee: number): boolean {
  const s = cx.s;
  const i = orderIndex(s, id);
  if (i < 0 || !validFill(amount, price, fee)) return false;
  ownOrders(cx);
  const ref = s.orders[i]!;
  if (amount >= ref.filled) applyFill(cx, ref, amount, price, fee);
  removeOrder(s, i);
  settled(cx, ref, true);
  return true;
}

export function onCancelled(cx: Cx, id: string, filled?: number, price?: number, fee?: number): boolean {
  const s = cx.s;
  const i = orderIndex(s, id);
  if (i < 0) return false;
  ownOrders(cx);
  const ref = s.orders[i]!;
  if (filled !== undefined && validFill(filled, price ?? 0, fee ?? 0) && filled > ref.filled)
    applyFill(cx, ref, filled, price ?? ref.avgPrice, fee ?? ref.fee);
  removeOrder(s, i);
  settled(cx, ref, false);
  return true;
}

/** An order left the venue (filled, or cancelled with `ref.filled` of it filled). */
function settled(cx: Cx, ref: ClassicOrderRef, filled: boolean): void {
  const s = cx.s;
  const got = ref.filled > 0;
  switch (ref.role) {
    case 'base':
      if (got) {
        if (s.entry === null) s.entry = ref.avgPrice;
        log(cx, 'info', 'base_filled', {
          cycle: s.cycle,
          price: ref.avgPrice,
          qty: ref.filled,
          fee: ref.fee,
        });
      } else {
        if (s.entry === null) s.cycleOpen = false;
        log(cx, 'warn', 'order_rejected', { role: 'base', reason: 'cancelled' });
        bumpBackoff(s, cx.ts);
      }
      return;
    case 'safety':
      if (got) {
        if (!s.filledLevels.includes(ref.level!)) s.filledLevels = [...s.filledLevels, ref.level!];
        s.safetyFills += 1;
        log(cx, 'info', 'safety_filled', {
          level: ref.level!,
          price: ref.avgPrice,
          qty: ref.filled,
          fee: ref.fee,
        });
      } else if (!ref.cancelling) {
        log(cx, 'warn', 'order_rejected', { role: 'safety', reason: 'cancelled', level: ref.level! });
        bumpBackoff(s, cx.ts);
      }
      return;
    case 'add_funds':
    case 'smart_buy':
      if (got)
        log(cx, 'info', 'buy_filled', { role: ref.role, price: ref.avgPrice, qty: ref.filled, fee: ref.fee });
      else if (ref.autoStep !== undefined)
        log(cx, 'warn', 'auto_fund_skipped', {
          lot_id: classicPositionId(s),
          step: ref.autoStep,
          reason: 'cancelled',
        });
      else log(cx, 'warn', 'order_rejected', { role: ref.role, reason: 'cancelled' });
      return;
    case 'take_profit':
      if (got) resetBackoff(s);
      if (got && s.cycleOpen && tradableQty(s) === 0) closeCycle(cx);
      else if (!filled && !ref.cancelling && !got) {
        s.tpRetryAt = cx.ts + CLASSIC_TP_RETRY_MS;
        log(cx, 'warn', 'order_rejected', { role: 'take_profit', reason: 'cancelled', retry_in_s: 60 });
      }
      return;
    case 'close':
      if (got) resetBackoff(s);
      if (s.status === 'running' && s.lotBusy === 'selling') saleSettled(cx, filled);
      else if (!filled)
        log(cx, 'warn', 'close_failed', {
          reason: 'cancelled',
          attempt: s.closeAttempts,
          max_attempts: CLASSIC_MAX_CLOSE_ATTEMPTS,
        });
      return;
    case 'entry':
    case 'ladder_buy':
    case 'vnc_sell':
    case 'grid_buy':
    case 'grid_sell':
    case 'grid_init':
    case 'arb_prepare':
    case 'arb_buy':
    case 'arb_sell':
    case 'arb_unwind':
    case 'arb_close':
    case 'signal_buy':
    case 'signal_sell':
    case 'manual_entry':
    case 'manual_tp':
    case 'manual_sl':
      return;
  }
}

export function onRejected(cx: Cx, id: string, reason: RejectReason, message?: string): boolean {
  const s = cx.s;
  const i = orderIndex(s, id);
  if (i < 0) return false;
  ownOrders(cx);
  const ref = removeOrder(s, i);
  const params = rejectParams({ role: ref.role, reason }, message);
  const permanent = reason === 'min_cost' || reason === 'precision';
  const code = (): string =>
    reason === 'min_cost'
      ? 'below_min_cost'
      : reason === 'insufficient_funds'
        ? 'insufficient_funds'
        : 'order_rejected';
  switch (ref.role) {
    case 'base':
      if (s.entry === null) s.cycleOpen = false;
      if (permanent) {
        log(cx, 'warn', code(), params);
        if (s.status === 'running' && !s.cycleOpen) {
          keepResidual(cx);
          markStopped(cx, 'entry_failed');
        }
      } else {
        pauseBuys(s, cx.ts, BACKOFF, params);
        log(cx, 'warn', code(), params);
      }
      return true;
    case 'safety':
      params.level = ref.level!;
      params.price = ref.price;
      if (permanent) {
        if (!s.skippedLevels.includes(ref.level!)) s.skippedLevels = [...s.skippedLevels, ref.level!];
      } else {
        pauseBuys(s, cx.ts, BACKOFF, params);
      }
      log(cx, 'warn', code(), params);
      return true;
    case 'add_funds':
    case 'smart_buy':
      if (!permanent) bumpBackoff(s, cx.ts);
      if (ref.autoStep !== undefined)
        log(
          cx,
          'warn',
          'auto_fund_skipped',
          rejectParams({ lot_id: classicPositionId(s), step: ref.autoStep, reason }, message),
        );
      else log(cx, 'warn', code(), params);
      return true;
    case 'take_profit':
      params.price = ref.price;
      if (permanent) s.tpBlocked = true;
      else {
        s.tpRetryAt = cx.ts + CLASSIC_TP_RETRY_MS;
        params.retry_in_s = CLASSIC_TP_RETRY_MS / 1000;
      }
      log(cx, 'warn', code(), params);
      return true;
    case 'close':
      if (s.status === 'running' && s.lotBusy === 'selling') {
        // The user's sale failed: the position stays, its take profit and safety buys come back.
        s.lotBusy = null;
        params.lot_id = classicPositionId(s);
        log(cx, 'warn', 'close_failed', params);
      } else closeRefused(cx, s, reason, params, CLASSIC_MAX_CLOSE_ATTEMPTS);
      return true;
    case 'entry':
    case 'ladder_buy':
    case 'vnc_sell':
    case 'grid_buy':
    case 'grid_sell':
    case 'grid_init':
    case 'arb_prepare':
    case 'arb_buy':
    case 'arb_sell':
    case 'arb_unwind':
    case 'arb_close':
    case 'signal_buy':
    case 'signal_sell':
    case 'manual_entry':
    case 'manual_tp':
    case 'manual_sl':
      return true;
  }
}
