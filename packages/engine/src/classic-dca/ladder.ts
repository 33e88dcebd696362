/**
 * Classic DCA: the running invariant (reconcile): the waiting phase and base order, the safety orders
 * below the average, and the one take profit on the position.
 */
import { decDiv, decToNumber, roundDownToStep, toDec } from '../money';
import { backoffOver, due } from '../shared/backoff';
import { nextId } from '../shared/context';
import { log, logBelowMin } from '../shared/logging';
import { limitOrder } from '../shared/orders';
import { markStopped } from '../shared/stopping';
import { keepResidual } from './cycles';
import { continueLotAction } from './lot-actions';
import { type Cx, newRef, ownOrders, placeMarketBuy } from './orders';
import {
  classicLevelPrice,
  classicMinViolation,
  classicTakeProfit,
  findOrder,
  hasMarketBuy,
  safetyAt,
  tradableQty,
  trendCheck,
  unfilled,
} from './position';

export function reconcile(cx: Cx): void {
  const s = cx.s;
  if (s.buyRetryAt !== null && cx.ts >= s.buyRetryAt) s.buyRetryAt = null;
  if (s.cycleOpen && s.lotBusy) {
    continueLotAction(cx);
    if (s.cycleOpen && s.lotBusy) return; // waiting for the cancels, or for the sale
  }
  if (!s.cycleOpen) {
    waitingPhase(cx);
    return;
  }
  if (s.entry === null) return; // the base order is on its way
  placeSafeties(cx);
  if (!hasMarketBuy(s)) takeProfit(cx);
}

/** No cycle is open: once every order is answered, stop (r off), adopt a late fill, or start a cycle. */
function waitingPhase(cx: Cx): void {
  const s = cx.s;
  if (s.orders.length > 0) return;
  if (s.cycles > 0 && !s.config.r) {
    keepResidual(cx);
    markStopped(cx, 'cycle_done');
    return;
  }
  if (tradableQty(s) > 0) {
    // A buy cancelled at the cycle's close filled first: it opens the next cycle.
    const q = toDec(s.position.qty);
    s.cycleOpen = true;
    s.entry = decToNumber(decDiv(toDec(s.position.quote), q));
    log(cx, 'info', 'cycle_adopted', { cycle: s.cycle, qty: s.position.qty, price: s.entry });
    reconcile(cx);
    return;
  }
  const price = s.lastPrice;
  if (price === null || s.buyRetryAt !== null) return;
  if (s.config.trendFilter) {
    const t = trendCheck(s);
    if (t.state === 'warming') {
      if ((s.trendLogged & 1) === 0) {
        s.trendLogged |= 1;
        log(cx, 'info', 'trend_warming', { have: s.candles.length, need: s.config.maPeriod });
      }
      return;
    }
    if (t.state === 'wait') {
      if ((s.trendLogged & 2) === 0) {
        s.trendLogged |= 2;
        log(cx, 'info', 'trend_wait', { close: t.close, ma: round12(t.ma) });
      }
      return;
    }
    log(cx, 'info', 'trend_ok', { close: t.close, ma: round12(t.ma) });
  }
  placeBase(cx, price);
}

function round12(x: number): number {
  return Number(x.toPrecision(12));
}

function placeBase(cx: Cx, price: number): void {
  const s = cx.s;
  const c = s.config;
  const amount = roundDownToStep(c.amount / price, c.market.amountStep);
  const violation = classicMinViolation(c.market, amount, price);
  if (violation) {
    logBelowMin(cx, 'base', violation, amount, price, { cycle: s.cycle });
    keepResidual(cx);
    markStopped(cx, 'entry_failed');
    return;
  }
  s.cycleOpen = true;
  log(cx, 'info', 'cycle_started', { cycle: s.cycle, price, amount: c.amount });
  placeMarketBuy(cx, 'base', c.amount, amount, price);
}

/** Safety limit buys on every level that is not resting, filled (unless re-armed) or skipped. */
function placeSafeties(cx: Cx): void {
  const s = cx.s;
  const c = s.config;
  const entry = s.entry!;
  const canBuy = backoffOver(s, cx.ts);
  if (!canBuy) return;
  for (let k = 1; k <= c.os; k++) {
    if (safetyAt(s, k) || s.skippedLevels.includes(k)) continue;
    const price = classicLevelPrice(c, entry, k);
    if (s.filledLevels.includes(k)) {
      if (!c.rOs || s.lastPrice === null || !(s.lastPrice > price)) continue;
      s.filledLevels = s.filledLevels.filter((x) => x !== k);
      log(cx, 'info', 'safety_rearmed', { level: k, price });
    }
    const amount = roundDownToStep(c.amount / price, c.market.amountStep);
    const violation = price > 0 ? classicMinViolation(c.market, amount, price) : 'zero_amount';
    if (violation) {
      s.skippedLevels = [...s.skippedLevels, k];
      logBelowMin(cx, 'safety', violation, amount, price, { level: k });
      continue;
    }
    ownOrders(cx);
    const ref = newRef(nextId(s), 'safety', 'buy', false, price, amount);
    ref.level = k;
    s.orders.push(ref);
    cx.places.push(limitOrder(ref.clientOrderId, 'buy', price, amount, 'safety', { level: k }));
  }
}

/** One take profit for the whole position at the current average; moved by cancel-then-place. */
function takeProfit(cx: Cx): void {
  const s = cx.s;
  const desired = classicTakeProfit(s);
  const tp = findOrder(s, 'take_profit');
  if (tp) {
    if (tp.cancelling) return;
    const remaining = unfilled(tp);
    if (desired && tp.price === desired.price && remaining === desired.amount) return;
    ownOrders(cx);
    const own = findOrder(s, 'take_profit')!;
    own.cancelling = true;
    cx.cmds.push({ type: 'cancel_order', clientOrderId: own.clientOrderId });
    return;
  }
  if (!desired || s.tpBlocked || findOrder(s, 'close')) return;
  if (!due(s.tpRetryAt, cx.ts)) return;
  s.tpRetryAt = null;
  const violation = classicMinViolation(s.config.market, desired.amount, desired.price);
  if (violation) {
    s.tpBlocked = true;
    logBelowMin(cx, 'take_profit', violation, desired.amount, desired.price, { cycle: s.cycle });
    return;
  }
  ownOrders(cx);
  const ref = newRef(nextId(s), 'take_profit', 'sell', false, desired.price, desired.amount);
  s.orders.push(ref);
  const lotId = `${s.botId}-c${s.cycle}`;
  cx.places.push(
    limitOrder(ref.clientOrderId, 'sell', desired.price, desired.amount, 'take_profit', { lotId }),
  );
}
