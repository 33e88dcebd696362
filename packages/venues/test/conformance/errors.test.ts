import { describe, expect, it } from 'vitest';
import { CcxtVenue } from '../../src/ccxt-venue';
import { EXCHANGE_ERROR_RULES } from '../../src/exchanges/errors';
import type { VenueError } from '../../src/errors';

/**
 * Issue 38 point 3: an exchange's error answer, replayed at ccxt's HTTP boundary (fetchImplementation),
 * becomes our class and its action (what happens next). The bodies are the exchanges' documented
 * answers (their error-code pages) or the ones ccxt recorded in ts/src/<exchange>.ts comments. Each
 * case is played on the first request the venue makes (loading the markets for a ticker), so the
 * exchange's own error handling in ccxt runs exactly as on a live account.
 */

interface Case {
  /** What the exchange means, in words (the expected meaning). */
  means: string;
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  cls: string;
  action: VenueError['action'];
  reason?: string;
  retryAfterMs?: number;
}

const clock = (means: string, status: number, body: unknown): Case => ({
  means,
  status,
  body,
  cls: 'ClockSkewError',
  action: 'resync_clock',
});
const auth = (means: string, status: number, body: unknown): Case => ({
  means,
  status,
  body,
  cls: 'AuthenticationError',
  action: 'reconnect',
});
const funds = (status: number, body: unknown): Case => ({
  means: 'insufficient balance',
  status,
  body,
  cls: 'InsufficientFundsError',
  action: 'wait_funds',
});
const refused = (reason: string, status: number, body: unknown): Case => ({
  means: `order refused: ${reason}`,
  status,
  body,
  cls: 'InvalidOrderError',
  action: 'refuse',
  reason,
});
const notFound = (status: number, body: unknown): Case => ({
  means: 'unknown order',
  status,
  body,
  cls: 'OrderNotFoundError',
  action: 'refuse',
});
const limited = (
  status: number,
  body: unknown,
  headers?: Record<string, string>,
  retryAfterMs?: number,
): Case => ({
  means: 'rate limit',
  status,
  body,
  ...(headers ? { headers } : {}),
  cls: 'VenueRateLimitError',
  action: 'retry',
  ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
});
const down = (status: number, body: unknown): Case => ({
  means: 'maintenance',
  status,
  body,
  cls: 'VenueUnavailableError',
  action: 'retry',
});
const unmapped = (status: number, body: unknown): Case => ({
  means: 'nobody maps it',
  status,
  body,
  cls: 'UnmappedExchangeError',
  action: 'retry_then_pause',
});

/** By catalogue key. */
const CASES: Record<string, Case[]> = {
  binance: [
    clock('timestamp outside recvWindow', 400, {
      code: -1021,
      msg: 'Timestamp for this request is outside of the recvWindow.',
    }),
    auth('bad signature', 400, { code: -1022, msg: 'Signature for this request is not valid.' }),
    auth('bad key, IP or permission', 401, {
      code: -2015,
      msg: 'Invalid API-key, IP, or permissions for action.',
    }),
    funds(400, { code: -2010, msg: 'Account has insufficient balance for requested action.' }),
    // The client id is in use by an order on the book: look it up, never a refusal (nor a second order).
    {
      means: 'duplicate client id',
      status: 400,
      body: { code: -2010, msg: 'Duplicate order sent.' },
      cls: 'DuplicateOrderError',
      action: 'retry',
    },
    refused('min_cost', 400, { code: -1013, msg: 'Filter failure: NOTIONAL' }),
    refused('min_amount', 400, { code: -1013, msg: 'Filter failure: LOT_SIZE' }),
    refused('precision', 400, { code: -1111, msg: 'Precision is over the maximum defined for this asset.' }),
    refused('bad_symbol', 400, { code: -1121, msg: 'Invalid symbol.' }),
    notFound(400, { code: -2013, msg: 'Order does not exist.' }),
    limited(
      429,
      { code: -1003, msg: 'Too many requests; current limit is 6000 request weight per 1 MINUTE.' },
      { 'Retry-After': '7' },
      7_000,
    ),
  ],
  bybit: [
    clock('timestamp outside recv_window', 200, {
      retCode: 10002,
      retMsg:
        'invalid request, please check your server timestamp or recv_window param. req_timestamp[1700000000000],server_timestamp[1700000010000],recv_window[5000]',
      result: {},
      retExtInfo: {},
      time: 1700000010000,
    }),
    auth('bad key', 200, { retCode: 10003, retMsg: 'API key is invalid.', result: {}, retExtInfo: {} }),
    auth('IP not allowed', 200, {
      retCode: 10010,
      retMsg: "Unmatched IP, please check your API key's bound IP addresses.",
      result: {},
      retExtInfo: {},
    }),
    auth('no permission', 200, {
      retCode: 10005,
      retMsg: 'Permission denied, please check your API key permissions.',
      result: {},
      retExtInfo: {},
    }),
    funds(200, { retCode: 170131, retMsg: 'Insufficient balance.', result: {}, retExtInfo: {} }),
    refused('min_amount', 200, {
      retCode: 170136,
      retMsg: 'Order quantity lower than the minimum.',
      result: {},
      retExtInfo: {},
    }),
    refused('min_cost', 200, {
      retCode: 170140,
      retMsg: 'Order value exceeded lower limit.',
      result: {},
      retExtInfo: {},
    }),
    refused('precision', 200, {
      retCode: 170137,
      retMsg: 'Order volume decimal too long',
      result: {},
      retExtInfo: {},
    }),
    refused('bad_symbol', 200, { retCode: 170121, retMsg: 'Invalid symbol.', result: {}, retExtInfo: {} }),
    notFound(200, { retCode: 110001, retMsg: 'Order does not exist', result: {}, retExtInfo: {} }),
    limited(200, { retCode: 10006, retMsg: 'Too many visits!', result: {}, retExtInfo: {} }),
  ],
  bybit_testnet: [
    clock('timestamp outside recv_window (testnet)', 200, {
      retCode: 10002,
      retMsg: 'invalid request, please check your server timestamp or recv_window param',
      result: {},
      retExtInfo: {},
    }),
  ],
  okx: [
    clock('timestamp expired', 401, { code: '50102', msg: 'Timestamp request expired', data: [] }),
    auth('bad signature', 401, { code: '50113', msg: 'Invalid Sign', data: [] }),
    auth('IP not allowed', 401, {
      code: '50110',
      msg: "Your IP 1.2.3.4 is not included in your API key's IP whitelist.",
      data: [],
    }),
    funds(200, {
      code: '1',
      msg: 'All operations failed',
      data: [
        {
          clOrdId: '',
          ordId: '',
          sCode: '51008',
          sMsg: 'Order failed. Insufficient USDT balance in account.',
          tag: '',
        },
      ],
    }),
    refused('min_amount', 200, {
      code: '1',
      msg: '',
      data: [{ sCode: '51020', sMsg: 'Your order should meet or exceed the minimum order amount.' }],
    }),
    refused('bad_symbol', 400, { code: '51001', msg: "Instrument ID doesn't exist.", data: [] }),
    notFound(200, { code: '51603', msg: 'Order does not exist', data: [] }),
    limited(429, {
      code: '50011',
      msg: 'Rate limit reached. Please refer to API documentation and throttle requests accordingly.',
      data: [],
    }),
    down(503, { code: '50001', msg: 'Service temporarily unavailable. Please try again later.', data: [] }),
  ],
  bitget: [
    clock('timestamp expired', 400, {
      code: '40008',
      msg: 'Request timestamp expired',
      requestTime: 1700000000000,
      data: null,
    }),
    auth('bad signature', 400, {
      code: '40009',
      msg: 'sign signature error',
      requestTime: 1700000000000,
      data: null,
    }),
    auth('IP not allowed', 400, { code: '40018', msg: 'Invalid IP', requestTime: 1700000000000, data: null }),
    auth('no permission', 400, {
      code: '40014',
      msg: 'Incorrect permissions',
      requestTime: 1700000000000,
      data: null,
    }),
    funds(400, { code: '43012', msg: 'Insufficient balance', requestTime: 1700000000000, data: null }),
    refused('min_cost', 400, {
      code: '45110',
      msg: 'less than the minimum amount 5 USDT',
      requestTime: 1700000000000,
      data: null,
    }),
    refused('bad_symbol', 400, {
      code: '40309',
      msg: 'The symbol has been removed',
      requestTime: 1700000000000,
      data: null,
    }),
    notFound(400, { code: '43001', msg: 'The order does not exist', requestTime: 1700000000000, data: null }),
    limited(429, { code: '429', msg: 'Too Many Requests', requestTime: 1700000000000, data: null }),
  ],
  mexc: [
    clock('timestamp outside recvWindow', 400, {
      code: 700003,
      msg: 'Timestamp for this request is outside of the recvWindow.',
    }),
    auth('bad signature', 400, { code: 700002, msg: 'Signature for this request is not valid.' }),
    auth('bad key (ccxt: bad request)', 400, { code: 10072, msg: 'Api key info invalid' }),
    auth('IP not allowed (ccxt: bad request)', 400, {
      code: 700006,
      msg: 'IP [1.2.3.4] not in the ip white list',
    }),
    auth('no permission', 403, { code: 700007, msg: 'No permission to access the endpoint.' }),
    funds(400, { code: 30004, msg: 'Insufficient position' }),
    refused('min_amount', 400, {
      code: 30002,
      msg: 'The minimum transaction volume cannot be less than:5USDT',
    }),
    refused('bad_symbol', 400, { code: 10007, msg: 'bad symbol' }),
    notFound(400, { code: -2011, msg: 'Unknown order sent.' }),
    limited(429, { code: 429, msg: 'Too many requests' }),
  ],
  kucoin: [
    clock('timestamp differs from server time', 400, {
      code: '400002',
      msg: 'KC-API-TIMESTAMP Invalid -- Time differs from server time by more than 5 seconds',
    }),
    auth('bad signature', 401, { code: '400005', msg: 'Signature error - Please check your signature' }),
    auth('IP not allowed', 400, { code: '400006', msg: 'The IP address is not in the API whitelist' }),
    auth('no permission', 400, {
      code: '400007',
      msg: 'Access Denied -- Your API key does not have sufficient permissions to access the URI',
    }),
    funds(400, { code: '200004', msg: 'Balance insufficient!' }),
    refused('min_amount', 400, { code: '400100', msg: 'Order size below the minimum requirement.' }),
    refused('min_cost', 400, { code: '400100', msg: 'Order funds below the minimum requirement.' }),
    refused('precision', 400, { code: '400100', msg: 'Price increment invalid.' }),
    refused('bad_symbol', 400, { code: '900001', msg: 'symbol not exists' }),
    notFound(400, { code: '400100', msg: 'order_not_exist_or_not_allow_to_cancel' }),
    limited(429, { code: '429000', msg: 'Too Many Requests' }, { 'gw-ratelimit-reset': '1500' }, 1_500),
  ],
  bingx: [
    clock('timestamp mismatch (ccxt: bad symbol)', 200, {
      code: 100421,
      msg: 'Null timestamp or timestamp mismatch',
      debugMsg: '',
    }),
    auth('bad signature', 200, { code: 100001, msg: 'Signature verification failed', debugMsg: '' }),
    auth('IP not allowed', 200, { code: 100419, msg: 'IP does not match IP whitelist', success: false }),
    funds(200, { code: 101204, msg: '', data: {} }),
    refused('min_cost', 200, {
      code: 110425,
      msg: 'Please ensure that the minimum nominal value of the order placed must be greater than 2u',
    }),
    notFound(200, { code: 80016, msg: 'order not exist', debugMsg: '' }),
    limited(200, { code: 100410, msg: 'rate limitation', debugMsg: '' }),
  ],
  kraken: [
    clock('invalid nonce', 200, { error: ['EAPI:Invalid nonce'] }),
    auth('bad signature (ccxt: generic)', 200, { error: ['EAPI:Invalid signature'] }),
    auth('bad key', 200, { error: ['EAPI:Invalid key'] }),
    auth('no permission', 200, { error: ['EGeneral:Permission denied'] }),
    funds(200, { error: ['EOrder:Insufficient funds'] }),
    refused('min_amount', 200, { error: ['EOrder:Order minimum not met'] }),
    refused('min_cost', 200, { error: ['EOrder:Cost minimum not met'] }),
    refused('bad_symbol', 200, { error: ['EQuery:Unknown asset pair'] }),
    notFound(200, { error: ['EOrder:Unknown order'] }),
    limited(200, { error: ['EAPI:Rate limit exceeded'] }),
    down(200, { error: ['EService:Unavailable'] }),
  ],
  bitfinex: [
    // ccxt reads 10001 as PermissionDenied: this refusal paused the bots as a bad key.
    refused('min_amount', 500, ['error', 10001, 'Invalid order: minimum size for BTC/USD is 0.0002']),
    funds(500, ['error', 10001, 'Invalid order: not enough exchange balance for 10 BTCUSD at 30000']),
    refused('bad_symbol', 500, ['error', 10001, 'symbol: invalid']),
    notFound(500, ['error', 10001, 'Order not found.']),
    unmapped(500, ['error', 10001, 'Invalid order: something the table does not know']),
    auth('bad key', 500, ['error', 10100, 'apikey: invalid']),
    clock('nonce too small', 500, ['error', 10114, 'nonce: small']),
    limited(500, ['error', 11010, 'ERR_RATE_LIMIT']),
    down(500, ['error', 20060, 'maintenance']),
  ],
  gateio: [
    // ccxt reads REQUEST_EXPIRED as AuthenticationError: it asked the user to reconnect a good key.
    clock('timestamp far from server time', 401, {
      label: 'REQUEST_EXPIRED',
      message: 'gap between request Timestamp and server time exceeds 60',
    }),
    auth('bad signature', 401, { label: 'INVALID_SIGNATURE', message: 'Signature mismatch' }),
    auth('IP not allowed', 403, { label: 'IP_FORBIDDEN', message: 'Request IP not in whitelist' }),
    auth('no permission', 403, { label: 'FORBIDDEN', message: 'API key lacks the permission' }),
    funds(400, { label: 'BALANCE_NOT_ENOUGH', message: 'Not enough balance' }),
    refused('min_amount', 400, { label: 'AMOUNT_TOO_LITTLE', message: 'Order amount too small' }),
    refused('precision', 400, { label: 'INVALID_PRECISION', message: 'Invalid precision' }),
    refused('bad_symbol', 400, { label: 'INVALID_CURRENCY_PAIR', message: 'Invalid currency pair BTC_XXX' }),
    notFound(404, { label: 'ORDER_NOT_FOUND', message: 'Order not found' }),
    limited(
      429,
      { label: 'TOO_MANY_REQUESTS', message: 'Request Rate limit Exceeded' },
      { 'Retry-After': '2' },
      2_000,
    ),
  ],
  phemex: [
    auth('bad key', 401, { code: '401', msg: '401 Failed to load API KEY.' }),
    funds(200, { code: 11001, msg: 'TE_NO_ENOUGH_AVAILABLE_BALANCE', data: null }),
    refused('min_amount', 200, { code: 11058, msg: 'TE_QTY_TOO_SMALL', data: null }),
    refused('min_cost', 200, { code: 11115, msg: 'TE_ORDER_VALUE_TOO_SMALL', data: null }),
    refused('bad_symbol', 200, { code: 11027, msg: 'TE_SYMBOL_INVALID', data: null }),
    notFound(200, { code: 10002, msg: 'OM_ORDER_NOT_FOUND', data: null }),
  ],
  bitstamp: [
    clock('invalid nonce', 403, { status: 'error', reason: 'Invalid nonce', code: 'API0004' }),
    auth('bad signature', 403, { status: 'error', reason: 'Invalid signature', code: 'API0005' }),
    auth('IP not allowed', 403, { status: 'error', reason: 'IP address not allowed', code: 'API0003' }),
    auth('no permission', 403, { status: 'error', reason: 'No permission found', code: 'API0002' }),
    funds(200, {
      status: 'error',
      reason: {
        __all__: ['You have only 0.00100000 BTC available. Check your account balance for details.'],
      },
    }),
    refused('min_cost', 200, { status: 'error', reason: { __all__: ['Minimum order size is 10.0 USD.'] } }),
    refused('precision', 200, {
      status: 'error',
      reason: { amount: ['Ensure that there are no more than 8 decimal places.'] },
    }),
    notFound(200, { status: 'error', reason: 'Order not found.' }),
  ],
  poloniex: [
    funds(400, { code: 21709, message: 'Low available balance' }),
    refused('min_amount', 400, { code: 21330, message: 'Quantity is less than minQuantity trade limit' }),
    refused('min_cost', 400, { code: 21322, message: 'Amount is less than minAmount trade limit' }),
    refused('bad_symbol', 400, { code: 10040, message: 'Invalid symbol' }),
    notFound(400, { code: 21301, message: 'Order not found' }),
    down(400, {
      code: 21340,
      message: 'No order creation/cancelation is allowed as Poloniex is in Maintenance Mode',
    }),
  ],
  lbank: [
    auth('bad signature', 200, { result: 'false', error_code: 10007, ts: 1700000000000 }),
    auth('no permission', 200, { result: 'false', error_code: 10022, ts: 1700000000000 }),
    funds(200, { result: 'false', error_code: 10016, ts: 1700000000000 }),
    refused('min_amount', 200, { result: 'false', error_code: 10013, ts: 1700000000000 }),
    refused('bad_symbol', 200, { result: 'false', error_code: 10008, ts: 1700000000000 }),
    limited(200, { result: 'false', error_code: 10004, ts: 1700000000000 }),
  ],
  hitbtc: [
    auth('bad key', 401, {
      error: { code: 1002, message: 'Authorization is required or has been failed', description: '' },
    }),
    auth('no permission', 403, {
      error: { code: 1003, message: 'Action is forbidden for this API key', description: '' },
    }),
    funds(400, { error: { code: 20001, message: 'Insufficient funds', description: '' } }),
    refused('min_amount', 400, { error: { code: 2011, message: 'Quantity too low', description: '' } }),
    refused('bad_symbol', 400, { error: { code: 2001, message: 'Symbol not found', description: '' } }),
    notFound(400, { error: { code: 20002, message: 'Order not found', description: '' } }),
    limited(429, { error: { code: 429, message: 'Too many requests', description: '' } }),
  ],
  coinbaseexchange: [
    clock('request timestamp expired', 401, { message: 'request timestamp expired' }),
    auth('bad signature', 401, { message: 'invalid signature' }),
    auth('no permission', 403, { message: 'Forbidden' }),
    funds(400, { message: 'Insufficient funds' }),
    refused('min_amount', 400, { message: 'size is too small. Minimum size is 0.001' }),
    refused('min_cost', 400, { message: 'funds is too small. Minimum funds is 1' }),
    refused('bad_symbol', 400, { message: 'Product not found' }),
    notFound(404, { message: 'NotFound' }),
    limited(429, { message: 'Private rate limit exceeded' }),
  ],
};

/** A venue whose every HTTP request gets `c`'s answer; `urls` records what was asked. */
function replaying(exchange: string, c: Case) {
  const urls: string[] = [];
  const v = new CcxtVenue({
    exchange,
    apiKey: 'k'.repeat(32),
    secret: 's'.repeat(32),
    password: 'p'.repeat(12),
    fetchImplementation: (u) => {
      urls.push(u);
      return Promise.resolve(
        new Response(typeof c.body === 'string' ? c.body : JSON.stringify(c.body), {
          status: c.status ?? 200,
          headers: { 'content-type': 'application/json', ...c.headers },
        }),
      );
    },
  });
  return { v, urls };
}

describe('exchange errors by what the exchange said (conformance)', () => {
  it('has a table for every catalogue exchange that ccxt supports', async () => {
    const { EXCHANGES } = await import('@bytx/contract');
    const ids = EXCHANGES.filter((e) => e.ccxtId).map((e) => e.ccxtId as string);
    expect(ids).toHaveLength(17);
    for (const id of ids) expect(EXCHANGE_ERROR_RULES[id]?.length, id).toBeGreaterThan(0);
    for (const e of EXCHANGES.filter((x) => x.ccxtId)) expect(CASES[e.key]?.length, e.key).toBeGreaterThan(0);
    for (const rules of Object.values(EXCHANGE_ERROR_RULES)) {
      for (const r of rules) expect(r.source).toMatch(/^https:\/\//);
    }
  });

  for (const [exchange, cases] of Object.entries(CASES)) {
    describe(exchange, () => {
      for (const c of cases) {
        it(`${c.means} → ${c.cls} (${c.action})`, async () => {
          const { v, urls } = replaying(exchange, c);
          const err = (await v.fetchTicker('BTC/USDT').catch((e: unknown) => e)) as VenueError;
          expect(err.name, String(err.message)).toBe(c.cls);
          expect(err.action).toBe(c.action);
          if (c.reason) expect(err).toMatchObject({ reason: c.reason });
          if (c.retryAfterMs !== undefined) expect(err).toMatchObject({ retryAfterMs: c.retryAfterMs });
          if (c.cls === 'ClockSkewError') {
            // The action was carried out: the venue turned on adjustForTimeDifference and asked the
            // exchange's time where it has a time endpoint (the retry of a signed call: test below).
            expect((v.ccxt.options as Record<string, unknown>).adjustForTimeDifference).toBe(true);
            if (v.ccxt.has.fetchTime) expect(urls.length).toBeGreaterThanOrEqual(2);
          }
        });
      }
    });
  }

  it('a clock-skew refusal of a signed call resyncs the clock and the retry succeeds (Binance -1021)', async () => {
    const serverAhead = 10_000; // ms: the exchange's clock is 10 s ahead of ours
    const signed: URL[] = [];
    const v = new CcxtVenue({
      exchange: 'binance',
      apiKey: 'k'.repeat(64),
      secret: 's'.repeat(64),
      fetchImplementation: (u) => {
        const url = new URL(u);
        const reply = (status: number, body: unknown) =>
          Promise.resolve(
            new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }),
          );
        if (url.pathname === '/api/v3/exchangeInfo') {
          return reply(200, { timezone: 'UTC', serverTime: Date.now(), rateLimits: [], symbols: [] });
        }
        if (url.pathname === '/api/v3/time') return reply(200, { serverTime: Date.now() + serverAhead });
        if (url.pathname === '/api/v3/account') {
          signed.push(url);
          const ts = Number(url.searchParams.get('timestamp'));
          // Binance's rule: more than 1 s ahead of, or recvWindow behind, its clock is refused.
          if (Math.abs(ts - (Date.now() + serverAhead)) > 5_000) {
            return reply(400, {
              code: -1021,
              msg: 'Timestamp for this request is outside of the recvWindow.',
            });
          }
          return reply(200, {
            makerCommission: 10,
            canTrade: true,
            accountType: 'SPOT',
            balances: [{ asset: 'BTC', free: '0.5', locked: '0.1' }],
          });
        }
        return reply(404, { code: -1, msg: `no fake for ${url.pathname}` });
      },
    });
    const balances = await v.fetchBalance();
    expect(balances).toBeTruthy();
    expect(signed).toHaveLength(2);
    expect(
      Number(signed[1]!.searchParams.get('timestamp')) - Number(signed[0]!.searchParams.get('timestamp')),
    ).toBeGreaterThan(5_000);
  });
});
