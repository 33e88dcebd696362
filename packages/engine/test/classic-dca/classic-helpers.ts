import {
  createClassicDca,
  stepClassicDca,
  type Candle,
  type ClassicDcaConfig,
  type ClassicDcaState,
  type StrategyEvent,
} from '../../src/index';
import { driveWith, testMarket, type Driven as DrivenOf } from '../shared/shared-helpers';

export { cancels, codes, logs, places, stops, trades } from '../shared/shared-helpers';

/** 100 USDT per order, TP 1%, separation 2%, 3 safety orders, no trend filter / smart averaging. */
export function classicConfig(overrides: Partial<ClassicDcaConfig> = {}): ClassicDcaConfig {
  return {
    symbol: 'BTC/USDT',
    amount: 100,
    tpPct: 1,
    sepPct: 2,
    os: 3,
    market: testMarket(),
    sl: null,
    tpPlus: null,
    r: false,
    rOs: false,
    trendFilter: false,
    smartAveraging: false,
    smartAmount: 10,
    maPeriod: 70,
    candleMs: 60_000,
    tpVncPct: 0.5,
    ...overrides,
  };
}

export type Driven = DrivenOf<ClassicDcaState>;

export function drive(state: ClassicDcaState, events: StrategyEvent[]): Driven {
  return driveWith(stepClassicDca, state, events);
}

export function create(overrides: Partial<ClassicDcaConfig> = {}, candles: Candle[] = []): ClassicDcaState {
  return createClassicDca('b', classicConfig(overrides), candles);
}

/** `n` one-minute candles ending before `endT`, closes given by `close(i)` (i = 0 oldest). */
export function candles(n: number, close: (i: number) => number, endT = 60_000 * 1000): Candle[] {
  const out: Candle[] = [];
  for (let i = 0; i < n; i++) {
    const c = close(i);
    out.push({ t: endT - (n - i) * 60_000, o: c, h: c, l: c, c });
  }
  return out;
}
