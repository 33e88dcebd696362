import {
  createClassicDca,
  stepClassicDca,
  type Candle,
  type ClassicDcaConfig,
  type ClassicDcaState,
  type LogCommand,
  type PlaceOrderCommand,
  type StrategyCommand,
  type StrategyEvent,
} from '../src/index';

/** 100 USDT per order, TP 1%, separation 2%, 3 safety orders, no trend filter / smart averaging. */
export function classicConfig(overrides: Partial<ClassicDcaConfig> = {}): ClassicDcaConfig {
  return {
    symbol: 'BTC/USDT',
    amount: 100,
    tpPct: 1,
    sepPct: 2,
    os: 3,
    market: {
      amountStep: 0.0001,
      priceStep: 0.01,
      minAmount: 0,
      minCost: 5,
      takerFee: 0.001,
      makerFee: 0.001,
    },
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

export interface Driven {
  state: ClassicDcaState;
  commands: StrategyCommand[];
}

export function drive(state: ClassicDcaState, events: StrategyEvent[]): Driven {
  const commands: StrategyCommand[] = [];
  for (const e of events) {
    const r = stepClassicDca(state, e);
    state = r.state;
    commands.push(...r.commands);
  }
  return { state, commands };
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
