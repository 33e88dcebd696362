/**
 * The event-log commands every strategy writes. `below_min_cost` carries the same params for every kind,
 * so the runner and the web app translate it with one message.
 */
import { decMul, decToString, formatAmount, toDec } from '../money';
import type { LogCommand, MarketRules, OrderRole, StrategyCommand } from '../strategy';

export type LogParams = Record<string, string | number>;

/** Appends a log command to the step's commands. */
export function log(
  cx: { cmds: StrategyCommand[] },
  level: LogCommand['level'],
  code: LogCommand['code'],
  params: LogParams = {},
): void {
  cx.cmds.push({ type: 'log', level, code, params });
}

/** An order of `amount` at `price` is not placed because `violation` (a minimum of the market). */
export function logBelowMin(
  cx: { cmds: StrategyCommand[]; s: { config: { symbol: string; market: MarketRules } } },
  role: OrderRole,
  violation: string,
  amount: number,
  price: number,
  extra: LogParams = {},
): void {
  const m = cx.s.config.market;
  log(cx, 'warn', 'below_min_cost', {
    role,
    reason: violation,
    amount,
    price,
    cost: formatAmount(decToString(decMul(toDec(amount), toDec(price)))),
    min_cost: m.minCost,
    min_amount: m.minAmount,
    symbol: cx.s.config.symbol,
    ...extra,
  });
}

/** The params of an order_rejected / close_failed log: `base` first, then the venue's message (cut). */
export function rejectParams(base: LogParams, message: string | undefined): LogParams {
  if (typeof message === 'string' && message) base.message = message.slice(0, 200);
  return base;
}
