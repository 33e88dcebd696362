/**
 * Grid Bot DCA: a lot opened by a filled buy, and a lot (or part of it) sold: its trade and realized PnL.
 */
import { decDiv, decMul, decToString, formatAmount, toDec } from '../money';
import type { DcaLot, DcaOrderRef } from './types';
import type { ClosedTrade } from '../strategy';
import { type Cx, log } from './context';
import { isShort, tradePnl } from './ladder';

export function openLot(
  cx: Cx,
  id: string,
  epoch: number,
  level: number,
  qty: number,
  price: number,
  fee: number,
): void {
  const lot: DcaLot = {
    id,
    epoch,
    level,
    qty,
    buyPrice: price,
    buyFee: fee,
    buyTime: cx.ts,
    tp: null,
    tpRetryAt: null,
    tpBlocked: false,
    close: null,
    closeAttempts: 0,
  };
  cx.s.lots.push(lot);
  log(cx, 'info', 'lot_opened', { lot_id: id, level, qty, price, fee });
}

/**
 * `qty` of the lot was sold at `price` paying `fee`: records the trade (the buy fee is shared pro rata
 * when only part of the lot is sold) and removes the lot, or shrinks it on a partial sale. A sale of the
 * whole take-profit amount closes the lot even when rounding left dust below one amount step.
 */
export function sellLot(
  cx: Cx,
  lot: DcaLot,
  sell: DcaOrderRef,
  qty: number,
  price: number,
  fee: number,
): void {
  const s = cx.s;
  // The whole order sold and at most dust (less than one amount step) left: the lot is closed. A lot
  // that grew by added funds after its take profit was placed keeps the rest.
  const whole =
    qty >= lot.qty || (qty >= sell.amount && toDec(lot.qty) - toDec(qty) < toDec(s.config.market.amountStep));
  let buyFee = lot.buyFee;
  if (!whole) {
    const share = decDiv(decMul(toDec(lot.buyFee), toDec(qty)), toDec(lot.qty));
    buyFee = Number(formatAmount(decToString(share), 12));
  }
  // SHORT: the lot's entry was the sale (its `buyPrice` / `buyFee` / `buyTime` hold the entry), this
  // fill is the buy back.
  const short = isShort(s.config);
  const pnlNet = short
    ? tradePnl(qty, price, lot.buyPrice, fee, buyFee)
    : tradePnl(qty, lot.buyPrice, price, buyFee, fee);
  const trade: ClosedTrade = short
    ? {
        lotId: lot.id,
        qty,
        buyPrice: price,
        sellPrice: lot.buyPrice,
        buyTime: cx.ts,
        sellTime: lot.buyTime,
        buyFee: fee,
        sellFee: buyFee,
        pnlNet,
      }
    : {
        lotId: lot.id,
        qty,
        buyPrice: lot.buyPrice,
        sellPrice: price,
        buyTime: lot.buyTime,
        sellTime: cx.ts,
        buyFee,
        sellFee: fee,
        pnlNet,
      };
  // Each partial sale is a history row of its own (the whole sale's key is the lot id).
  if (!whole) trade.key = `${lot.id}#${sell.clientOrderId}`;
  cx.cmds.push({ type: 'record_trade', trade });
  s.realizedPnl = decToString(toDec(s.realizedPnl) + toDec(pnlNet));
  s.closedTrades += 1;
  log(cx, 'info', 'lot_closed', {
    lot_id: lot.id,
    qty,
    buy_price: trade.buyPrice,
    sell_price: trade.sellPrice,
    pnl_net: pnlNet,
  });
  if (whole) {
    s.lots = s.lots.filter((l) => l !== lot);
  } else {
    lot.qty = Number(decToString(toDec(lot.qty) - toDec(qty)));
    lot.buyFee = Number(decToString(toDec(lot.buyFee) - toDec(buyFee)));
    if (lot.tp) lot.tp = null;
    if (lot.close) lot.close = null;
  }
}
