// ccxt's errors in our classes (which say what the caller does next), the one retry after a clock
// resync, and the "nothing to change" answers of margin mode and leverage calls.
import ccxt from 'ccxt';
import {
  AuthenticationError,
  ClockSkewError,
  InsufficientFundsError,
  InvalidOrderError,
  NotSupportedError,
  OrderNotFoundError,
  UnmappedExchangeError,
  VenueError,
  VenueNetworkError,
  VenueRateLimitError,
  VenueUnavailableError,
} from '../errors';
import { translateByExchange } from '../exchanges/errors';

/** Why an exchange refused an order, from its message (Binance filter names and common wordings). */
function invalidReason(msg: string): InvalidOrderError['reason'] {
  if (/NOTIONAL|min(imum)?\s*(order\s*)?(cost|notional|value)/i.test(msg)) return 'min_cost';
  if (/LOT_SIZE|min(imum)?\s*(order\s*)?(amount|qty|quantity|size)/i.test(msg)) return 'min_amount';
  if (/PRICE_FILTER|PERCENT_PRICE|invalid price/i.test(msg)) return 'bad_price';
  return 'other';
}

/**
 * Translates a ccxt error (or anything thrown inside ccxt) into our classes: by the exchange's own
 * table first (exchanges/errors: code, HTTP status, message), then by ccxt's class. `headers` are the
 * last response's (Retry-After of a 429).
 */
export function translateCcxtError(err: unknown, exchange: string, headers?: Record<string, unknown>): Error {
  if (err instanceof VenueError) return err;
  if (err instanceof ccxt.BaseError) {
    const mapped = translateByExchange(err, exchange, headers);
    if (mapped) return mapped;
  }
  const msg = err instanceof Error ? err.message : String(err);
  if (err instanceof ccxt.InvalidNonce) {
    return new ClockSkewError(`${exchange}: our clock and the exchange's disagree (${msg})`, exchange, err);
  }
  // Binance answers -2015 both for a key revoked (or its IP or permission removed) and for a
  // temporary ban; once a key has worked ccxt calls it DDoSProtection. Either way nothing can be sent
  // with it now: treated as a refused key, the bots pause and try it again until it works.
  if (err instanceof ccxt.DDoSProtection && /"code"\s*:\s*-2015\b/.test(msg)) {
    return new AuthenticationError(
      `${exchange} refused the API key (revoked, IP or permission removed, or temporarily banned) (${msg})`,
      exchange,
      err,
    );
  }
  if (err instanceof ccxt.RateLimitExceeded || err instanceof ccxt.DDoSProtection) {
    return new VenueRateLimitError(`${exchange}: too many requests, slow down (${msg})`, exchange, err);
  }
  if (err instanceof ccxt.OnMaintenance || err instanceof ccxt.ExchangeNotAvailable) {
    return new VenueUnavailableError(`${exchange} is not available right now (${msg})`, exchange, err);
  }
  if (err instanceof ccxt.RequestTimeout || err instanceof ccxt.NetworkError) {
    return new VenueNetworkError(`${exchange}: network error (${msg})`, exchange, err);
  }
  if (err instanceof ccxt.InsufficientFunds) {
    return new InsufficientFundsError(`${exchange}: insufficient balance (${msg})`, exchange, err);
  }
  if (err instanceof ccxt.OrderNotFound) {
    return new OrderNotFoundError(`${exchange}: order not found (${msg})`, exchange, err);
  }
  if (
    err instanceof ccxt.AuthenticationError ||
    err instanceof ccxt.PermissionDenied ||
    err instanceof ccxt.AccountSuspended
  ) {
    return new AuthenticationError(
      `${exchange} refused the API key: check it is valid, allows spot trading and this server's IP (${msg})`,
      exchange,
      err,
    );
  }
  if (err instanceof ccxt.BadSymbol) {
    return new InvalidOrderError(`${exchange}: unknown symbol (${msg})`, exchange, 'bad_symbol', err);
  }
  if (err instanceof ccxt.InvalidOrder) {
    return new InvalidOrderError(`${exchange} refused the order (${msg})`, exchange, invalidReason(msg), err);
  }
  if (err instanceof ccxt.NotSupported) {
    return new NotSupportedError(`${exchange} does not support this (${msg})`, exchange, err);
  }
  if (err instanceof ccxt.BadRequest || err instanceof ccxt.BadResponse) {
    return new InvalidOrderError(
      `${exchange} refused the request (${msg})`,
      exchange,
      invalidReason(msg),
      err,
    );
  }
  if (err instanceof ccxt.ExchangeError) {
    // Neither the exchange's table nor ccxt knows this answer: a bounded number of retries, then the
    // bot pauses with the exchange's own text (UnmappedExchangeError's action).
    return new UnmappedExchangeError(`${exchange} answered with an error (${msg})`, exchange, msg, err);
  }
  return new VenueNetworkError(`${exchange}: unexpected failure (${msg})`, exchange, err);
}

/**
 * Runs one ccxt call, its error translated; a ClockSkewError's action is taken here: the clock offset
 * is measured again (`resync`), then the request is retried once.
 */
export async function callWithClockRetry<T>(
  fn: () => Promise<T>,
  translate: (err: unknown) => Error,
  resync: () => Promise<void>,
): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const e = translate(err);
    if (!(e instanceof ClockSkewError)) throw e;
    await resync();
    try {
      return await fn();
    } catch (again) {
      throw translate(again);
    }
  }
}

/**
 * "Nothing to change" answers: the margin mode or leverage is already what was asked (ccxt's
 * MarginModeAlreadySet / NoChange, Binance -4046, Bybit 110026 / 110043).
 */
export function isNoChange(err: unknown): boolean {
  const c = ccxt as unknown as Record<string, (new (...a: unknown[]) => Error) | undefined>;
  for (const name of ['MarginModeAlreadySet', 'NoChange']) {
    const K = c[name];
    if (K && err instanceof K) return true;
  }
  const msg = err instanceof Error ? err.message : String(err);
  return /-4046|No need to change|110026|110043|not modified/i.test(msg);
}
