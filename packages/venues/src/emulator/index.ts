import ccxt from 'ccxt';
import type { BinanceSpotEmulator } from './binance-spot';

export * from './binance-spot';
export * from './faults';

/**
 * ccxt constructor options that point every binance API URL at the emulator (CcxtVenue's
 * `ccxtOptions`; ccxt deep-merges `urls.api` over its own). A short timeout: a held request
 * ('timeout' fault) fails in `timeoutMs` rather than ccxt's 15 s.
 */
export function binanceEmulatorCcxtOptions(emulator: BinanceSpotEmulator, timeoutMs = 2_000) {
  const original = (new ccxt.binance().urls as { api: Record<string, string> }).api;
  return { timeout: timeoutMs, urls: { api: emulator.ccxtUrls(original) } };
}
