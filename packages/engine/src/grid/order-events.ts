/**
 * Grid bot: the venue's answers about its orders (the start order, a slot's order, the profit buy, a
 * close): a filled level closes a round and arms the level beside it.
 */
import { decMul, decToNumber, decToString, roundDownToStep, toDec } from '../money';
import type { RejectReason } from '../strategy';
import { validFill } from '../shared/checks';
import { nextId } from '../shared/context';
import { log, rejectParams } from '../shared/logging';
import { newOrderRef } from '../shared/orders';
import { markStopped } from '../shared/stopping';
import type { GridOrderRef, GridSlot, GridState } from './types';
import { GRID_FIRST_BACKOFF_MS, GRID_MAX_BACKOFF_MS, GRID_MAX_CLOSE_ATTEMPTS, GRID_RETRY_MS } from './config';
import { type Cx, own } from './context';
import { gridMinViolation } from './levels';
import { closeSlot } from './rounds';
import { initFilled, placeDue, placeSlotOrder } from './slots';
import { closeFilled, continueStop } from './stopping';

type Found =
  | { kind: 'slot'; ref: GridOrderRef; slot: GridSlot }
  | { kind: 'init'; ref: GridOrderRef }
  | { kind: 'close'; ref: GridOrderRef }
  | { kind: 'profit'; ref: GridOrderRef };

function find(s: GridState, id: string): Found | null {
  if (s.init && s.init.clientOrderId === id) return { kind: 'init', ref: s.init };
  if (s.close && s.close.clientOrderId === id) return { kind: 'close', ref: s.close };
  if (s.profitBuy && s.profitBuy.clientOrderId === id) return { kind: 'profit', ref: s.profitBuy };
  for (const slot of s.slots)
    if (slot.order && slot.order.clientOrderId === id) return { kind: 'slot', ref: slot.order, slot };
  return null;
}

export function onPartial(cx: Cx, id: string, filled: number, price: number, fee: number): void {
  if (!find(cx.s, id) || !validFill(filled, price, fee)) return;
  own(cx);
  const f = find(cx.s, id)!;
  if (filled < f.ref.filled) return;
  f.ref.filled = filled;
  f.ref.avgPrice = price;
  f.ref.fee = fee;
}

export function onFilled(cx: Cx, id: string, amount: number, price: number, fee: number): void {
  if (!find(cx.s, id) || !validFill(amount, price, fee)) return;
  own(cx);
  const s = cx.s;
  const f = find(s, id)!;
  switch (f.kind) {
    case 'init':
      if (amount > 0) initFilled(cx, amount, price, fee, id);
      else {
        s.init = null;
        if (s.status === 'starting') s.status = 'running';
      }
      break;
    case 'slot':
      f.slot.order = null;
      if (amount > 0) slotFilled(cx, f.slot, f.ref, amount, price, fee);
      break;
    case 'profit':
      s.profitBuy = null;
      profitBought(cx, amount, price, fee);
      break;
    case 'close':
      s.close = null;
      closeFilled(cx, f.ref, amount, price, fee, true);
      break;
  }
  afterOrderEvent(cx);
}

/**
 * A slot's order filled `qty`: an opening fill opens the slot's position (its closing order goes one
 * level away); a closing fill completes the round (a trade) and re-arms the opening order.
 */
function slotFilled(
  cx: Cx,
  slot: GridSlot,
  ref: GridOrderRef,
  qty: number,
  price: number,
  fee: number,
): void {
  const s = cx.s;
  const level = ref.side === 'buy' ? slot.index : slot.index + 1;
  log(cx, 'info', 'grid_order_filled', { side: ref.side, level, qty, price, fee });
  if (!slot.open) {
    slot.open = { side: ref.side, qty, price, fee, ts: cx.ts, orderId: ref.clientOrderId };
  } else {
    closeSlot(cx, slot, qty, price, fee, ref.clientOrderId);
    if (s.config.profitCurrency === 'base') maybeBuyProfit(cx);
  }
  // The opposite order one level away, at once: the fill shows the market is on its side (the last
  // tick may not say so yet).
  if (
    s.status === 'running' &&
    !slot.order &&
    !slot.blocked &&
    (slot.retryAt === null || cx.ts >= slot.retryAt)
  )
    placeSlotOrder(cx, slot);
}

/** profitCurrency base: the collected profit is spent on base at market once it reaches the minimum. */
function maybeBuyProfit(cx: Cx): void {
  const s = cx.s;
  if (s.profitBuy || s.status !== 'running' || s.lastPrice === null) return;
  const quote = toDec(s.profitQuote);
  if (quote <= 0n) return;
  const price = s.lastPrice;
  const amount = roundDownToStep(decToNumber(quote) / price, s.config.market.amountStep);
  // Below the minimum the profit waits for the next rounds (no log: it is not an order the user expects).
  if (gridMinViolation(s.config.market, amount, price)) return;
  const id = nextId(s);
  s.profitBuy = { ...newOrderRef(id, {}, price, amount), side: 'buy' };
  cx.places.push({
    type: 'place_order',
    clientOrderId: id,
    side: 'buy',
    orderType: 'market',
    amount,
    quoteAmount: decToNumber(quote),
    role: 'grid_buy',
  });
}

function profitBought(cx: Cx, qty: number, price: number, fee: number): void {
  const s = cx.s;
  if (qty <= 0) return;
  const spent = decMul(toDec(qty), toDec(price)) + toDec(fee);
  const left = toDec(s.profitQuote) - spent;
  s.profitQuote = decToString(left > 0n ? left : 0n);
  s.profitBase = decToString(toDec(s.profitBase) + toDec(qty));
  log(cx, 'info', 'grid_profit_bought', { qty, price, fee, profit_base: s.profitBase });
}

export function onCancelled(cx: Cx, id: string, filled?: number, price?: number, fee?: number): void {
  if (!find(cx.s, id)) return;
  own(cx);
  const s = cx.s;
  const f = find(s, id)!;
  if (filled !== undefined && validFill(filled, price ?? 0, fee ?? 0) && filled >= f.ref.filled) {
    f.ref.filled = filled;
    f.ref.avgPrice = price ?? f.ref.avgPrice;
    f.ref.fee = fee ?? f.ref.fee;
  }
  const { filled: got, avgPrice, fee: paid } = f.ref;
  switch (f.kind) {
    case 'init':
      if (got > 0) initFilled(cx, got, avgPrice, paid, id);
      else {
        s.init = null;
        if (s.status === 'starting') {
          log(cx, 'warn', 'order_rejected', { role: 'grid_init', reason: 'cancelled' });
          bumpInitBackoff(s, cx.ts);
        }
      }
      break;
    case 'slot': {
      const slot = f.slot;
      slot.order = null;
      if (got > 0) {
        if (slot.open) closeSlot(cx, slot, got, avgPrice, paid, id);
        else slot.open = { side: f.ref.side, qty: got, price: avgPrice, fee: paid, ts: cx.ts, orderId: id };
      }
      if (!f.ref.cancelling && s.status === 'running') {
        // The venue cancelled it: placed again after a pause.
        slot.retryAt = cx.ts + GRID_RETRY_MS;
        log(cx, 'warn', 'order_rejected', {
          role: f.ref.side === 'buy' ? 'grid_buy' : 'grid_sell',
          reason: 'cancelled',
          level: f.ref.side === 'buy' ? slot.index : slot.index + 1,
          price: f.ref.price,
          retry_in_s: GRID_RETRY_MS / 1000,
        });
      }
      break;
    }
    case 'profit':
      s.profitBuy = null;
      if (got > 0) profitBought(cx, got, avgPrice, paid);
      break;
    case 'close':
      s.close = null;
      if (got > 0) closeFilled(cx, f.ref, got, avgPrice, paid, false);
      log(cx, 'warn', 'close_failed', {
        reason: 'cancelled',
        attempt: s.closeAttempts,
        max_attempts: GRID_MAX_CLOSE_ATTEMPTS,
      });
      break;
  }
  afterOrderEvent(cx);
}

function bumpInitBackoff(s: GridState, ts: number): void {
  if (s.initRetryAt !== null && ts < s.initRetryAt) return;
  s.initBackoffMs =
    s.initBackoffMs > 0 ? Math.min(GRID_MAX_BACKOFF_MS, s.initBackoffMs * 2) : GRID_FIRST_BACKOFF_MS;
  s.initRetryAt = ts + s.initBackoffMs;
}

export function onRejected(cx: Cx, id: string, reason: RejectReason, message?: string): void {
  if (!find(cx.s, id)) return;
  own(cx);
  const s = cx.s;
  const f = find(s, id)!;
  const permanent = reason === 'min_cost' || reason === 'precision';
  const code =
    reason === 'insufficient_funds'
      ? 'insufficient_funds'
      : permanent && reason === 'min_cost'
        ? 'below_min_cost'
        : 'order_rejected';
  switch (f.kind) {
    case 'init': {
      s.init = null;
      const params = rejectParams({ role: 'grid_init', reason }, message);
      if (permanent) {
        log(cx, 'warn', code, params);
        if (s.status === 'starting') markStopped(cx, 'entry_failed');
      } else {
        bumpInitBackoff(s, cx.ts);
        params.retry_in_s = Math.round(s.initBackoffMs / 1000);
        log(cx, 'warn', code, params);
      }
      break;
    }
    case 'slot': {
      const slot = f.slot;
      slot.order = null;
      const params = rejectParams(
        {
          role: f.ref.side === 'buy' ? 'grid_buy' : 'grid_sell',
          reason,
          level: f.ref.side === 'buy' ? slot.index : slot.index + 1,
          price: f.ref.price,
        },
        message,
      );
      if (permanent) slot.blocked = true;
      else {
        slot.retryAt = cx.ts + GRID_RETRY_MS;
        params.retry_in_s = GRID_RETRY_MS / 1000;
      }
      log(cx, 'warn', code, params);
      break;
    }
    case 'profit':
      s.profitBuy = null;
      log(cx, 'warn', code, rejectParams({ role: 'grid_buy', reason, profit_quote: s.profitQuote }, message));
      break;
    case 'close':
      s.close = null;
      if (reason !== 'exchange_error' && reason !== 'unknown') s.closeAttempts = GRID_MAX_CLOSE_ATTEMPTS;
      log(cx, 'warn', 'close_failed', {
        ...rejectParams({ reason }, message),
        attempt: s.closeAttempts,
        max_attempts: GRID_MAX_CLOSE_ATTEMPTS,
      });
      break;
  }
  afterOrderEvent(cx);
}

function afterOrderEvent(cx: Cx): void {
  const s = cx.s;
  if (s.status === 'running') placeDue(cx);
  else if (s.status === 'stopping') continueStop(cx);
}
