/**
 * Grid Bot DCA: stopping (user stop, SL / TP+, a failed entry) and the venue's liquidation: cancel what
 * rests, close the lots at market when asked, then 'stopped'.
 */
import { roundDownToStep } from '../money';
import type { DcaConfig } from './types';
import type { PlaceOrderCommand, StopMode, StopReason } from '../strategy';
import { DCA_MAX_CLOSE_ATTEMPTS, positive } from './config';
import { type Cx, log, logBelowMin, newRef, nextId, own } from './context';
import { exitSide, minimumViolation } from './ladder';
import { sellLot } from './lots';

/**
 * The venue liquidated the position at `price` (derivatives): the orders are gone (the runner delivered
 * their cancels), every open lot is closed at `price` without fee (one trade each), and the bot stops.
 */
export function onLiquidated(cx: Cx, price: number, contracts: number): void {
  if (!positive(price)) return log(cx, 'warn', 'invalid_value', { field: 'price' });
  own(cx);
  const s = cx.s;
  log(cx, 'warn', 'liquidated', { price, contracts: Number.isFinite(contracts) ? contracts : 0 });
  s.entry = null;
  s.waitingBuys = [];
  if (s.lotBuys) s.lotBuys = [];
  for (const lot of [...s.lots]) {
    lot.tp = null;
    lot.close = null;
    const ref = newRef(`${s.botId}-liq`, price, lot.qty);
    sellLot(cx, lot, ref, lot.qty, price, 0);
  }
  s.lots = [];
  s.status = 'stopping';
  s.stopMode = null;
  finishStop(cx, 'liquidated');
}

/** The market order closing a lot: a sell (SHORT: a buy), reduceOnly on derivatives. */
export function closeCommand(
  config: DcaConfig,
  clientOrderId: string,
  amount: number,
  lotId: string,
): PlaceOrderCommand {
  const cmd: PlaceOrderCommand = {
    type: 'place_order',
    clientOrderId,
    side: exitSide(config),
    orderType: 'market',
    amount,
    role: 'close',
    lotId,
  };
  if (config.derivatives) cmd.reduceOnly = true;
  return cmd;
}

export function beginStop(cx: Cx, mode: StopMode, reason: StopReason): void {
  own(cx);
  const s = cx.s;
  if (s.status === 'stopped' || s.status === 'stopping') return;
  s.status = 'stopping';
  s.stopMode = mode;
  s.stopReason = reason;
  log(cx, 'info', 'stopping', { mode, reason });
  for (const w of s.waitingBuys) {
    if (w.cancelling) continue;
    w.cancelling = true;
    cx.cmds.push({ type: 'cancel_order', clientOrderId: w.clientOrderId });
  }
  for (const lot of s.lots) {
    if (lot.tp && !lot.tp.cancelling) {
      lot.tp.cancelling = true;
      cx.cmds.push({ type: 'cancel_order', clientOrderId: lot.tp.clientOrderId });
    }
  }
  continueStop(cx);
}

/** Once every order is settled: close_market sells the lots at market (once), then the bot stops. */
export function continueStop(cx: Cx): void {
  own(cx);
  const s = cx.s;
  if (s.status !== 'stopping') return;
  // A lot bought while stopping has no TP; a TP placed before the stop may still be open.
  for (const lot of s.lots) {
    if (lot.tp && !lot.tp.cancelling) {
      lot.tp.cancelling = true;
      cx.cmds.push({ type: 'cancel_order', clientOrderId: lot.tp.clientOrderId });
    }
  }
  const outstanding =
    s.entry !== null ||
    s.waitingBuys.length > 0 ||
    (s.lotBuys?.length ?? 0) > 0 ||
    s.lots.some((l) => l.tp !== null || l.close !== null);
  if (outstanding) return;
  if (s.stopMode === 'close_market') {
    s.closePhase = true;
    const price = s.lastPrice ?? 0;
    let placed = 0;
    for (const lot of s.lots) {
      if ((lot.closeAttempts ?? 0) >= DCA_MAX_CLOSE_ATTEMPTS) continue;
      const amount = roundDownToStep(lot.qty, s.config.market.amountStep);
      const violation = minimumViolation(s.config, amount, price);
      if (violation) {
        lot.closeAttempts = DCA_MAX_CLOSE_ATTEMPTS;
        logBelowMin(cx, 'close', violation, amount, price, { lot_id: lot.id });
        continue;
      }
      lot.closeAttempts = (lot.closeAttempts ?? 0) + 1;
      lot.close = newRef(nextId(s), price, amount);
      cx.places.push(closeCommand(s.config, lot.close.clientOrderId, amount, lot.id));
      placed += 1;
    }
    if (placed > 0) return;
  }
  finishStop(cx, s.stopReason ?? 'user_cancel_only');
}

export function finishStop(cx: Cx, reason: StopReason): void {
  const s = cx.s;
  s.status = 'stopped';
  s.stopReason = reason;
  s.entry = null;
  cx.cmds.push({ type: 'stopped', reason });
}
