// ccxt constructor options that point ccxt's binance and bybit URLs at the localhost emulators. They
// read ccxt's own URL tables, so they live apart from the emulators (index.ts): only the live layer
// (../live-layer.ts), loaded with ccxt, exports them.
import ccxt from 'ccxt';
import type { BinanceSpotEmulator } from './binance-spot';

/**
 * ccxt constructor options that point every binance API URL at the emulator (CcxtVenue's
 * `ccxtOptions`; ccxt deep-merges `urls.api` over its own). A short timeout: a held request
 * ('timeout' fault) fails in `timeoutMs` rather than ccxt's 15 s.
 */
export function binanceEmulatorCcxtOptions(emulator: BinanceSpotEmulator, timeoutMs = 2_000) {
  return binanceEmulatorUrlOptions(emulator.baseUrl, timeoutMs);
}

/** The same from the emulator's base URL (`http://127.0.0.1:<port>`; the server's BINANCE_EMULATOR_URL). */
export function binanceEmulatorUrlOptions(baseUrl: string, timeoutMs = 2_000) {
  const original = (new ccxt.binance().urls as { api: Record<string, string> }).api;
  const api: Record<string, string> = {};
  for (const [k, v] of Object.entries(original)) api[k] = baseUrl + new URL(v).pathname;
  return { timeout: timeoutMs, urls: { api } };
}

/**
 * ccxt constructor options that point every bybit API URL at the Bybit v5 emulator (bybit-v5.ts) at
 * `baseUrl` (`http://127.0.0.1:<port>`; the server's BYBIT_EMULATOR_URL). ccxt's bybit URLs are bare
 * hosts (`https://api.{hostname}`, paths such as `v5/order/create` appended), so each becomes the base.
 */
export function bybitEmulatorUrlOptions(baseUrl: string, timeoutMs = 2_000) {
  const original = (new ccxt.bybit().urls as { api: Record<string, string> }).api;
  const api: Record<string, string> = {};
  for (const k of Object.keys(original)) api[k] = baseUrl;
  return { timeout: timeoutMs, urls: { api } };
}
