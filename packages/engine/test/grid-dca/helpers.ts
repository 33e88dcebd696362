import { createDcaBot, stepDca, type DcaConfig, type DcaState, type StrategyEvent } from '../../src/index';
import { DcaSim } from './dca-sim';
import { driveWith, testMarket, type Driven as DrivenOf } from '../shared/shared-helpers';

export { cancels, logs, places, trades } from '../shared/shared-helpers';

/** The spec's defaults: 20 USDT per buy, TP 1%, separation 1%, 3 OS; BTC-like market rules. */
export function dcaConfig(overrides: Partial<DcaConfig> = {}): DcaConfig {
  return {
    symbol: 'BTC/USDT',
    amount: 20,
    tpPct: 1,
    sepPct: 1,
    os: 3,
    direction: 'LONG',
    market: testMarket(),
    raEnabled: false,
    ...overrides,
  };
}

export type Driven = DrivenOf<DcaState>;

/** Feeds events one by one; returns the last state and every command. */
export function drive(state: DcaState, events: StrategyEvent[]): Driven {
  return driveWith(stepDca, state, events);
}

export function start(botId = 'b', overrides: Partial<DcaConfig> = {}, price = 100, ts = 1000): Driven {
  return drive(createDcaBot(botId, dcaConfig(overrides)), [{ type: 'tick', price, ts }]);
}

/** The spec's default bot on a simulated account of 1,000 USDT with 0.1% fees; fills come after the tick. */
export function paperBot(config: DcaConfig = dcaConfig()): DcaSim {
  return new DcaSim('b', config, { budget: 1000, feeRate: 0.001, fillsFirst: false, partialFills: false });
}
