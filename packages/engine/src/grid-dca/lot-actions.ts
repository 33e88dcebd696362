/**
 * Grid Bot DCA: the pending-order actions on one lot (add funds, sell, forget, auto-fund; LOT_ACTIONS) and
 * the auto-fund steps a tick takes.
 */
import {
  DEC_SCALE,
  decDiv,
  decimalsOf,
  decMul,
  decToNumber,
  decToString,
  formatAmount,
  roundDownToStep,
  toDec,
} from '../money';
import type { DcaConfig, DcaLot, DcaLotBuy } from './types';
import { type ActionEvent, AUTO_FUND_MAX_STEPS, LOT_ACTIONS } from '../strategy';
import { positive } from './config';
import { type Cx, log, logBelowMin, newRef, nextId, own } from './context';
import { autoFundTrigger, isShort, minimumViolation } from './ladder';
import { openLot } from './lots';
import { afterOrderEvent } from './rebalance';
import { closeCommand } from './stopping';
import { hasLotBuy, lotBusy } from './summary';

/** The short name of each lot action in `lot_action_refused` logs (a Map: action names are outside input). */
const LOT_ACTION_LABELS = new Map<string, string>([
  [LOT_ACTIONS.addFunds, 'add_funds'],
  [LOT_ACTIONS.sell, 'sell'],
  [LOT_ACTIONS.forget, 'forget'],
  [LOT_ACTIONS.autoFund, 'auto_fund'],
]);

/** Decimals kept in the average entry price of a lot that funds were added to. */
function averageDecimals(config: DcaConfig): number {
  return Math.min(DEC_SCALE, Math.max(10, decimalsOf(config.market.priceStep) + 6));
}

function refuse(cx: Cx, name: string, lotId: string, reason: string): void {
  log(cx, 'warn', 'lot_action_refused', {
    lot_id: lotId,
    action: LOT_ACTION_LABELS.get(name) ?? name,
    reason,
  });
}

function lotIdParam(params: Record<string, unknown>): string | null {
  const v = params.lotId;
  return typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : null;
}

/** A stopped bot ignores every event, but a lot action sent to it is answered (refused). */
export function refuseWhenStopped(cx: Cx, e: ActionEvent): void {
  const params = e.params !== null && typeof e.params === 'object' ? e.params : {};
  const lotId = lotIdParam(params);
  if (LOT_ACTION_LABELS.has(e.name) && lotId !== null) refuse(cx, e.name, lotId, 'not_running');
}

/**
 * `{type:'action'}`: the LOT_ACTIONS (add funds, sell, forget, auto-fund on one open lot). Params are
 * outside input: a wrong one logs `invalid_value`; a lot that cannot take the action is left as it was
 * (`lot_action_refused`). Unknown names log `invalid_value` {field: 'action'}.
 */
export function onAction(cx: Cx, e: ActionEvent): void {
  const s = cx.s;
  const params = e.params !== null && typeof e.params === 'object' ? e.params : {};
  if (!LOT_ACTION_LABELS.has(e.name)) return log(cx, 'warn', 'invalid_value', { field: 'action' });
  const lotId = lotIdParam(params);
  if (lotId === null) return log(cx, 'warn', 'invalid_value', { field: 'lot_id' });
  const amount = params.amount;
  if (e.name === LOT_ACTIONS.addFunds && !positive(amount))
    return log(cx, 'warn', 'invalid_value', { field: 'amount' });
  const enabled = params.enabled;
  if (e.name === LOT_ACTIONS.autoFund && typeof enabled !== 'boolean')
    return log(cx, 'warn', 'invalid_value', { field: 'enabled' });

  if (s.status !== 'running') return refuse(cx, e.name, lotId, 'not_running');
  const current = s.lots.find((l) => l.id === lotId);
  if (!current) return refuse(cx, e.name, lotId, 'unknown_lot');
  if (e.name === LOT_ACTIONS.autoFund) {
    own(cx);
    const lot = s.lots.find((l) => l.id === lotId)!;
    lot.autoFund = enabled === true;
    log(cx, 'info', 'auto_fund_set', { lot_id: lotId, enabled: lot.autoFund ? 1 : 0 });
    return;
  }
  const busy = lotBusy(s, current);
  if (busy !== null) return refuse(cx, e.name, lotId, busy);
  if (s.lastPrice === null) return refuse(cx, e.name, lotId, 'no_price');

  own(cx);
  const lot = s.lots.find((l) => l.id === lotId)!;
  switch (e.name) {
    case LOT_ACTIONS.addFunds:
      placeFundsBuy(cx, lot, amount as number, null);
      break;
    case LOT_ACTIONS.sell:
      lot.action = 'sell';
      if (lot.tp) cancelTakeProfit(cx, lot);
      else placeUserSale(cx, lot);
      break;
    case LOT_ACTIONS.forget:
      lot.action = 'forget';
      if (lot.tp) cancelTakeProfit(cx, lot);
      else forgetLot(cx, lot);
      break;
  }
  afterOrderEvent(cx);
}

function cancelTakeProfit(cx: Cx, lot: DcaLot): void {
  if (!lot.tp || lot.tp.cancelling) return;
  lot.tp.cancelling = true;
  cx.cmds.push({ type: 'cancel_order', clientOrderId: lot.tp.clientOrderId });
}

/**
 * A market buy of `quote` (at the last price) to merge into `lot`; `step` is the auto-fund step, null for
 * the user's add funds. Below the market minimum nothing is sent (logged). Needs `own(cx)`.
 */
function placeFundsBuy(cx: Cx, lot: DcaLot, quote: number, step: number | null): void {
  const s = cx.s;
  const price = s.lastPrice!;
  const amount = roundDownToStep(quote / price, s.config.market.amountStep);
  const violation = minimumViolation(s.config, amount, price);
  if (violation) {
    if (step === null) logBelowMin(cx, 'add_funds', violation, amount, price, { lot_id: lot.id });
    else log(cx, 'warn', 'auto_fund_skipped', { lot_id: lot.id, step, reason: violation });
    return;
  }
  const short = isShort(s.config);
  if (step !== null) {
    const first = lot.firstPrice ?? lot.buyPrice;
    // Negative below the first entry (−10 at the first step), as the classic DCA logs it (SHORT: above).
    const move = short ? toDec(first) - toDec(price) : toDec(price) - toDec(first);
    const drawdown = decDiv(decMul(move, toDec(100)), toDec(first));
    log(cx, 'info', 'auto_fund', {
      lot_id: lot.id,
      step,
      drawdown_pct: Number(formatAmount(decToString(drawdown), 2)),
      amount: quote,
    });
  }
  const buy: DcaLotBuy = {
    ...newRef(nextId(s), price, amount),
    lotId: lot.id,
    epoch: lot.epoch,
    level: lot.level,
    auto: step !== null,
  };
  if (step !== null) buy.step = step;
  (s.lotBuys ??= []).push(buy);
  if (short) {
    // SHORT: the funds are a market sell merged into the lot.
    cx.places.push({
      type: 'place_order',
      clientOrderId: buy.clientOrderId,
      side: 'sell',
      orderType: 'market',
      amount,
      role: 'add_funds',
      lotId: lot.id,
    });
    return;
  }
  cx.places.push({
    type: 'place_order',
    clientOrderId: buy.clientOrderId,
    side: 'buy',
    orderType: 'market',
    amount,
    quoteAmount: quote,
    role: 'add_funds',
    lotId: lot.id,
  });
}

/**
 * A funds buy filled `qty` at `price` paying `fee`: merged into its lot (exact weighted average entry,
 * fees added) whose take profit is then moved (cancelled; the normal "lot without TP" path places the
 * new one at the new average × (1 + T) once the cancel is answered). When the lot is gone (it closed at
 * its take profit meanwhile) the fill opens a lot of its own, so nothing is lost.
 */
export function fundsFilled(cx: Cx, buy: DcaLotBuy, qty: number, price: number, fee: number): void {
  const s = cx.s;
  const lot = s.lots.find((l) => l.id === buy.lotId);
  if (!lot) {
    openLot(cx, buy.clientOrderId, buy.epoch, buy.level, qty, price, fee);
    return;
  }
  const q0 = toDec(lot.qty);
  const q1 = toDec(qty);
  const total = q0 + q1;
  const cost = decMul(q0, toDec(lot.buyPrice)) + decMul(q1, toDec(price));
  if (lot.firstPrice === undefined) lot.firstPrice = lot.buyPrice;
  lot.qty = decToNumber(total);
  lot.buyPrice = Number(formatAmount(decToString(decDiv(cost, total)), averageDecimals(s.config)));
  lot.buyFee = decToNumber(toDec(lot.buyFee) + toDec(fee));
  lot.tpBlocked = false;
  lot.tpRetryAt = null;
  log(cx, 'info', 'lot_funds_added', {
    lot_id: lot.id,
    amount: Number(formatAmount(decToString(decMul(q1, toDec(price))))),
    qty,
    price,
    fee,
    entry: lot.buyPrice,
  });
  cancelTakeProfit(cx, lot);
}

/** A funds buy ended without a fill (refused, or cancelled by the venue): logged, nothing else changes. */
export function fundsBuyFailed(cx: Cx, buy: DcaLotBuy, reason: string, message?: string): void {
  if (buy.auto && (reason === 'insufficient_funds' || reason === 'cancelled')) {
    log(cx, 'warn', 'auto_fund_skipped', { lot_id: buy.lotId, step: buy.step ?? 0, reason });
    return;
  }
  const params: Record<string, string | number> = { role: 'add_funds', reason, lot_id: buy.lotId };
  if (message) params.message = message.slice(0, 200);
  if (buy.step !== undefined) params.step = buy.step;
  log(cx, 'warn', reason === 'insufficient_funds' ? 'insufficient_funds' : 'order_rejected', params);
}

/** Once a lot being sold or forgotten has no take profit left on the venue: do it. */
export function settleLotAction(cx: Cx, lot: DcaLot): void {
  if (lot.tp || !lot.action || !cx.s.lots.includes(lot)) return;
  if (lot.action === 'forget') forgetLot(cx, lot);
  else if (!lot.close) placeUserSale(cx, lot);
}

/** Stops tracking the lot: no trade, the assets stay on the account and its ladder level is free. */
function forgetLot(cx: Cx, lot: DcaLot): void {
  cx.s.lots = cx.s.lots.filter((l) => l !== lot);
  log(cx, 'info', 'lot_forgotten', { lot_id: lot.id, qty: lot.qty, price: lot.buyPrice });
}

/** The user's market sale of a lot (role close); below the minimum it is logged and the lot kept. */
function placeUserSale(cx: Cx, lot: DcaLot): void {
  const s = cx.s;
  const price = s.lastPrice ?? lot.buyPrice;
  const amount = roundDownToStep(lot.qty, s.config.market.amountStep);
  const violation = minimumViolation(s.config, amount, price);
  if (violation) {
    lot.action = null;
    logBelowMin(cx, 'close', violation, amount, price, { lot_id: lot.id });
    return;
  }
  lot.close = newRef(nextId(s), price, amount);
  cx.places.push(closeCommand(s.config, lot.close.clientOrderId, amount, lot.id));
}

/**
 * Auto-fund on a tick of a running bot: each lot with it on, steps left and no action in flight takes
 * its next step k when the price is at or below firstPrice × (1 − AUTO_FUND_STEP_PCT × k / 100), one
 * step per lot per tick. Runs on every tick: without a lot with auto-fund on it only reads a flag per lot.
 */
export function autoFundTick(cx: Cx, price: number): void {
  const s = cx.s;
  for (let i = 0; i < s.lots.length; i++) {
    const l = s.lots[i]!;
    if (!l.autoFund) continue;
    const k = (l.autoFundSteps ?? 0) + 1;
    if (k > AUTO_FUND_MAX_STEPS || l.action || l.close || hasLotBuy(s, l.id)) continue;
    const short = isShort(s.config);
    const trigger = autoFundTrigger(l.firstPrice ?? l.buyPrice, k, short);
    if (short ? price < trigger : price > trigger) continue;
    own(cx);
    const lot = s.lots[i]!;
    lot.autoFundSteps = k;
    placeFundsBuy(cx, lot, s.config.amount, k);
  }
}
