import {
  AuthenticationError,
  ClockSkewError,
  DuplicateOrderError,
  InsufficientFundsError,
  InvalidOrderError,
  OrderNotFoundError,
  UnmappedExchangeError,
  VenueRateLimitError,
  VenueUnavailableError,
  type VenueError,
} from '../../errors';

/**
 * What an exchange's error means, in our terms. Each kind becomes one class of errors.ts, whose
 * `action` says what happens next (docs/venues.md "Errors").
 */
export type ErrorKind =
  | 'auth' // bad key or signature → AuthenticationError (pause, ask for a new key)
  | 'ip' // this server's IP is not on the key's allow list → AuthenticationError
  | 'permission' // the key lacks the trade permission → AuthenticationError
  | 'funds' // insufficient balance → InsufficientFundsError (skip the order, wait for funds)
  | 'min_amount' // below the minimum size → InvalidOrderError (refuse)
  | 'min_cost' // below the minimum notional → InvalidOrderError (refuse)
  | 'precision' // too many decimals → InvalidOrderError (refuse)
  | 'bad_price' // price outside the allowed band → InvalidOrderError (refuse)
  | 'bad_symbol' // unknown or untradable pair → InvalidOrderError (refuse; pause if delisted)
  | 'refused' // any other refusal of this order (reduce-only with nothing to reduce, leverage out of range) → InvalidOrderError 'other' (refuse)
  | 'duplicate' // the client id is taken by an order already placed → DuplicateOrderError (look it up by client id)
  | 'not_found' // unknown order → OrderNotFoundError
  | 'rate_limit' // too many requests → VenueRateLimitError (retry after Retry-After or backoff)
  | 'clock' // timestamp outside the receive window → ClockSkewError (resync the clock, retry)
  | 'maintenance' // the exchange is down for maintenance → VenueUnavailableError (retry)
  | 'unmapped'; // a catch-all code that says nothing by itself → UnmappedExchangeError (bounded retry)

/**
 * One rule: matches when every field given matches. `code` is compared with every code-like field
 * of the exchange's answer (code, retCode, sCode, label, error_code... and the items of an `error`
 * array); `pattern` with the exchange's message; `status` with the HTTP status.
 */
export interface ErrorRule {
  code?: string;
  status?: number;
  pattern?: RegExp;
  /**
   * ccxt's class name (err.name), for exchanges whose body ccxt does not quote: the rule then corrects
   * ccxt's reading of a code it maps wrongly (Bitfinex's catch-all 10001 read as PermissionDenied).
   */
  ccxtClass?: string;
  kind: ErrorKind;
  /** The exchange's documentation of this error (or, where it has none, the recorded answer). */
  source: string;
}

/** What the exchange answered, read out of ccxt's error. */
export interface ExchangeAnswer {
  /** The answer's text (the body ccxt quotes in its message; the whole message if none). */
  text: string;
  /** ccxt's class name for it. */
  ccxtClass?: string;
  codes: Set<string>;
  status: number | null;
}

const CODE_KEYS = new Set([
  'code',
  'retcode',
  'ret_code',
  'scode',
  'label',
  'error_code',
  'errorcode',
  'err_code',
  'err-code',
  'error',
]);

/** Collects the code-like values of a parsed answer (depth-limited: answers are small objects). */
function collect(v: unknown, out: Set<string>, depth: number, codeLike: boolean): void {
  if (depth > 4 || v === null || v === undefined) return;
  if (typeof v === 'string' || typeof v === 'number') {
    if (codeLike) out.add(String(v));
    return;
  }
  if (Array.isArray(v)) {
    // Bitfinex answers ["error", 10001, "..."]; Kraken {"error": ["EQuery:Unknown asset pair"]}.
    for (const x of v) collect(x, out, depth + 1, codeLike || depth === 0);
    return;
  }
  if (typeof v === 'object') {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      collect(x, out, depth + 1, CODE_KEYS.has(k.toLowerCase()));
    }
  }
}

/**
 * Reads the exchange's answer from a ccxt error message. ccxt quotes the body after the exchange id
 * (`kraken {"error":[...]}`), or after the request and status for HTTP errors
 * (`kucoin GET https://... 429 Too Many Requests {...}`).
 */
export function readAnswer(message: string): ExchangeAnswer {
  const statusMatch = /\s(?:GET|POST|PUT|DELETE|PATCH)\s+\S+\s+(\d{3})\b/.exec(message);
  const status = statusMatch ? Number(statusMatch[1]) : null;

  const codes = new Set<string>();
  // The request's URL is not the exchange's answer (its query holds words such as "timestamp").
  let text = message.replace(/\b(?:GET|POST|PUT|DELETE|PATCH)\s+\S+/, '').replace(/\s+/g, ' ');
  const start = text.search(/[[{]/);
  if (start >= 0) {
    const body = text.slice(start);
    try {
      collect(JSON.parse(body) as unknown, codes, 0, false);
      text = body;
    } catch {
      // Not JSON (an HTML error page, a truncated body): the message alone is matched.
    }
  }
  return { text, codes, status };
}

export function ruleMatches(rule: ErrorRule, a: ExchangeAnswer): boolean {
  if (rule.code === undefined && rule.status === undefined && rule.pattern === undefined && !rule.ccxtClass)
    return false;
  if (rule.ccxtClass !== undefined && rule.ccxtClass !== a.ccxtClass) return false;
  if (rule.code !== undefined && !a.codes.has(rule.code)) return false;
  if (rule.status !== undefined && rule.status !== a.status) return false;
  if (rule.pattern !== undefined && !rule.pattern.test(a.text)) return false;
  return true;
}

/**
 * How long the exchange asks us to wait, in ms: the Retry-After header (seconds or an HTTP date), or
 * KuCoin's gw-ratelimit-reset (ms until its window resets; https://www.kucoin.com/docs-new/rate-limit),
 * or Bybit's X-Bapi-Limit-Reset-Timestamp (the ms epoch when its limit resets, sent with retCode 10006
 * instead of Retry-After; https://bybit-exchange.github.io/docs/v5/rate-limit).
 * Undefined when absent or unreadable.
 */
export function retryAfterMs(headers: Record<string, unknown> | undefined, now = Date.now()) {
  if (!headers) return undefined;
  const find = (name: string) => {
    const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
    return key === undefined ? undefined : headers[key];
  };
  const reset = Number(find('gw-ratelimit-reset'));
  const raw = find('retry-after');
  if (raw === undefined && Number.isFinite(reset) && reset >= 0) return Math.round(reset);
  const resetAt = Number(find('x-bapi-limit-reset-timestamp'));
  // An epoch in ms (> year 2001), never a duration; a time already past means "now".
  if (raw === undefined && Number.isFinite(resetAt) && resetAt > 1e12) {
    return Math.max(0, Math.round(resetAt - now));
  }
  if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const at = Date.parse(String(raw));
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/** Builds our error for a matched kind; `detail` is the exchange's answer, quoted in the message. */
export function errorOfKind(
  kind: ErrorKind,
  exchange: string,
  detail: string,
  cause: unknown,
  retryAfter?: number,
): VenueError {
  switch (kind) {
    case 'auth':
      return new AuthenticationError(
        `${exchange} refused the API key or its signature (${detail})`,
        exchange,
        cause,
      );
    case 'ip':
      return new AuthenticationError(
        `${exchange} refused this server's IP address: add it to the key's allow list (${detail})`,
        exchange,
        cause,
      );
    case 'permission':
      return new AuthenticationError(
        `${exchange}: the API key lacks the permission for this (enable trading on it) (${detail})`,
        exchange,
        cause,
      );
    case 'funds':
      return new InsufficientFundsError(`${exchange}: insufficient balance (${detail})`, exchange, cause);
    case 'min_amount':
    case 'min_cost':
    case 'precision':
    case 'bad_price':
      return new InvalidOrderError(`${exchange} refused the order (${detail})`, exchange, kind, cause);
    case 'bad_symbol':
      return new InvalidOrderError(`${exchange}: unknown symbol (${detail})`, exchange, 'bad_symbol', cause);
    case 'refused':
      return new InvalidOrderError(`${exchange} refused the order (${detail})`, exchange, 'other', cause);
    case 'duplicate':
      return new DuplicateOrderError(
        `${exchange} already has an order with this client id (${detail})`,
        exchange,
        cause,
      );
    case 'not_found':
      return new OrderNotFoundError(`${exchange}: order not found (${detail})`, exchange, cause);
    case 'rate_limit': {
      const e = new VenueRateLimitError(
        `${exchange}: too many requests, slow down (${detail})`,
        exchange,
        cause,
      );
      if (retryAfter !== undefined) e.retryAfterMs = retryAfter;
      return e;
    }
    case 'clock':
      return new ClockSkewError(
        `${exchange}: our clock and the exchange's disagree; resynchronising (${detail})`,
        exchange,
        cause,
      );
    case 'maintenance':
      return new VenueUnavailableError(`${exchange} is in maintenance (${detail})`, exchange, cause);
    case 'unmapped':
      return new UnmappedExchangeError(
        `${exchange} answered with an error (${detail})`,
        exchange,
        detail,
        cause,
      );
  }
}
