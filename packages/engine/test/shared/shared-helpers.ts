/**
 * Test helpers every strategy's tests share: the market rules of the test configs, feeding events to a
 * step function, and picking commands of one type out of a step's output.
 */
import type {
  LogCommand,
  MarketRules,
  PlaceOrderCommand,
  StepResult,
  StrategyCommand,
  StrategyEvent,
} from '../../src/index';

/** BTC-like market rules: 0.0001 base and 0.01 quote steps, 5 USDT minimum, 0.1% fees. */
export function testMarket(): MarketRules {
  return { amountStep: 0.0001, priceStep: 0.01, minAmount: 0, minCost: 5, takerFee: 0.001, makerFee: 0.001 };
}

export interface Driven<S> {
  state: S;
  commands: StrategyCommand[];
}

/** Feeds events one by one to `step`; returns the last state and every command. */
export function driveWith<S>(
  step: (state: S, event: StrategyEvent) => StepResult<S>,
  state: S,
  events: StrategyEvent[],
): Driven<S> {
  const commands: StrategyCommand[] = [];
  for (const e of events) {
    const r = step(state, e);
    state = r.state;
    commands.push(...r.commands);
  }
  return { state, commands };
}

export const places = (cmds: StrategyCommand[]): PlaceOrderCommand[] =>
  cmds.filter((c): c is PlaceOrderCommand => c.type === 'place_order');
export const cancels = (cmds: StrategyCommand[]): string[] =>
  cmds.flatMap((c) => (c.type === 'cancel_order' ? [c.clientOrderId] : []));
export const logs = (cmds: StrategyCommand[]): LogCommand[] =>
  cmds.filter((c): c is LogCommand => c.type === 'log');
export const codes = (cmds: StrategyCommand[]): string[] => logs(cmds).map((l) => l.code);
export const trades = (cmds: StrategyCommand[]) =>
  cmds.flatMap((c) => (c.type === 'record_trade' ? [c.trade] : []));
export const stops = (cmds: StrategyCommand[]) =>
  cmds.flatMap((c) => (c.type === 'stopped' ? [c.reason] : []));
