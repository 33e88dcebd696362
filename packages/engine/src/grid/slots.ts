/**
 * Grid bot: a tick and the level orders: the start (the market order that buys or sells the base for the
 * levels), the range check, and each slot's order placed when it is due.
 */
import { decDiv, decMul, decToNumber, decToString, formatAmount, roundDownToStep, toDec } from '../money';
import type { OrderRole, PlaceOrderCommand } from '../strategy';
import { positive } from '../shared/checks';
import { nextId } from '../shared/context';
import { log, logBelowMin } from '../shared/logging';
import { newOrderRef } from '../shared/orders';
import { markStopped } from '../shared/stopping';
import type { GridSlot, GridState } from './types';
import { type Cx, own } from './context';
import { buyPriceOf, gridMinViolation, gridSlotQty, nearestLevel, sellPriceOf } from './levels';

// --- ticks -----------------------------------------------------------------------------------------

export function onTick(cx: Cx, price: number): void {
  const s = cx.s;
  if (!positive(price)) return;
  s.lastPrice = price;
  s.lastTs = cx.ts;
  if (s.status === 'stopping') return;
  if (s.status === 'starting') {
    if (s.init === null && (s.initRetryAt === null || cx.ts >= s.initRetryAt)) start(cx, price);
    return;
  }
  checkRange(cx, price);
  // Slots without an order (after a refusal, a venue cancel, or waiting for the price to be on their
  // side): read-only scan first, so a tick that changes nothing allocates nothing.
  if (dueSlot(s, cx.ts) >= 0) {
    own(cx);
    placeDue(cx);
  }
}

function checkRange(cx: Cx, price: number): void {
  const s = cx.s;
  const low = s.levels[0]!;
  const high = s.levels[s.levels.length - 1]!;
  const now = price >= low && price <= high;
  if (s.inRange === now) return;
  if (!now)
    log(cx, 'warn', 'grid_out_of_range', { price, low, high, side: price > high ? 'above' : 'below' });
  else if (s.inRange === false) log(cx, 'info', 'grid_back_in_range', { price, low, high });
  s.inRange = now;
}

/** Whether slot `slot`'s next order may be placed now: not blocked, retry time over, and an opening
 *  order only on its side of the price (a buy below it, a sell above it). */
function slotDue(s: GridState, slot: GridSlot, ts: number): boolean {
  if (slot.order || slot.blocked) return false;
  if (slot.retryAt !== null && ts < slot.retryAt) return false;
  if (slot.open) return true;
  const price = s.lastPrice;
  if (price === null) return false;
  return slot.openSide === 'buy' ? price > buyPriceOf(s, slot) : price < sellPriceOf(s, slot);
}

function dueSlot(s: GridState, ts: number): number {
  const slots = s.slots;
  for (let i = 0; i < slots.length; i++) if (slotDue(s, slots[i]!, ts)) return i;
  return -1;
}

export function placeDue(cx: Cx): void {
  const s = cx.s;
  if (s.status !== 'running') return;
  for (const slot of s.slots) if (slotDue(s, slot, cx.ts)) placeSlotOrder(cx, slot);
}

/** Closing orders of a round carry reduceOnly on derivatives, except in a neutral grid (its position
 *  nets longs and shorts, so a closing leg may grow the net position). */
function reduceOnlyLegs(s: GridState): boolean {
  return s.config.derivatives && s.config.position !== 'neutral';
}

/** Places the slot's next order: its closing order when it holds a position, else its opening one. */
export function placeSlotOrder(cx: Cx, slot: GridSlot): void {
  const s = cx.s;
  const closing = slot.open !== null;
  const side: 'buy' | 'sell' = closing ? (slot.open!.side === 'buy' ? 'sell' : 'buy') : slot.openSide;
  const price = side === 'buy' ? buyPriceOf(s, slot) : sellPriceOf(s, slot);
  const amount = closing ? roundDownToStep(slot.open!.qty, s.config.market.amountStep) : slot.qty;
  const role: OrderRole = side === 'buy' ? 'grid_buy' : 'grid_sell';
  const level = side === 'buy' ? slot.index : slot.index + 1;
  const violation = gridMinViolation(s.config.market, amount, price);
  if (violation) {
    slot.blocked = true;
    logBelowMin(cx, role, violation, amount, price, { level });
    return;
  }
  const id = nextId(s);
  slot.order = { ...newOrderRef(id, {}, price, amount), side };
  slot.retryAt = null;
  const cmd: PlaceOrderCommand = {
    type: 'place_order',
    clientOrderId: id,
    side,
    orderType: 'limit',
    price,
    amount,
    role,
    level,
  };
  if (closing && reduceOnlyLegs(s)) cmd.reduceOnly = true;
  cx.places.push(cmd);
}

/** The first tick: the level nearest the price is left empty; slots below it buy, above it sell. */
function start(cx: Cx, price: number): void {
  own(cx);
  const s = cx.s;
  const c = s.config;
  const first = s.emptyLevel === null;
  const e = nearestLevel(s.levels, price);
  s.emptyLevel = e;
  if (first) {
    s.slots = [];
    for (let i = 0; i + 1 < s.levels.length; i++) {
      const below = i < e;
      const openSide: 'buy' | 'sell' =
        c.position === 'long' ? 'buy' : c.position === 'short' ? 'sell' : below ? 'buy' : 'sell';
      s.slots.push({
        index: i,
        qty: gridSlotQty(c, s.levels[i]!),
        openSide,
        open: null,
        order: null,
        blocked: false,
        retryAt: null,
      });
    }
    const low = s.levels[0]!;
    const high = s.levels[s.levels.length - 1]!;
    s.inRange = price >= low && price <= high;
    log(cx, 'info', 'started', {
      price,
      low,
      high,
      levels: s.levels.length,
      step_pct: c.stepPct,
      amount: c.amountPerLevel,
      position: c.position,
      empty_level: e,
    });
    if (!s.inRange)
      log(cx, 'warn', 'grid_out_of_range', { price, low, high, side: price > high ? 'above' : 'below' });
  }
  // The start market order: long buys the base of the slots above the empty level, short sells the
  // base of the slots below it.
  const initSlots = initSlotsOf(s);
  let total = 0n;
  for (const slot of initSlots) total += toDec(slot.qty);
  if (total === 0n) {
    s.status = 'running';
    placeDue(cx);
    return;
  }
  const amount = decToNumber(total);
  const side: 'buy' | 'sell' = c.position === 'long' ? 'buy' : 'sell';
  const violation = gridMinViolation(c.market, amount, price);
  if (violation) {
    logBelowMin(cx, 'grid_init', violation, amount, price);
    markStopped(cx, 'entry_failed');
    return;
  }
  const id = nextId(s);
  s.init = { ...newOrderRef(id, {}, price, amount), side };
  const cmd: PlaceOrderCommand = {
    type: 'place_order',
    clientOrderId: id,
    side,
    orderType: 'market',
    amount,
    role: 'grid_init',
  };
  if (side === 'buy') cmd.quoteAmount = Number(formatAmount(decToString(decMul(total, toDec(price))), 8));
  cx.places.push(cmd);
}

/** Slots whose position the start market order opens (nearest the empty level first). */
function initSlotsOf(s: GridState): GridSlot[] {
  const e = s.emptyLevel ?? 0;
  if (s.config.position === 'long') return s.slots.filter((sl) => sl.index >= e);
  if (s.config.position === 'short') return s.slots.filter((sl) => sl.index < e).reverse();
  return [];
}

/**
 * The start order filled `qty` at `price` paying `fee`: the base (or the short) goes to the slots it was
 * for, nearest the empty level first, each its whole qty with a share of the fee; a slot left without
 * (a partial fill) opens normally later. A remainder smaller than a slot is kept as profit base.
 */
export function initFilled(cx: Cx, qty: number, price: number, fee: number, id: string): void {
  const s = cx.s;
  const side = s.init!.side;
  s.init = null;
  const got = toDec(qty);
  let left = got;
  const feeD = toDec(fee);
  let feeLeft = feeD;
  const slots = initSlotsOf(s);
  for (let k = 0; k < slots.length; k++) {
    const slot = slots[k]!;
    const q = toDec(slot.qty);
    if (q === 0n || left < q) continue;
    left -= q;
    const share = got > 0n ? decDiv(decMul(feeD, q), got) : 0n;
    feeLeft -= share;
    // Each slot's own lot id (`${init id}:${slot}`): one history row per slot's round.
    slot.open = {
      side,
      qty: slot.qty,
      price,
      fee: decToNumber(share),
      ts: cx.ts,
      orderId: `${id}:${slot.index}`,
    };
  }
  if (left > 0n) s.profitBase = decToString(toDec(s.profitBase) + (side === 'buy' ? left : -left));
  // Rounding of the shares: what is left of the fee goes to the first slot served.
  if (feeLeft !== 0n) {
    const firstOpen = slots.find((sl) => sl.open && sl.open.orderId.startsWith(`${id}:`));
    if (firstOpen) firstOpen.open!.fee = decToNumber(toDec(firstOpen.open!.fee) + feeLeft);
  }
  log(cx, 'info', 'grid_init_filled', { side, qty, price, fee });
  if (s.status === 'starting') s.status = 'running';
}
