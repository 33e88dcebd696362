/**
 * Classic DCA: stopping (user stop, SL / TP+, cycle done) and the venue's liquidation.
 */
import { decToNumber, toDec } from '../money';
import type { StopMode, StopReason } from '../strategy';
import { positive } from '../shared/checks';
import { nextId } from '../shared/context';
import { log, logBelowMin } from '../shared/logging';
import { closeOrder } from '../shared/orders';
import { markStopped, markStopping } from '../shared/stopping';
import type { ClassicOrderRef } from './types';
import { CLASSIC_MAX_CLOSE_ATTEMPTS } from './config';
import { keepResidual, recordCycleTrade } from './cycles';
import { forgetPosition } from './lot-actions';
import { applyFill, cancelResting, type Cx, newRef, ownOrders } from './orders';
import { classicMinViolation, tradableQty } from './position';

/**
 * The venue liquidated the position at `price` (derivatives): the orders are gone (the runner delivered
 * their cancels), what is held is sold at `price` without fee into the cycle's trade, and the bot stops.
 */
export function onLiquidated(cx: Cx, price: number, contracts: number): boolean {
  const s = cx.s;
  if (!positive(price)) {
    log(cx, 'warn', 'invalid_value', { field: 'price' });
    return false;
  }
  log(cx, 'warn', 'liquidated', { price, contracts: Number.isFinite(contracts) ? contracts : 0 });
  ownOrders(cx);
  s.orders = [];
  const q = toDec(s.position.qty);
  if (q > 0n) {
    const liq: ClassicOrderRef = newRef(`${s.botId}-liq`, 'close', 'sell', true, price, decToNumber(q));
    applyFill(cx, liq, decToNumber(q), price, 0);
  }
  recordCycleTrade(cx);
  markStopped(cx, 'liquidated');
  return false;
}

export function beginStop(cx: Cx, mode: StopMode, reason: StopReason): void {
  const s = cx.s;
  if (s.status !== 'running') return;
  markStopping(cx, mode, reason);
  cancelResting(cx);
}

/** Once every order is answered: close_market sells the position at market, then the bot stops. */
export function continueStop(cx: Cx): void {
  const s = cx.s;
  if (s.status !== 'stopping' || s.orders.length > 0) return;
  // A forget the user asked for before the stop wins: the position is not sold nor kept as residual.
  if (s.lotBusy === 'deleting') forgetPosition(cx);
  const amount = tradableQty(s);
  if (s.stopMode === 'close_market' && amount > 0 && s.closeAttempts < CLASSIC_MAX_CLOSE_ATTEMPTS) {
    const price = s.lastPrice ?? s.entry ?? 0;
    const violation = classicMinViolation(s.config.market, amount, price);
    if (violation) {
      s.closeAttempts = CLASSIC_MAX_CLOSE_ATTEMPTS;
      logBelowMin(cx, 'close', violation, amount, price, { cycle: s.cycle });
    } else {
      s.closeAttempts += 1;
      ownOrders(cx);
      const ref = newRef(nextId(s), 'close', 'sell', true, price, amount);
      s.orders.push(ref);
      cx.places.push(closeOrder(ref.clientOrderId, amount, `${s.botId}-c${s.cycle}`));
      return;
    }
  }
  recordCycleTrade(cx);
  keepResidual(cx);
  markStopped(cx, s.stopReason ?? 'user_cancel_only');
}
