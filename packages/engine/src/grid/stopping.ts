/**
 * Grid bot: stopping (selling all or keeping the assets) and the venue's liquidation.
 */
import { decDiv, decMul, decToNumber, decToString, roundDownToStep, toDec } from '../money';
import type { PlaceOrderCommand, StopMode, StopReason } from '../strategy';
import { nonNegative, positive } from '../shared/checks';
import { nextId } from '../shared/context';
import { log, logBelowMin } from '../shared/logging';
import { newOrderRef } from '../shared/orders';
import { markStopped, markStopping } from '../shared/stopping';
import type { GridOrderRef } from './types';
import { GRID_MAX_CLOSE_ATTEMPTS, netBase } from './config';
import { type Cx, own } from './context';
import { gridMinViolation } from './levels';
import { closeSlot } from './rounds';

export function beginStop(cx: Cx, mode: StopMode, reason: StopReason): void {
  own(cx);
  const s = cx.s;
  if (s.status === 'stopped' || s.status === 'stopping') return;
  markStopping(cx, mode, reason);
  for (const slot of s.slots) {
    const o = slot.order;
    if (!o || o.cancelling) continue;
    o.cancelling = true;
    cx.cmds.push({ type: 'cancel_order', clientOrderId: o.clientOrderId });
  }
  continueStop(cx);
}

/** Once every order is settled: close_market closes the net position at market, then the bot stops. */
export function continueStop(cx: Cx): void {
  const s = cx.s;
  if (s.status !== 'stopping') return;
  const outstanding =
    s.init !== null || s.profitBuy !== null || s.close !== null || s.slots.some((sl) => sl.order !== null);
  if (outstanding) return;
  if (s.stopMode === 'close_market' && s.closeAttempts < GRID_MAX_CLOSE_ATTEMPTS) {
    const net = netBase(s);
    if (net !== 0n) {
      const side: 'buy' | 'sell' = net > 0n ? 'sell' : 'buy';
      const amount = roundDownToStep(decToNumber(net > 0n ? net : -net), s.config.market.amountStep);
      const price = s.lastPrice ?? 0;
      const violation = gridMinViolation(s.config.market, amount, price);
      if (violation) {
        logBelowMin(cx, 'close', violation, amount, price);
      } else {
        s.closeAttempts += 1;
        const id = nextId(s);
        s.close = { ...newOrderRef(id, {}, price, amount), side };
        const cmd: PlaceOrderCommand = {
          type: 'place_order',
          clientOrderId: id,
          side,
          orderType: 'market',
          amount,
          role: 'close',
        };
        if (s.config.derivatives) cmd.reduceOnly = true;
        cx.places.push(cmd);
        return;
      }
    }
  }
  markStopped(cx, s.stopReason ?? 'user_cancel_only');
}

/**
 * The close_market order filled `qty` at `price` paying `fee`: the slots on its side are closed in
 * order (each a trade with its share of the fee); what is beyond them comes out of the profit base.
 * When the order filled completely (`complete`), slots of the other side (a neutral grid's longs and
 * shorts netted against each other) are closed at the same price without fee, and nothing is left.
 */
export function closeFilled(
  cx: Cx,
  ref: GridOrderRef,
  qty: number,
  price: number,
  fee: number,
  complete: boolean,
): void {
  const s = cx.s;
  const closes: 'buy' | 'sell' = ref.side === 'sell' ? 'buy' : 'sell';
  const got = toDec(qty);
  const feeD = toDec(fee);
  let left = got;
  for (const slot of s.slots) {
    if (left <= 0n) break;
    if (!slot.open || slot.open.side !== closes) continue;
    const held = toDec(slot.open.qty);
    const q = left < held ? left : held;
    left -= q;
    const share = got > 0n ? decDiv(decMul(feeD, q), got) : 0n;
    closeSlot(cx, slot, decToNumber(q), price, decToNumber(share), ref.clientOrderId, false);
  }
  if (left > 0n) s.profitBase = decToString(toDec(s.profitBase) + (ref.side === 'sell' ? -left : left));
  if (!complete) return;
  for (const slot of s.slots)
    if (slot.open) closeSlot(cx, slot, slot.open.qty, price, 0, ref.clientOrderId, false);
  s.profitBase = '0';
  s.profitQuote = '0';
}

/** The venue liquidated the position at `price`: every open slot is a trade at that price, then stop. */
export function onLiquidated(cx: Cx, price: number, contracts: number): void {
  own(cx);
  const s = cx.s;
  if (!positive(price)) return log(cx, 'warn', 'invalid_value', { field: 'price' });
  log(cx, 'warn', 'liquidated', { price, contracts: nonNegative(contracts) ? contracts : 0 });
  // The runner delivered the cancels of the orders already; anything still tracked is gone too.
  s.init = null;
  s.profitBuy = null;
  s.close = null;
  for (const slot of s.slots) {
    slot.order = null;
    if (slot.open) closeSlot(cx, slot, slot.open.qty, price, 0, `liq-${cx.ts}`, false);
  }
  s.profitBase = '0';
  s.profitQuote = '0';
  s.stopMode = null;
  markStopped(cx, 'liquidated');
}
