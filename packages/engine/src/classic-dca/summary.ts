/**
 * Classic DCA: reading a state for the views: the position as a pending order (classicLots) and the
 * dashboard row (summarizeClassicDca).
 */
import { decDiv, decMul, decToNumber, toDec } from '../money';
import type { LotInfo } from '../strategy';
import type { ClassicDcaState, ClassicDcaSummary } from './types';
import {
  classicAverage,
  classicPositionId,
  classicTakeProfit,
  findOrder,
  holdsPosition,
  positionBusy,
  positionCost,
  tradableQty,
  trendCheck,
} from './position';

/**
 * The bot's position as a pending order (`Strategy.lots`): none when the bot is stopped (a kept
 * position goes to `residual`, the server's VNC) or holds no tradable qty. `entryPrice` and `cost` are
 * WITHOUT buy fees (quote paid ÷ qty), unlike `summarizeClassicDca`'s dca and the take profit, which
 * include them; `cost` is the quote of the tradable qty (pro rata when dust below one amount step is
 * held). `firstPrice` is the base order's fill (`entry`), from which safety levels and auto-fund steps
 * are measured; `tpPrice` the resting take profit, else the one the position will get.
 */
export function classicLots(state: ClassicDcaState): LotInfo[] {
  const s = state;
  if (s.status === 'stopped' || !holdsPosition(s)) return [];
  const qty = tradableQty(s);
  const held = toDec(s.position.qty);
  const quote = toDec(s.position.quote);
  const q = toDec(qty);
  const cost = q === held ? quote : (quote * q) / held;
  const tp = findOrder(s, 'take_profit');
  const tpPrice = tp && !tp.cancelling ? tp.price : (classicTakeProfit(s)?.price ?? 0);
  return [
    {
      id: classicPositionId(s),
      openedAt: s.cycleStart ?? s.lastTs ?? 0,
      qty,
      entryPrice: decToNumber(decDiv(quote, held)),
      cost: decToNumber(cost),
      firstPrice: s.entry!,
      tpPrice,
      autoFund: s.autoFund ?? false,
      autoFundSteps: s.autoFundSteps ?? 0,
      busy: positionBusy(s),
    },
  ];
}

/** Figures for the dashboard. */
export function summarizeClassicDca(state: ClassicDcaState, price: number): ClassicDcaSummary {
  const s = state;
  const qty = Number(s.position.qty);
  const cost = positionCost(s.position);
  const validPrice = Number.isFinite(price) && price > 0;
  const unrealized = validPrice && qty > 0 ? decMul(toDec(s.position.qty), toDec(price)) - cost : 0n;
  const realized = Number(s.realizedPnl);
  const unrealizedPnl = decToNumber(unrealized);
  let safetyResting = 0;
  for (const o of s.orders) if (o.role === 'safety' && !o.cancelling) safetyResting++;
  const tp = findOrder(s, 'take_profit');
  let waitingFor: string | null = null;
  let phase: ClassicDcaSummary['phase'];
  if (s.status === 'stopped') phase = 'stopped';
  else if (s.status === 'stopping') phase = 'stopping';
  else if (s.cycleOpen) phase = 'in_position';
  else {
    phase = 'waiting';
    if (s.orders.length > 0) waitingFor = 'orders';
    else if (s.buyRetryAt !== null) waitingFor = 'retry';
    else if (s.config.trendFilter) {
      const t = trendCheck(s).state;
      waitingFor = t === 'warming' ? 'candles' : t === 'wait' ? 'trend' : null;
    }
  }
  return {
    phase,
    dca: classicAverage(s),
    qty,
    cost: decToNumber(cost),
    tpPrice: tp && !tp.cancelling ? tp.price : null,
    unrealizedPnl,
    realizedPnl: realized,
    pnl: decToNumber(unrealized + toDec(s.realizedPnl)),
    cycleStart: s.cycleStart,
    cycles: s.cycles,
    safetyFilled: s.safetyFills,
    safetyResting,
    waitingFor,
  };
}
