// The emulators (no ccxt here: paper servers import this; the ccxt URL options are in ccxt-options.ts).
export * from './binance-spot';
export * from './bybit-v5';
export * from './binance-usdm';
export * from './faults';
export type { LedgerEntry } from './http';
