/** Closed trades as every strategy records them: pnlNet rounded the same way, added to realizedPnl. */
import { decToString, formatAmount, toDec, type Dec } from '../money';
import type { ClosedTrade, StrategyCommand } from '../strategy';

/** Decimals kept in a trade's pnlNet (exact decimal rounding, half away from zero). */
export const PNL_DECIMALS = 10;

/** An exact pnl as the number a trade records. */
export function roundPnl(exact: Dec): number {
  return Number(formatAmount(decToString(exact), PNL_DECIMALS));
}

/** Emits the record_trade command and adds its pnlNet to the state's exact realized pnl. */
export function recordTrade(
  cx: { cmds: StrategyCommand[]; s: { realizedPnl: string } },
  trade: ClosedTrade,
): void {
  cx.cmds.push({ type: 'record_trade', trade });
  cx.s.realizedPnl = decToString(toDec(cx.s.realizedPnl) + toDec(trade.pnlNet));
}
