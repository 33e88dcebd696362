import type { ErrorRule } from './rules';

/**
 * Per-exchange error rules, part B (Bitfinex, Gate, Phemex, Bitstamp, Poloniex, LBank, HitBTC,
 * Coinbase Exchange). Same form as part A: first match wins, each with its documentation.
 */

const BITFINEX = 'https://docs.bitfinex.com/docs/abbreviations-glossary#error-codes';
const SUBMIT = 'https://docs.bitfinex.com/reference/rest-auth-submit-order';
// Bitfinex answers ["error", 10001, "<message>"] for every refusal of an order (10001 = ERR_GENERIC),
// and ccxt quotes only the message. ccxt reads 10001 as PermissionDenied, so a routine refusal looked
// like a bad key and paused the bots: the message says what it is, and a PermissionDenied whose
// message no rule knows is left unmapped (bounded retry, then a pause with the text), never "bad key".
const bitfinex: ErrorRule[] = [
  { pattern: /nonce: small/i, kind: 'clock', source: BITFINEX },
  { pattern: /apikey: (invalid|digest invalid)|invalid api key/i, kind: 'auth', source: BITFINEX },
  { pattern: /ip (not allowed|whitelist)/i, kind: 'ip', source: BITFINEX },
  { pattern: /permission/i, kind: 'permission', source: BITFINEX },
  { pattern: /not enough .*balance|available balance/i, kind: 'funds', source: SUBMIT },
  { pattern: /minimum size/i, kind: 'min_amount', source: SUBMIT },
  {
    pattern: /precision|too many decimals/i,
    kind: 'precision',
    source: 'https://docs.bitfinex.com/docs/introduction#price-precision',
  },
  { pattern: /symbol: invalid|invalid symbol/i, kind: 'bad_symbol', source: BITFINEX },
  {
    pattern: /order .*not found|order not found/i,
    kind: 'not_found',
    source: 'https://docs.bitfinex.com/reference/rest-auth-cancel-order',
  },
  { ccxtClass: 'PermissionDenied', kind: 'unmapped', source: BITFINEX },
  {
    pattern: /ratelimit|ERR_RATE_LIMIT/i,
    kind: 'rate_limit',
    source: 'https://docs.bitfinex.com/docs/requirements-and-limitations#rest-rate-limits',
  },
  { pattern: /maintenance/i, kind: 'maintenance', source: BITFINEX },
];

const GATE = 'https://www.gate.io/docs/developers/apiv4/en/#label-list';
const gate: ErrorRule[] = [
  // "Request timestamp far from the server time": ccxt calls it AuthenticationError, which asked the
  // user to reconnect a key that is fine.
  { code: 'REQUEST_EXPIRED', kind: 'clock', source: GATE },
  { code: 'INVALID_KEY', kind: 'auth', source: GATE },
  { code: 'INVALID_SIGNATURE', kind: 'auth', source: GATE },
  { code: 'INVALID_CREDENTIALS', kind: 'auth', source: GATE },
  { code: 'IP_FORBIDDEN', kind: 'ip', source: GATE },
  { code: 'FORBIDDEN', kind: 'permission', source: GATE },
  { code: 'READ_ONLY', kind: 'permission', source: GATE },
  { code: 'TOO_MANY_REQUESTS', kind: 'rate_limit', source: GATE },
  { code: 'TOO_FAST', kind: 'rate_limit', source: GATE },
  {
    status: 429,
    kind: 'rate_limit',
    source: 'https://www.gate.io/docs/developers/apiv4/en/#frequency-limit-rule',
  },
  { code: 'BALANCE_NOT_ENOUGH', kind: 'funds', source: GATE },
  { code: 'AMOUNT_TOO_LITTLE', kind: 'min_amount', source: GATE },
  { code: 'INVALID_PARAM_VALUE', pattern: /too small|minimum/i, kind: 'min_cost', source: GATE },
  { code: 'INVALID_PRECISION', kind: 'precision', source: GATE },
  { code: 'INVALID_CURRENCY_PAIR', kind: 'bad_symbol', source: GATE },
  { code: 'ORDER_NOT_FOUND', kind: 'not_found', source: GATE },
  { code: 'SERVER_ERROR', kind: 'maintenance', source: GATE },
  { code: 'TOO_BUSY', kind: 'maintenance', source: GATE },
];

const PHEMEX = 'https://phemex-docs.github.io/#error-codes';
const phemex: ErrorRule[] = [
  {
    pattern: /request expired|expiry/i,
    kind: 'clock',
    source: 'https://phemex-docs.github.io/#rest-request-header',
  },
  { code: '401', kind: 'auth', source: PHEMEX },
  { pattern: /whitelist/i, kind: 'ip', source: PHEMEX },
  { status: 429, kind: 'rate_limit', source: 'https://phemex-docs.github.io/#api-rate-limits' },
  { code: '11001', kind: 'funds', source: PHEMEX },
  { code: '11058', kind: 'min_amount', source: PHEMEX },
  { code: '11115', kind: 'min_cost', source: PHEMEX },
  { code: '11055', kind: 'bad_price', source: PHEMEX },
  { code: '11027', kind: 'bad_symbol', source: PHEMEX },
  { code: '11070', kind: 'bad_symbol', source: PHEMEX },
  { code: '10002', kind: 'not_found', source: PHEMEX },
  { pattern: /maintenance/i, kind: 'maintenance', source: PHEMEX },
];

const BITSTAMP = 'https://www.bitstamp.net/api/#section/Response-codes';
// Bitstamp's answers carry their meaning in the text ({"status":"error","reason":...}).
const bitstamp: ErrorRule[] = [
  { pattern: /invalid nonce|timestamp/i, kind: 'clock', source: BITSTAMP },
  {
    pattern: /API key not found|Invalid signature|Authentication failed|Wrong API key format/,
    kind: 'auth',
    source: BITSTAMP,
  },
  { pattern: /IP address not allowed/, kind: 'ip', source: BITSTAMP },
  { pattern: /No permission found/, kind: 'permission', source: BITSTAMP },
  { status: 429, kind: 'rate_limit', source: 'https://www.bitstamp.net/api/#section/Request-limits' },
  { pattern: /Check your account balance|You have only .* available/, kind: 'funds', source: BITSTAMP },
  // The minimum is a value in the quote currency ("Minimum order size is 10.0 USD").
  { pattern: /Minimum order size is/, kind: 'min_cost', source: BITSTAMP },
  { pattern: /Ensure that there are no more than \d+ decimal places/, kind: 'precision', source: BITSTAMP },
  {
    pattern: /Invalid currency pair|currency pair .*not (found|supported)/i,
    kind: 'bad_symbol',
    source: BITSTAMP,
  },
  { pattern: /Order not found/, kind: 'not_found', source: BITSTAMP },
  { pattern: /maintenance/i, kind: 'maintenance', source: BITSTAMP },
];

const POLONIEX = 'https://api-docs.poloniex.com/spot/error-code';
const poloniex: ErrorRule[] = [
  { pattern: /timestamp/i, kind: 'clock', source: 'https://api-docs.poloniex.com/spot/api/#authentication' },
  { status: 401, kind: 'auth', source: POLONIEX },
  { pattern: /IP.*(not allowed|whitelist)/i, kind: 'ip', source: POLONIEX },
  { code: '21353', kind: 'permission', source: POLONIEX },
  { status: 429, kind: 'rate_limit', source: 'https://api-docs.poloniex.com/spot/api/#rate-limits' },
  { code: '21709', kind: 'funds', source: POLONIEX },
  { code: '21322', kind: 'min_cost', source: POLONIEX },
  { code: '21330', kind: 'min_amount', source: POLONIEX },
  { code: '21311', kind: 'bad_price', source: POLONIEX },
  { code: '10040', kind: 'bad_symbol', source: POLONIEX },
  { code: '21301', kind: 'not_found', source: POLONIEX },
  { code: '21340', kind: 'maintenance', source: POLONIEX },
];

const LBANK = 'https://www.lbank.com/docs/index.html#error-codes';
// ccxt quotes LBank's documented message for the code, not the body: the rules match those messages.
const lbank: ErrorRule[] = [
  { pattern: /timestamp/i, kind: 'clock', source: LBANK },
  { pattern: /Invalid signature|Secret key does not exist/, kind: 'auth', source: LBANK },
  { pattern: /\bip\b.*(not|white)/i, kind: 'ip', source: LBANK },
  { pattern: /Invalid authorization|User cannot trade on this pair/, kind: 'permission', source: LBANK },
  { pattern: /Request too frequent/, kind: 'rate_limit', source: LBANK },
  { pattern: /Insufficient amount of money|Insufficient account balance/, kind: 'funds', source: LBANK },
  { pattern: /The amount is too small|less than minimum requirement/, kind: 'min_amount', source: LBANK },
  { pattern: /Invalid Trading Pair/, kind: 'bad_symbol', source: LBANK },
  { pattern: /order.*(not exist|not found)/i, kind: 'not_found', source: LBANK },
  { pattern: /maintenance/i, kind: 'maintenance', source: LBANK },
];

const HITBTC = 'https://api.hitbtc.com/#error-response';
const hitbtc: ErrorRule[] = [
  { pattern: /timestamp|window/i, kind: 'clock', source: 'https://api.hitbtc.com/#hs256' },
  { code: '1002', kind: 'auth', source: HITBTC },
  { code: '1004', kind: 'auth', source: HITBTC },
  { code: '1003', kind: 'permission', source: HITBTC },
  { code: '429', kind: 'rate_limit', source: HITBTC },
  { status: 429, kind: 'rate_limit', source: 'https://api.hitbtc.com/#rate-limiting' },
  { code: '20001', kind: 'funds', source: HITBTC },
  { code: '2011', kind: 'min_amount', source: HITBTC },
  { code: '2012', kind: 'precision', source: HITBTC },
  { code: '2022', kind: 'precision', source: HITBTC },
  { code: '2001', kind: 'bad_symbol', source: HITBTC },
  { code: '20002', kind: 'not_found', source: HITBTC },
  { status: 503, kind: 'maintenance', source: HITBTC },
];

const COINBASE = 'https://docs.cdp.coinbase.com/exchange/docs/rest-requests#errors';
// Coinbase Exchange answers {"message": "..."}: the text and the HTTP status say what it is.
const coinbaseexchange: ErrorRule[] = [
  {
    pattern: /request timestamp expired|timestamp/i,
    kind: 'clock',
    source: 'https://docs.cdp.coinbase.com/exchange/docs/rest-auth',
  },
  { pattern: /invalid signature|Invalid API Key|Invalid Passphrase/i, kind: 'auth', source: COINBASE },
  {
    pattern: /whitelist|IP address/i,
    kind: 'ip',
    source: 'https://docs.cdp.coinbase.com/exchange/docs/rest-auth',
  },
  { status: 403, kind: 'permission', source: COINBASE },
  { status: 429, kind: 'rate_limit', source: 'https://docs.cdp.coinbase.com/exchange/docs/rest-rate-limits' },
  { pattern: /Insufficient funds/i, kind: 'funds', source: COINBASE },
  { pattern: /size is too small|size .*below.*min/i, kind: 'min_amount', source: COINBASE },
  { pattern: /funds is too small|funds .*below.*min/i, kind: 'min_cost', source: COINBASE },
  { pattern: /too precise|too accurate/i, kind: 'precision', source: COINBASE },
  { pattern: /Product not found|Invalid product_id/i, kind: 'bad_symbol', source: COINBASE },
  { pattern: /NotFound|order not found/i, kind: 'not_found', source: COINBASE },
  { pattern: /maintenance|cancel only mode/i, kind: 'maintenance', source: COINBASE },
];

/** By ccxt id. */
export const RULES_B: Record<string, ErrorRule[]> = {
  bitfinex,
  gate,
  phemex,
  bitstamp,
  poloniex,
  lbank,
  hitbtc,
  coinbaseexchange,
};
