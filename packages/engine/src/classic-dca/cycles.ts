/**
 * Classic DCA: the end of a cycle: its trade (exact, over every sale of the cycle), the restart or the
 * stop, and a residual left for a VNC.
 */
import { decDiv, decToNumber, decToString, toDec } from '../money';
import type { ClosedTrade } from '../strategy';
import { log } from '../shared/logging';
import { recordTrade, roundPnl } from '../shared/trades';
import { ZERO_SALES } from './config';
import { cancelResting, type Cx } from './orders';
import { positionCost, tradableQty } from './position';

/** Records the cycle's sales as one trade (nothing when nothing was sold). */
export function recordCycleTrade(cx: Cx): void {
  const s = cx.s;
  const a = s.sales;
  const q = toDec(a.qty);
  if (q <= 0n) return;
  const sellQuote = toDec(a.quote);
  const sellFee = toDec(a.fee);
  const buyQuote = toDec(a.buyQuote);
  const buyFee = toDec(a.buyFee);
  // qty × (sell − buy) with sell and buy the exact averages is exactly sellQuote − buyQuote.
  const exact = sellQuote - buyQuote - buyFee - sellFee;
  const pnlNet = roundPnl(exact);
  const trade: ClosedTrade = {
    lotId: `${s.botId}-c${s.cycle}`,
    qty: decToNumber(q),
    buyPrice: decToNumber(decDiv(buyQuote, q)),
    sellPrice: decToNumber(decDiv(sellQuote, q)),
    buyTime: s.cycleStart ?? cx.ts,
    sellTime: cx.ts,
    buyFee: decToNumber(buyFee),
    sellFee: decToNumber(sellFee),
    pnlNet,
  };
  recordTrade(cx, trade);
  s.sales = ZERO_SALES;
  log(cx, 'info', 'cycle_closed', {
    cycle: s.cycle,
    qty: trade.qty,
    buy_price: trade.buyPrice,
    sell_price: trade.sellPrice,
    pnl_net: pnlNet,
  });
}

/**
 * The take profit (or the user's sale) sold the position, or the user forgot it: one trade for what was
 * sold, cancel the safety buys, next cycle (or stop later).
 */
export function closeCycle(cx: Cx): void {
  const s = cx.s;
  recordCycleTrade(cx);
  s.cycles += 1;
  cancelResting(cx);
  s.cycle += 1;
  // Written only when set, so a state from before these fields keeps its shape.
  if (s.lotBusy) s.lotBusy = null;
  if (s.autoFund) s.autoFund = false;
  if (s.autoFundSteps) s.autoFundSteps = 0;
  s.cycleOpen = false;
  s.cycleStart = null;
  s.entry = null;
  s.trendLogged = 0;
  s.filledLevels = [];
  s.skippedLevels = [];
  s.safetyFills = 0;
  s.tpBlocked = false;
  s.tpRetryAt = null;
}

/** A position is left on the account: remember it for the server (a VNC). */
export function keepResidual(cx: Cx): void {
  const s = cx.s;
  if (!(tradableQty(s) > 0)) return;
  s.residual = {
    qty: Number(s.position.qty),
    cost: decToString(positionCost(s.position)),
    buyTime: s.cycleStart ?? s.lastTs ?? cx.ts,
  };
}
