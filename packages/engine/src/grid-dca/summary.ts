/**
 * Grid Bot DCA: reading a state for the views: the dashboard row (summarizeDca) and the open lots as
 * pending orders (dcaLots).
 */
import { type Dec, decDiv, decMul, decToNumber, decToString, formatAmount, toDec } from '../money';
import type { DcaLot, DcaState, DcaSummary } from './types';
import type { LotInfo } from '../strategy';
import { inRange, isShort, takeProfitPrice } from './ladder';

/** Figures for the dashboard row. */
export function summarizeDca(state: DcaState, price: number): DcaSummary {
  let qty: Dec = 0n;
  let cost: Dec = 0n;
  let fees: Dec = 0n;
  for (const lot of state.lots) {
    const q = toDec(lot.qty);
    qty += q;
    cost += decMul(q, toDec(lot.buyPrice));
    fees += toDec(lot.buyFee);
  }
  const validPrice = Number.isFinite(price) && price > 0;
  // SHORT: the lots were sold at their entry and are bought back at the price.
  const value = validPrice ? decMul(qty, toDec(price)) : 0n;
  const unrealized = !validPrice ? 0n : isShort(state.config) ? cost - value - fees : value - cost - fees;
  return {
    openLots: state.lots.length,
    avgEntry: qty > 0n ? decToNumber(decDiv(cost, qty)) : null,
    openQty: decToNumber(qty),
    unrealizedPnl: state.lots.length ? decToNumber(unrealized) : 0,
    realizedPnl: Number(state.realizedPnl),
    inRange: inRange(state, price),
  };
}

export function hasLotBuy(s: DcaState, lotId: string): boolean {
  const buys = s.lotBuys;
  if (!buys) return false;
  for (let i = 0; i < buys.length; i++) if (buys[i]!.lotId === lotId) return true;
  return false;
}

/** The action in flight on a lot (LotInfo.busy); a stop's market sell counts as 'selling'. */
export function lotBusy(s: DcaState, lot: DcaLot): LotInfo['busy'] {
  if (lot.action === 'sell') return 'selling';
  if (lot.action === 'forget') return 'deleting';
  if (hasLotBuy(s, lot.id)) return 'adding';
  if (lot.close) return 'selling';
  return null;
}

/** The open lots as the pending-orders views show them (`Strategy.lots`). */
export function dcaLots(state: DcaState): LotInfo[] {
  return state.lots.map((lot) => ({
    id: lot.id,
    openedAt: lot.buyTime,
    qty: lot.qty,
    entryPrice: lot.buyPrice,
    cost: Number(formatAmount(decToString(decMul(toDec(lot.qty), toDec(lot.buyPrice))), 10)),
    firstPrice: lot.firstPrice ?? lot.buyPrice,
    tpPrice: lot.tp && !lot.tp.cancelling ? lot.tp.price : takeProfitPrice(state.config, lot.buyPrice),
    autoFund: lot.autoFund ?? false,
    autoFundSteps: lot.autoFundSteps ?? 0,
    busy: lotBusy(state, lot),
  }));
}
