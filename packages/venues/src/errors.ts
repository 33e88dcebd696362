/**
 * Venue errors, translated at the boundary (CcxtVenue maps ccxt's classes; PaperVenue throws these
 * directly). Each class says what the caller does next in `action`.
 */
export type VenueErrorAction =
  /** A transient failure: try again with backoff. */
  | 'retry'
  /** Not enough free balance: skip this order and wait for funds. */
  | 'wait_funds'
  /** The order itself is wrong (below minimum, bad precision, bad symbol): refuse it, do not retry. */
  | 'refuse'
  /** The keys are invalid or lack permission: ask the user to reconnect. */
  | 'reconnect'
  /** The request cannot succeed on this venue: stop the bot with this reason. */
  | 'stop'
  /**
   * Our clock and the exchange's disagree (timestamp outside its receive window): measure the offset
   * again (ccxt's loadTimeDifference, then adjustForTimeDifference) and retry the request once.
   */
  | 'resync_clock'
  /**
   * The exchange said something no rule of ours nor ccxt's maps: retried a bounded number of times
   * with backoff, then the bot pauses with the exchange's own message in its event log.
   */
  | 'retry_then_pause';

export abstract class VenueError extends Error {
  abstract readonly action: VenueErrorAction;
  constructor(
    message: string,
    readonly exchange: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Network failure or timeout. For createOrder the order may exist: look it up by client id. */
export class VenueNetworkError extends VenueError {
  readonly action = 'retry' as const;
}
/** Too many requests; `retryAfterMs` when the exchange says. */
export class VenueRateLimitError extends VenueError {
  readonly action = 'retry' as const;
  retryAfterMs?: number;
}

/** Whether the caller should try the same request again (after a backoff, or a clock resync). */
export function isRetryable(err: unknown): err is VenueError {
  return err instanceof VenueError && (err.action === 'retry' || err.action === 'resync_clock');
}
/** The exchange is down or in maintenance. */
export class VenueUnavailableError extends VenueError {
  readonly action = 'retry' as const;
}
export class InsufficientFundsError extends VenueError {
  readonly action = 'wait_funds' as const;
}
/** Below the minimum amount or cost, bad price, unknown symbol: the order is refused. */
export class InvalidOrderError extends VenueError {
  readonly action = 'refuse' as const;
  constructor(
    message: string,
    exchange: string,
    readonly reason: 'min_cost' | 'min_amount' | 'precision' | 'bad_symbol' | 'bad_price' | 'other',
    cause?: unknown,
  ) {
    super(message, exchange, cause);
  }
}
/**
 * The exchange already has an order with this client id (Binance USDⓈ-M -4116): an earlier send of the
 * same order got through and its answer was lost. The order is never sent again under a new id: it is
 * looked up by its client id. CcxtVenue.createOrder does so at once and answers with the order found;
 * when the lookup finds nothing yet, this error reaches the caller as a retry, and the runner looks the
 * order up by client id before any resend (as after a network error).
 */
export class DuplicateOrderError extends VenueError {
  readonly action = 'retry' as const;
}
export class OrderNotFoundError extends VenueError {
  readonly action = 'refuse' as const;
}
/** The request's timestamp is outside the exchange's receive window (our clock is off). */
export class ClockSkewError extends VenueError {
  readonly action = 'resync_clock' as const;
}
/**
 * An error the exchange answered that neither our per-exchange tables (exchanges/errors) nor ccxt's
 * own map recognise. `exchangeMessage` is the exchange's text as received, for the bot's event log.
 */
export class UnmappedExchangeError extends VenueError {
  readonly action = 'retry_then_pause' as const;
  constructor(
    message: string,
    exchange: string,
    readonly exchangeMessage: string = message,
    cause?: unknown,
  ) {
    super(message, exchange, cause);
  }
}
/** Bad key, expired key, IP not allowed, or a key without trade permission. */
export class AuthenticationError extends VenueError {
  readonly action = 'reconnect' as const;
}
/** The exchange or this operation is not available (closed exchange, unsupported call). */
export class NotSupportedError extends VenueError {
  readonly action = 'stop' as const;
}
/**
 * A capability the exchange's API lacks (ccxt's `has[...]` is false), e.g. setLeverage on a spot-only
 * exchange. The message names the exchange and the capability: `kraken does not support setLeverage
 * through its API`.
 */
export class UnsupportedFeatureError extends NotSupportedError {
  constructor(
    exchange: string,
    readonly capability: string,
    cause?: unknown,
  ) {
    super(`${exchange} does not support ${capability} through its API`, exchange, cause);
  }
}
