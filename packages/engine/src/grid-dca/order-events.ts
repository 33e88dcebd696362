/**
 * Grid Bot DCA: the venue's answers about its orders (filled, partially filled, cancelled, rejected),
 * matched to the entry, a waiting buy, a lot's take profit or close, or a funds buy.
 */
import type { DcaLot, DcaLotBuy, DcaOrderRef, DcaState, DcaWaitingBuy } from './types';
import type { RejectReason } from '../strategy';
import { DCA_MAX_CLOSE_ATTEMPTS, DCA_TP_RETRY_MS, nonNegative } from './config';
import { bumpBackoff, type Cx, log, own, ownBuys, resetBackoff } from './context';
import { fundsBuyFailed, fundsFilled, settleLotAction } from './lot-actions';
import { openLot, sellLot } from './lots';
import { afterOrderEvent } from './rebalance';
import { finishStop } from './stopping';

type Found =
  | { kind: 'entry'; ref: DcaOrderRef }
  | { kind: 'buy'; ref: DcaWaitingBuy; index: number }
  | { kind: 'tp'; ref: DcaOrderRef; lot: DcaLot }
  | { kind: 'close'; ref: DcaOrderRef; lot: DcaLot }
  | { kind: 'lotBuy'; ref: DcaLotBuy; index: number };

function find(s: DcaState, id: string): Found | null {
  if (s.entry && s.entry.clientOrderId === id) return { kind: 'entry', ref: s.entry };
  const index = s.waitingBuys.findIndex((w) => w.clientOrderId === id);
  if (index >= 0) return { kind: 'buy', ref: s.waitingBuys[index]!, index };
  const lotBuys = s.lotBuys;
  if (lotBuys) {
    for (let i = 0; i < lotBuys.length; i++)
      if (lotBuys[i]!.clientOrderId === id) return { kind: 'lotBuy', ref: lotBuys[i]!, index: i };
  }
  for (const lot of s.lots) {
    if (lot.tp && lot.tp.clientOrderId === id) return { kind: 'tp', ref: lot.tp, lot };
    if (lot.close && lot.close.clientOrderId === id) return { kind: 'close', ref: lot.close, lot };
  }
  return null;
}

function validFill(amount: unknown, price: unknown, fee: unknown): boolean {
  return nonNegative(amount) && nonNegative(price) && nonNegative(fee);
}

export function onPartial(cx: Cx, id: string, filled: number, price: number, fee: number): void {
  own(cx);
  const f = find(cx.s, id);
  if (!f || !validFill(filled, price, fee)) return;
  if (filled < f.ref.filled) return; // stale update
  f.ref.filled = filled;
  f.ref.avgPrice = price;
  f.ref.fee = fee;
}

export function onFilled(cx: Cx, id: string, amount: number, price: number, fee: number): void {
  own(cx);
  const s = cx.s;
  const f = find(s, id);
  if (!f || !validFill(amount, price, fee)) return;
  switch (f.kind) {
    case 'entry':
      s.entry = null;
      if (amount > 0) openLot(cx, id, s.epoch, 0, amount, price, fee);
      if (s.status === 'starting') s.status = 'running';
      break;
    case 'buy':
      s.waitingBuys.splice(f.index, 1);
      if (amount > 0) openLot(cx, id, f.ref.epoch, f.ref.level, amount, price, fee);
      break;
    case 'lotBuy':
      s.lotBuys!.splice(f.index, 1);
      if (amount > 0) fundsFilled(cx, f.ref, amount, price, fee);
      break;
    case 'tp':
      sellLot(cx, f.lot, f.ref, amount, price, fee);
      resetBackoff(s);
      // Sold in part only (the lot grew by added funds meanwhile): the rest goes on.
      settleLotAction(cx, f.lot);
      break;
    case 'close':
      sellLot(cx, f.lot, f.ref, amount, price, fee);
      resetBackoff(s);
      if (f.lot.action === 'sell') f.lot.action = null;
      break;
  }
  afterOrderEvent(cx);
}

export function onCancelled(cx: Cx, id: string, filled?: number, price?: number, fee?: number): void {
  own(cx);
  const s = cx.s;
  const f = find(s, id);
  if (!f) return;
  if (filled !== undefined && validFill(filled, price ?? 0, fee ?? 0) && filled >= f.ref.filled) {
    f.ref.filled = filled;
    f.ref.avgPrice = price ?? f.ref.avgPrice;
    f.ref.fee = fee ?? f.ref.fee;
  }
  const { filled: got, avgPrice, fee: paid } = f.ref;
  switch (f.kind) {
    case 'entry':
      s.entry = null;
      if (got > 0) {
        openLot(cx, id, s.epoch, 0, got, avgPrice, paid);
        if (s.status === 'starting') s.status = 'running';
      } else if (s.status === 'starting') {
        // The market buy expired unfilled: try again after a pause.
        log(cx, 'warn', 'order_rejected', { role: 'entry', reason: 'cancelled' });
        bumpBackoff(s, cx.ts);
      }
      break;
    case 'buy':
      s.waitingBuys.splice(f.index, 1);
      if (got > 0) openLot(cx, id, f.ref.epoch, f.ref.level, got, avgPrice, paid);
      break;
    case 'lotBuy':
      s.lotBuys!.splice(f.index, 1);
      if (got > 0) fundsFilled(cx, f.ref, got, avgPrice, paid);
      else fundsBuyFailed(cx, f.ref, 'cancelled');
      break;
    case 'tp':
    case 'close':
      if (got > 0) sellLot(cx, f.lot, f.ref, got, avgPrice, paid);
      if (f.kind === 'tp') {
        f.lot.tp = null;
        settleLotAction(cx, f.lot);
      } else if (f.lot.action === 'sell') {
        // A user's sale that did not complete: the lot is kept and gets its take profit back.
        f.lot.close = null;
        f.lot.action = null;
        if (cx.s.lots.includes(f.lot))
          log(cx, 'warn', 'close_failed', { lot_id: f.lot.id, reason: 'cancelled' });
      } else {
        f.lot.close = null;
        if (cx.s.lots.includes(f.lot))
          log(cx, 'warn', 'close_failed', {
            lot_id: f.lot.id,
            reason: 'cancelled',
            attempt: f.lot.closeAttempts ?? 1,
            max_attempts: DCA_MAX_CLOSE_ATTEMPTS,
          });
      }
      break;
  }
  afterOrderEvent(cx);
}

export function onRejected(cx: Cx, id: string, reason: RejectReason, message?: string): void {
  // A refused ladder buy changes only the waiting buys and skipped levels (and top-level fields).
  const kind = find(cx.s, id)?.kind;
  if (kind === undefined) return;
  if (kind === 'buy') ownBuys(cx);
  else own(cx);
  const s = cx.s;
  const f = find(s, id);
  if (!f) return;
  const params: Record<string, string | number> = { reason };
  if (message) params.message = message.slice(0, 200);
  const permanent = reason === 'min_cost' || reason === 'precision';
  switch (f.kind) {
    case 'entry': {
      s.entry = null;
      params.role = 'entry';
      if (permanent) {
        log(cx, 'warn', reason === 'min_cost' ? 'below_min_cost' : 'order_rejected', params);
        if (s.status === 'starting') finishStop(cx, 'entry_failed');
      } else {
        bumpBackoff(s, cx.ts);
        params.retry_in_s = Math.round(s.buyBackoffMs / 1000);
        log(cx, 'warn', reason === 'insufficient_funds' ? 'insufficient_funds' : 'order_rejected', params);
      }
      break;
    }
    case 'buy': {
      s.waitingBuys.splice(f.index, 1);
      params.role = 'ladder_buy';
      params.level = f.ref.level;
      params.price = f.ref.price;
      if (permanent) {
        if (f.ref.epoch === s.epoch && !s.skippedLevels.includes(f.ref.level))
          s.skippedLevels.push(f.ref.level);
        log(cx, 'warn', reason === 'min_cost' ? 'below_min_cost' : 'order_rejected', params);
      } else {
        bumpBackoff(s, cx.ts);
        params.retry_in_s = Math.round((s.buyRetryAt! - cx.ts) / 1000);
        log(cx, 'warn', reason === 'insufficient_funds' ? 'insufficient_funds' : 'order_rejected', params);
      }
      break;
    }
    case 'tp': {
      f.lot.tp = null;
      params.role = 'take_profit';
      params.lot_id = f.lot.id;
      if (permanent) f.lot.tpBlocked = true;
      else {
        f.lot.tpRetryAt = cx.ts + DCA_TP_RETRY_MS;
        params.retry_in_s = DCA_TP_RETRY_MS / 1000;
      }
      log(cx, 'warn', reason === 'insufficient_funds' ? 'insufficient_funds' : 'order_rejected', params);
      break;
    }
    case 'lotBuy':
      s.lotBuys!.splice(f.index, 1);
      fundsBuyFailed(cx, f.ref, reason, message);
      break;
    case 'close':
      f.lot.close = null;
      if (f.lot.action === 'sell') {
        // A user's sale: the lot is kept (its take profit comes back); a stop's attempts are not used.
        f.lot.action = null;
        log(cx, 'warn', 'close_failed', { lot_id: f.lot.id, ...params });
        break;
      }
      // Funds, minimum and precision refusals will not change by retrying: the lot is kept.
      if (reason !== 'exchange_error' && reason !== 'unknown') f.lot.closeAttempts = DCA_MAX_CLOSE_ATTEMPTS;
      log(cx, 'warn', 'close_failed', {
        lot_id: f.lot.id,
        ...params,
        attempt: f.lot.closeAttempts ?? 1,
        max_attempts: DCA_MAX_CLOSE_ATTEMPTS,
      });
      break;
  }
  afterOrderEvent(cx);
}
