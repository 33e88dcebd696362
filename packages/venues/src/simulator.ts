// The simulated market's module path, kept so imports of './simulator' stay valid. The simulator is
// in sim/: market-simulator.ts (MarketSimulator: the walk, listeners, snapshots), market-data.ts
// (SimulatedMarketData), pairs.ts (pairs, swaps, books), candles.ts, config.ts (listed pairs, start
// prices, fees, steps) and random.ts.
export { type CandleSeriesSnapshot, timeframeStart } from './sim/candles';
export {
  SIM_DISLOCATION_HALF_LIFE_MS,
  SIM_DISLOCATION_PER_HOUR,
  SIM_EXCHANGES,
  SIM_FEE,
  SIM_MAX_PRICE,
  SIM_MIN_COST,
  SIM_SPOT_FEES,
  SIM_START_PRICES,
  type SimSpotFees,
  simAmountStep,
  simPriceStep,
  simSpotFees,
  simulatedSymbols,
} from './sim/config';
export { SimulatedMarketData } from './sim/market-data';
export { MarketSimulator, type MarketSimulatorOptions, type SimulatorSnapshot } from './sim/market-simulator';
export { type ListingEvent, type ListingListener, type PriceEvent, type PriceListener } from './sim/pairs';
export { hash32, mulberry32 } from './sim/random';
