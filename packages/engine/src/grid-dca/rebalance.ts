/**
 * Grid Bot DCA: the ladder invariant (rebalance: a take profit for every lot, waiting buys on the N highest
 * free levels below the price), relocation, and what follows every order event.
 */
import { roundDownToStep } from '../money';
import type { DcaLot } from './types';
import type { PlaceOrderCommand } from '../strategy';
import { DCA_MAX_OPEN_ORDERS } from './config';
import { backoffOver, type Cx, log, logBelowMin, newRef, nextId, own, ownBuys } from './context';
import {
  buyAmountAt,
  exitSide,
  firstLevelBelow,
  isShort,
  ladderOf,
  ladderSlots,
  MAX_LEVEL_WALK,
  minimumViolation,
  priceAt,
  takeProfitPrice,
} from './ladder';
import { continueStop } from './stopping';

/**
 * Restores the invariant: take profits for every lot; waiting buys on the N highest free levels strictly
 * below the price. Buys at or above the price ("crossed": the venue is filling them) are kept and count
 * toward N. Levels held by a lot or by a buy being cancelled are not free.
 */
export function rebalance(cx: Cx): void {
  const s = cx.s;
  if (s.status !== 'running' || s.anchor === null || s.lastPrice === null) return;
  const price = s.lastPrice;

  // 1. Take profits missing (read-only decisions first; copies are made only when something changes).
  const needTp: string[] = [];
  for (const lot of s.lots) {
    // A lot the user is selling or forgetting gets no take profit.
    if (lot.tp || lot.close || lot.tpBlocked || lot.action) continue;
    if (lot.tpRetryAt !== null && cx.ts < lot.tpRetryAt) continue;
    needTp.push(lot.id);
  }

  // 2. Ladder.
  const active = s.waitingBuys.filter((w) => !w.cancelling);
  const up = isShort(s.config);
  // A waiting order the price reached (a buy at or above it; SHORT: a sell at or below it).
  const reached = (p: number) => (up ? p <= price : p >= price);
  let crossed = 0;
  for (const w of active) if (reached(w.price)) crossed += 1;
  const slots = ladderSlots(s, crossed);
  const capped = DCA_MAX_OPEN_ORDERS - s.lots.length < s.config.os;
  const held = new Set<number>();
  for (const lot of s.lots) if (lot.epoch === s.epoch) held.add(lot.level);
  for (const w of s.waitingBuys) if (w.cancelling && w.epoch === s.epoch) held.add(w.level);

  const ladder = ladderOf(s)!;
  const desired: { level: number; price: number }[] = [];
  const k0 = firstLevelBelow(ladder, price);
  s.ladderK = k0;
  let k = k0;
  let prev = up ? 0 : Number.POSITIVE_INFINITY;
  for (let walked = 0; desired.length < slots && walked < MAX_LEVEL_WALK; walked++, k++) {
    const p = priceAt(ladder, k);
    if (!(p > 0)) break;
    // Not below the price, or same rounded price as the level above (SHORT: mirrored).
    if (up ? p <= price || p <= prev : p >= price || p >= prev) continue;
    prev = p;
    if (held.has(k)) continue;
    desired.push({ level: k, price: p });
  }

  const toCancel: string[] = [];
  const armed = new Set<number>();
  for (const w of active) {
    if (reached(w.price)) continue;
    if (w.epoch === s.epoch && desired.some((d) => d.level === w.level)) {
      armed.add(w.level);
      continue;
    }
    toCancel.push(w.clientOrderId);
  }
  const canBuy = backoffOver(s, cx.ts);
  const toPlace = canBuy
    ? desired.filter((d) => !armed.has(d.level) && !s.skippedLevels.includes(d.level))
    : [];
  if (capped !== (s.orderCapped ?? false)) {
    s.orderCapped = capped;
    if (capped) log(cx, 'warn', 'order_cap', { max: DCA_MAX_OPEN_ORDERS, lots: s.lots.length });
  }
  if (needTp.length === 0 && toCancel.length === 0 && toPlace.length === 0) return;

  // Take profits change lots; ladder orders only the waiting buys (ownBuys).
  if (needTp.length > 0) own(cx);
  else ownBuys(cx);
  for (const id of needTp) {
    const lot = s.lots.find((l) => l.id === id);
    if (lot) placeTakeProfit(cx, lot);
  }
  for (const id of toCancel) {
    const w = s.waitingBuys.find((x) => x.clientOrderId === id);
    if (!w) continue;
    w.cancelling = true;
    cx.cmds.push({ type: 'cancel_order', clientOrderId: id });
  }
  for (const d of toPlace) placeLadderBuy(cx, d.level, d.price);
}

function placeLadderBuy(cx: Cx, level: number, price: number): void {
  const s = cx.s;
  const amount = buyAmountAt(s.config, price);
  const violation = minimumViolation(s.config, amount, price);
  if (violation) {
    s.skippedLevels.push(level);
    logBelowMin(cx, 'ladder_buy', violation, amount, price, { level });
    return;
  }
  const ref = newRef(nextId(s), price, amount);
  s.waitingBuys.push({ ...ref, epoch: s.epoch, level });
  cx.places.push({
    type: 'place_order',
    clientOrderId: ref.clientOrderId,
    side: isShort(s.config) ? 'sell' : 'buy',
    orderType: 'limit',
    price,
    amount,
    role: 'ladder_buy',
    level,
  });
}

function placeTakeProfit(cx: Cx, lot: DcaLot): void {
  const s = cx.s;
  const price = takeProfitPrice(s.config, lot.buyPrice);
  const amount = roundDownToStep(lot.qty, s.config.market.amountStep);
  const violation = minimumViolation(s.config, amount, price);
  if (violation) {
    lot.tpBlocked = true;
    logBelowMin(cx, 'take_profit', violation, amount, price, { lot_id: lot.id });
    return;
  }
  lot.tp = newRef(nextId(s), price, amount);
  lot.tpRetryAt = null;
  const cmd: PlaceOrderCommand = {
    type: 'place_order',
    clientOrderId: lot.tp.clientOrderId,
    side: exitSide(s.config),
    orderType: 'limit',
    price,
    amount,
    role: 'take_profit',
    lotId: lot.id,
  };
  if (s.config.derivatives) cmd.reduceOnly = true;
  cx.places.push(cmd);
}

// --- relocation ----------------------------------------------------------------------------------------

export function relocate(cx: Cx, code: 'relocated' | 'ra_relocated'): void {
  own(cx);
  const s = cx.s;
  if (s.status !== 'running' || s.lastPrice === null) {
    log(cx, 'warn', 'relocate_skipped', { reason: s.lastPrice === null ? 'no_price' : 'not_running' });
    return;
  }
  for (const w of s.waitingBuys) {
    if (w.cancelling) continue;
    w.cancelling = true;
    cx.cmds.push({ type: 'cancel_order', clientOrderId: w.clientOrderId });
  }
  const previous = s.anchor ?? 0;
  s.anchor = s.lastPrice;
  s.epoch += 1;
  s.ladderK = null;
  s.skippedLevels = [];
  s.inRange = true;
  log(cx, 'info', code, { previous, anchor: s.anchor, price: s.lastPrice });
  rebalance(cx);
}

export function afterOrderEvent(cx: Cx): void {
  if (cx.s.status === 'running') rebalance(cx);
  else if (cx.s.status === 'stopping') continueStop(cx);
}
