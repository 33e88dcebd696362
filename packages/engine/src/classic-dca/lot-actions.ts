/**
 * Classic DCA: its actions (add funds, r / r_os, TP VNC) and the pending-order actions on its one position
 * (LOT_ACTIONS: add funds, sell, forget, auto-fund), with the auto-fund steps a tick takes.
 */
import { decDiv, decToNumber, roundDownToStep, toDec } from '../money';
import { AUTO_FUND_MAX_STEPS, LOT_ACTIONS } from '../strategy';
import { backoffOver } from '../shared/backoff';
import { positive } from '../shared/checks';
import { nextId } from '../shared/context';
import { log, logBelowMin } from '../shared/logging';
import { closeOrder } from '../shared/orders';
import { TP_VNC_OPTIONS, ZERO_POSITION } from './config';
import { closeCycle } from './cycles';
import { cancelResting, type Cx, newRef, ownOrders, placeMarketBuy } from './orders';
import {
  autoFundTriggered,
  classicMinViolation,
  classicPositionId,
  hasMarketBuy,
  holdsPosition,
  positionBusy,
  tradableQty,
} from './position';

export function onAction(cx: Cx, name: string, params: Record<string, unknown>): boolean {
  const s = cx.s;
  const p = params && typeof params === 'object' ? params : {};
  switch (name) {
    case 'add_funds':
      return addFunds(cx, p.amount);
    case LOT_ACTIONS.addFunds:
    case LOT_ACTIONS.sell:
    case LOT_ACTIONS.forget:
    case LOT_ACTIONS.autoFund:
      return onLotAction(cx, name, p);
    case 'set_r':
    case 'set_r_os': {
      if (typeof p.enabled !== 'boolean') {
        log(cx, 'warn', 'invalid_value', { field: 'enabled' });
        return false;
      }
      if (name === 'set_r') s.config = { ...s.config, r: p.enabled };
      else s.config = { ...s.config, rOs: p.enabled };
      log(cx, 'info', name === 'set_r' ? 'r_set' : 'r_os_set', { enabled: p.enabled ? 1 : 0 });
      return true;
    }
    case 'set_tp_vnc': {
      if (typeof p.pct !== 'number' || !TP_VNC_OPTIONS.includes(p.pct)) {
        log(cx, 'warn', 'invalid_value', { field: 'pct' });
        return false;
      }
      s.config = { ...s.config, tpVncPct: p.pct };
      log(cx, 'info', 'tp_vnc_set', { pct: p.pct });
      return true;
    }
    default:
      log(cx, 'warn', 'invalid_value', { field: 'action' });
      return false;
  }
}

/** `add_funds` (and LOT_ACTIONS.addFunds): a market buy of `amount` quote merged into the position. */
function addFunds(cx: Cx, amount: unknown): boolean {
  const s = cx.s;
  const price = s.lastPrice;
  if (
    !positive(amount) ||
    amount > 1e12 ||
    s.status !== 'running' ||
    !s.cycleOpen ||
    s.entry === null ||
    price === null ||
    s.lotBusy
  ) {
    log(cx, 'warn', 'invalid_value', { field: 'amount' });
    return false;
  }
  const qty = roundDownToStep(amount / price, s.config.market.amountStep);
  const violation = classicMinViolation(s.config.market, qty, price);
  if (violation) {
    logBelowMin(cx, 'add_funds', violation, qty, price);
    return false;
  }
  log(cx, 'info', 'add_funds', { amount, price });
  placeMarketBuy(cx, 'add_funds', amount, qty, price);
  return true;
}

/**
 * The LOT_ACTIONS on the position (`lotId` = classicPositionId). Bad params log `invalid_value`; a lot
 * that is not the current position, a bot not running, no position or an action in flight log
 * `lot_action_refused` {lot_id, action, reason: unknown_lot | not_running | not_in_position | busy}.
 * Either way nothing changes.
 */
function onLotAction(cx: Cx, name: string, p: Record<string, unknown>): boolean {
  const s = cx.s;
  const lotId = p.lotId;
  if (typeof lotId !== 'string' || !lotId) {
    log(cx, 'warn', 'invalid_value', { field: 'lotId' });
    return false;
  }
  if (name === LOT_ACTIONS.addFunds && (!positive(p.amount) || p.amount > 1e12)) {
    log(cx, 'warn', 'invalid_value', { field: 'amount' });
    return false;
  }
  if (name === LOT_ACTIONS.autoFund && typeof p.enabled !== 'boolean') {
    log(cx, 'warn', 'invalid_value', { field: 'enabled' });
    return false;
  }
  const refuse = (reason: string): false => {
    log(cx, 'warn', 'lot_action_refused', { lot_id: lotId, action: name, reason });
    return false;
  };
  if (lotId !== classicPositionId(s)) return refuse('unknown_lot');
  if (s.status !== 'running') return refuse('not_running');
  if (!holdsPosition(s)) return refuse('not_in_position');
  if (positionBusy(s) !== null) return refuse('busy');
  switch (name) {
    case LOT_ACTIONS.addFunds:
      return addFunds(cx, p.amount);
    case LOT_ACTIONS.autoFund:
      s.autoFund = p.enabled === true;
      log(cx, 'info', 'auto_fund_set', { lot_id: lotId, enabled: s.autoFund ? 1 : 0 });
      return true;
    case LOT_ACTIONS.sell: {
      const amount = tradableQty(s);
      const price = s.lastPrice ?? s.entry!;
      const violation = classicMinViolation(s.config.market, amount, price);
      if (violation) return refuse(violation);
      s.lotBusy = 'selling';
      log(cx, 'info', 'lot_selling', { lot_id: lotId, qty: amount, price });
      cancelResting(cx);
      return true;
    }
    case LOT_ACTIONS.forget:
    default:
      s.lotBusy = 'deleting';
      cancelResting(cx);
      return true;
  }
}

/**
 * A user's sale or forget, once every order of the cycle is answered (market buys filled, the rest
 * cancelled): the sale sends its market sell of the whole tradable qty; the forget drops the position and
 * ends the cycle. A sale that cannot be sent any more (below the minimum now) fails: `close_failed`, and
 * the take profit and safety buys are placed again.
 */
export function continueLotAction(cx: Cx): void {
  const s = cx.s;
  if (s.orders.length > 0) return;
  if (s.lotBusy === 'deleting') {
    forgetPosition(cx);
    closeCycle(cx);
    return;
  }
  const amount = tradableQty(s);
  if (!(amount > 0)) {
    closeCycle(cx);
    return;
  }
  const lotId = classicPositionId(s);
  const price = s.lastPrice ?? s.entry ?? 0;
  const violation = classicMinViolation(s.config.market, amount, price);
  if (violation) {
    s.lotBusy = null;
    log(cx, 'warn', 'close_failed', { lot_id: lotId, reason: violation });
    return;
  }
  ownOrders(cx);
  const ref = newRef(nextId(s), 'close', 'sell', true, price, amount);
  s.orders.push(ref);
  cx.places.push(closeOrder(ref.clientOrderId, amount, lotId));
}

/** Drops the position from tracking without a trade (its base stays on the account). */
export function forgetPosition(cx: Cx): void {
  const s = cx.s;
  const held = toDec(s.position.qty);
  log(cx, 'info', 'lot_forgotten', {
    lot_id: classicPositionId(s),
    qty: decToNumber(held),
    price: held > 0n ? decToNumber(decDiv(toDec(s.position.quote), held)) : 0,
  });
  s.position = ZERO_POSITION;
  s.lotBusy = null;
}

/** The user's market sell of the position answered: sold, the cycle closes as at its take profit. */
export function saleSettled(cx: Cx, filled: boolean): void {
  const s = cx.s;
  if (tradableQty(s) === 0) {
    closeCycle(cx);
    return;
  }
  s.lotBusy = null;
  log(cx, 'warn', 'close_failed', {
    lot_id: classicPositionId(s),
    reason: filled ? 'partial' : 'cancelled',
  });
}

/**
 * Auto-fund on a tick: in a position with auto-fund on, nothing in flight and buys not paused, step
 * k = autoFundSteps + 1 (≤ AUTO_FUND_MAX_STEPS) triggers at price ≤ entry × (1 − 10 % × k). The step is
 * used whether it buys (a market buy of `amount` quote, as add_funds) or is skipped (below the minimum
 * here, refused by the venue later). At most one step per tick.
 */
export function autoFundTick(cx: Cx, price: number): void {
  const s = cx.s;
  if (!s.autoFund || s.lotBusy || !s.cycleOpen || s.entry === null) return;
  const k = (s.autoFundSteps ?? 0) + 1;
  if (k > AUTO_FUND_MAX_STEPS || !autoFundTriggered(s.entry, k, price)) return;
  if (hasMarketBuy(s) || !backoffOver(s, cx.ts) || !(tradableQty(s) > 0)) return;
  s.autoFundSteps = k;
  const c = s.config;
  const lotId = classicPositionId(s);
  const qty = roundDownToStep(c.amount / price, c.market.amountStep);
  const violation = classicMinViolation(c.market, qty, price);
  if (violation) {
    log(cx, 'warn', 'auto_fund_skipped', { lot_id: lotId, step: k, reason: violation });
    return;
  }
  const drawdown = Number((((price - s.entry) / s.entry) * 100).toFixed(2));
  log(cx, 'info', 'auto_fund', { lot_id: lotId, step: k, drawdown_pct: drawdown, amount: c.amount });
  placeMarketBuy(cx, 'add_funds', c.amount, qty, price, k);
}
