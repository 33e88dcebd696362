import {
  createDcaBot,
  stepDca,
  type DcaConfig,
  type DcaState,
  type LogCommand,
  type PlaceOrderCommand,
  type StrategyCommand,
  type StrategyEvent,
} from '../src/index';
import { DcaSim } from './dca-sim';

/** The spec's defaults: 20 USDT per buy, TP 1%, separation 1%, 3 OS; BTC-like market rules. */
export function dcaConfig(overrides: Partial<DcaConfig> = {}): DcaConfig {
  return {
    symbol: 'BTC/USDT',
    amount: 20,
    tpPct: 1,
    sepPct: 1,
    os: 3,
    direction: 'LONG',
    market: {
      amountStep: 0.0001,
      priceStep: 0.01,
      minAmount: 0,
      minCost: 5,
      takerFee: 0.001,
      makerFee: 0.001,
    },
    raEnabled: false,
    ...overrides,
  };
}

export interface Driven {
  state: DcaState;
  commands: StrategyCommand[];
}

/** Feeds events one by one; returns the last state and every command. */
export function drive(state: DcaState, events: StrategyEvent[]): Driven {
  const commands: StrategyCommand[] = [];
  for (const e of events) {
    const r = stepDca(state, e);
    state = r.state;
    commands.push(...r.commands);
  }
  return { state, commands };
}

export function start(botId = 'b', overrides: Partial<DcaConfig> = {}, price = 100, ts = 1000): Driven {
  return drive(createDcaBot(botId, dcaConfig(overrides)), [{ type: 'tick', price, ts }]);
}

export const places = (cmds: StrategyCommand[]): PlaceOrderCommand[] =>
  cmds.filter((c): c is PlaceOrderCommand => c.type === 'place_order');
export const cancels = (cmds: StrategyCommand[]): string[] =>
  cmds.flatMap((c) => (c.type === 'cancel_order' ? [c.clientOrderId] : []));
export const logs = (cmds: StrategyCommand[]): LogCommand[] =>
  cmds.filter((c): c is LogCommand => c.type === 'log');
export const trades = (cmds: StrategyCommand[]) =>
  cmds.flatMap((c) => (c.type === 'record_trade' ? [c.trade] : []));

/** The spec's default bot on a simulated account of 1,000 USDT with 0.1% fees; fills come after the tick. */
export function paperBot(config: DcaConfig = dcaConfig()): DcaSim {
  return new DcaSim('b', config, { budget: 1000, feeRate: 0.001, fillsFirst: false, partialFills: false });
}
