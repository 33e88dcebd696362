/**
 * Classic DCA: what one step works on (Cx), the copy-on-write of its orders, the buy back-off, and the
 * market buys it places, the cancel of what rests, and a fill recorded on its order and position.
 */
import { decMul, decToString, toDec } from '../money';
import type { OrderRole } from '../strategy';
import { bumpBackoff as bumpBackoffBy } from '../shared/backoff';
import { nextId, type StepContext } from '../shared/context';
import { marketBuy, newOrderRef } from '../shared/orders';
import type { ClassicDcaState, ClassicOrderRef } from './types';
import { CLASSIC_FIRST_BACKOFF_MS, CLASSIC_MAX_BACKOFF_MS } from './config';

/** `owned`: whether `s.orders` (and its refs) is already this step's own copy. */
export type Cx = StepContext<ClassicDcaState>;

/** Copy-on-write of the order list: the first change copies it (and its refs). */
export function ownOrders(cx: Cx): void {
  if (cx.owned) return;
  cx.owned = true;
  cx.s.orders = cx.s.orders.map((o) => ({ ...o }));
}

export const BACKOFF = { firstMs: CLASSIC_FIRST_BACKOFF_MS, maxMs: CLASSIC_MAX_BACKOFF_MS };

export function bumpBackoff(s: ClassicDcaState, ts: number): void {
  bumpBackoffBy(s, ts, BACKOFF);
}

export function newRef(
  clientOrderId: string,
  role: OrderRole,
  side: 'buy' | 'sell',
  market: boolean,
  price: number,
  amount: number,
): ClassicOrderRef {
  return newOrderRef(clientOrderId, { role, side, market }, price, amount);
}

export function placeMarketBuy(
  cx: Cx,
  role: OrderRole,
  quote: number,
  amount: number,
  price: number,
  autoStep?: number,
): void {
  ownOrders(cx);
  const s = cx.s;
  const ref = newRef(nextId(s), role, 'buy', true, price, amount);
  if (autoStep !== undefined) ref.autoStep = autoStep;
  s.orders.push(ref);
  cx.places.push(marketBuy(ref.clientOrderId, amount, quote, role));
}

/**
 * Books the part of an order's cumulative fill not yet booked: a buy adds base, quote and fee to the
 * position; a sell takes its base out of the position with its pro-rata share of the buy cost, and adds
 * to the cycle's sales.
 */
export function applyFill(cx: Cx, ref: ClassicOrderRef, filled: number, price: number, fee: number): void {
  const s = cx.s;
  if (filled < ref.filled) return;
  const dq = toDec(filled) - toDec(ref.filled);
  const dquote = decMul(toDec(filled), toDec(price)) - decMul(toDec(ref.filled), toDec(ref.avgPrice));
  const dfee = toDec(fee) - toDec(ref.fee);
  ref.filled = filled;
  ref.avgPrice = price;
  ref.fee = fee;
  if (dq === 0n && dquote === 0n && dfee === 0n) return;
  const p = s.position;
  if (ref.side === 'buy') {
    s.position = {
      qty: decToString(toDec(p.qty) + dq),
      quote: decToString(toDec(p.quote) + dquote),
      fee: decToString(toDec(p.fee) + dfee),
    };
    if (dq > 0n && s.cycleStart === null) s.cycleStart = cx.ts;
    s.tpBlocked = false;
    return;
  }
  const held = toDec(p.qty);
  const q = dq < held ? dq : held;
  let buyQuote = toDec(p.quote);
  let buyFee = toDec(p.fee);
  if (q < held) {
    buyQuote = held > 0n ? (buyQuote * q) / held : 0n;
    buyFee = held > 0n ? (buyFee * q) / held : 0n;
  }
  s.position = {
    qty: decToString(held - q),
    quote: decToString(toDec(p.quote) - buyQuote),
    fee: decToString(toDec(p.fee) - buyFee),
  };
  const a = s.sales;
  s.sales = {
    qty: decToString(toDec(a.qty) + dq),
    quote: decToString(toDec(a.quote) + dquote),
    fee: decToString(toDec(a.fee) + dfee),
    buyQuote: decToString(toDec(a.buyQuote) + buyQuote),
    buyFee: decToString(toDec(a.buyFee) + buyFee),
  };
}

/** Cancels every resting (limit) order not already being cancelled; market orders are awaited. */
export function cancelResting(cx: Cx): void {
  ownOrders(cx);
  for (const o of cx.s.orders) {
    if (o.cancelling || o.market) continue;
    o.cancelling = true;
    cx.cmds.push({ type: 'cancel_order', clientOrderId: o.clientOrderId });
  }
}
