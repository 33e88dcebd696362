import { exchangeDisplayName } from '@bytx/contract';
import {
  AuthenticationError,
  ClockSkewError,
  DuplicateOrderError,
  InsufficientFundsError,
  InvalidOrderError,
  NotSupportedError,
  OrderNotFoundError,
  UnmappedExchangeError,
  VenueError,
  VenueNetworkError,
  VenueRateLimitError,
  VenueUnavailableError,
} from '@bytx/venues';
import { HttpError } from './errors';

/** Every VenueError class, for tests that walk them all through a route. */
export const VENUE_ERROR_CLASSES = [
  VenueNetworkError,
  VenueRateLimitError,
  VenueUnavailableError,
  InsufficientFundsError,
  InvalidOrderError,
  OrderNotFoundError,
  AuthenticationError,
  NotSupportedError,
  ClockSkewError,
  UnmappedExchangeError,
  DuplicateOrderError,
] as const;

/**
 * The one place a venue error becomes an answer to a client (freqtrade's rule: exchange errors are
 * translated at the boundary). The error handler applies it to any VenueError a route lets through,
 * so none can reach a client as a 500; services with a more specific message use their own first.
 * Never a 401: that status means "your session" to the web app. The exchange's raw text is passed on
 * only for order refusals, where it says what to change.
 */
export function venueErrorAnswer(err: VenueError): HttpError {
  const name = exchangeDisplayName(err.exchange);
  if (err instanceof VenueRateLimitError) {
    const seconds = Math.max(1, Math.ceil((err.retryAfterMs ?? 5_000) / 1000));
    return new HttpError(503, `${name} asks us to slow down; try again in ${seconds} seconds.`, {
      retryAfter: seconds,
    });
  }
  if (
    err instanceof VenueNetworkError ||
    err instanceof VenueUnavailableError ||
    err instanceof ClockSkewError
  ) {
    return new HttpError(503, `${name} is not answering right now; try again shortly.`, { retryAfter: 5 });
  }
  if (err instanceof InsufficientFundsError) {
    return new HttpError(400, `Not enough free balance on ${name} for this order.`);
  }
  if (err instanceof InvalidOrderError) return new HttpError(400, err.message);
  if (err instanceof OrderNotFoundError) return new HttpError(404, `${name} has no such order.`);
  if (err instanceof AuthenticationError) {
    return new HttpError(400, `${name} refused the API key. Reconnect the exchange in Settings.`);
  }
  if (err instanceof NotSupportedError) return new HttpError(400, `${name} does not support this.`);
  // A VenueError subclass added later without a line here: still an answer, never a 500.
  return new HttpError(502, `${name} answered with an error; try again shortly.`);
}
