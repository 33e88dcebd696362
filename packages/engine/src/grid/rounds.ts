/**
 * Grid bot: a slot's open position closed into a trade: a grid round (and its profit kept in base when
 * asked), or a plain trade at a stop's market close or a liquidation.
 */
import { decDiv, decMul, decToNumber, decToString, toDec } from '../money';
import { log } from '../shared/logging';
import { recordTrade, roundPnl } from '../shared/trades';
import type { GridSlot } from './types';
import type { Cx } from './context';

/**
 * `qty` of the slot's position was closed at `price` paying `fee` (in quote): one trade. The whole
 * position closes the round; a part (a cancel after a partial fill) shrinks it and keys the trade
 * `${open order}#${closing order}`.
 */
export function closeSlot(
  cx: Cx,
  slot: GridSlot,
  qty: number,
  price: number,
  fee: number,
  closeId: string,
  round = true,
): void {
  const s = cx.s;
  const open = slot.open!;
  const held = toDec(open.qty);
  const q = toDec(qty);
  const whole = q >= held || held - q < toDec(s.config.market.amountStep);
  let openFee = toDec(open.fee);
  if (!whole) openFee = decDiv(decMul(openFee, q), held);
  const long = open.side === 'buy';
  const buyPrice = long ? open.price : price;
  const sellPrice = long ? price : open.price;
  const buyFee = long ? decToNumber(openFee) : fee;
  const sellFee = long ? fee : decToNumber(openFee);
  const pnl = roundPnl(decMul(q, toDec(sellPrice) - toDec(buyPrice)) - toDec(buyFee) - toDec(sellFee));
  recordTrade(cx, {
    lotId: open.orderId,
    ...(whole ? {} : { key: `${open.orderId}#${closeId}` }),
    qty,
    buyPrice,
    sellPrice,
    buyTime: long ? open.ts : cx.ts,
    sellTime: long ? cx.ts : open.ts,
    buyFee,
    sellFee,
    pnlNet: pnl,
  });
  if (whole && !round) {
    // Closed by the stop's market order or by a liquidation: a trade, not a grid round.
    slot.open = null;
  } else if (whole) {
    s.rounds += 1;
    slot.open = null;
    log(cx, 'info', 'grid_round', {
      level: slot.index,
      qty,
      buy_price: buyPrice,
      sell_price: sellPrice,
      pnl_net: pnl,
      rounds: s.rounds,
    });
    if (s.config.profitCurrency === 'base' && pnl > 0)
      s.profitQuote = decToString(toDec(s.profitQuote) + toDec(pnl));
  } else {
    open.qty = decToNumber(held - q);
    open.fee = decToNumber(toDec(open.fee) - openFee);
  }
}
