import ccxt from 'ccxt';
import { afterEach, describe, expect, it } from 'vitest';
import { CcxtVenue, floorToStep, toMarket, toOrder } from '../../src/live';
import { toNumber } from '../../src/exchanges/numbers';
import {
  DECIMAL_PLACES,
  floorToRule,
  marketRule,
  precisionRule,
  roundToRule,
  SIGNIFICANT_DIGITS,
  stepAt,
  TICK_SIZE,
} from '../../src/exchanges/precision';
import { BITFINEX, KRAKEN } from './ccxt-static-markets';

/**
 * Conformance, issue 38 point 4 (numbers read exactly). Real payloads replayed through ccxt and our
 * mappers, stubbed at ccxt's HTTP boundary (its fetch): nothing here touches the internet.
 */

/**
 * Kraken QueryOrders, "closed market order": ccxt's recorded response
 * (ccxt/ccxt ts/src/test/static/response/kraken.json @ 0621cdc032679f13075cb28fbdb7e6c96a959552,
 * fetchOrder "closed market order", its httpResponse as recorded). ccxt hands the fee through as the
 * string "0.018475" (its parsedResponse shows `fee.cost: "0.018475"`).
 */
const KRAKEN_CLOSED_MARKET_ORDER = {
  error: [],
  result: {
    'OGMZCL-KC6MC-ZRBGM6': {
      refid: null,
      userref: '0',
      status: 'closed',
      opentm: '1705260547.472000',
      starttm: '0',
      expiretm: '0',
      descr: {
        pair: 'LTCUSDT',
        type: 'buy',
        ordertype: 'market',
        price: '0',
        price2: '0',
        leverage: 'none',
        order: 'buy 0.10000000 LTCUSDT @ market',
        close: '',
      },
      vol: '0.10000000',
      vol_exec: '0.10000000',
      cost: '7.105741',
      fee: '0.018475',
      price: '71.05741',
      stopprice: '0.000000',
      limitprice: '0.000000',
      misc: '',
      oflags: 'fciq',
      trades: ['TWA6QJ-ZO4EM-6QIHQJ'],
      reason: null,
      closetm: '1705260547.4728658',
    },
  },
};

/**
 * Markets as ccxt recorded them (ccxt-static-markets.ts: ts/src/test/static/markets/kraken.json and
 * bitfinex.json in the ccxt repository, commits named there). Bitfinex's are in significant digits
 * (`precision: {amount: 8, price: 5}`).
 */
const KRAKEN_LTC_USDT = KRAKEN['LTC/USDT'];
const BITFINEX_BTC_USD = BITFINEX['BTC/USD'];
const BITFINEX_LTC_USD = BITFINEX['LTC/USD'];

function json(body: unknown): Promise<Response> {
  return Promise.resolve(
    new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } }),
  );
}

const open: CcxtVenue[] = [];
afterEach(async () => {
  for (const v of open.splice(0)) await v.close();
});

/** A CcxtVenue whose ccxt instance already holds `markets` (no market download) and answers `route`. */
function venueWith(
  exchange: string,
  markets: Record<string, unknown>,
  route: (url: URL) => unknown,
): { venue: CcxtVenue; calls: URL[] } {
  const calls: URL[] = [];
  const venue = new CcxtVenue({
    exchange,
    apiKey: 'key',
    secret: Buffer.from('a-test-secret-of-some-length').toString('base64'),
    orderPollMs: 3_600_000,
    fetchImplementation: (u: string) => {
      const url = new URL(u);
      calls.push(url);
      const body = route(url);
      if (body === undefined) return Promise.reject(new Error(`no recorded reply for ${url.pathname}`));
      return json(body);
    },
  });
  open.push(venue);
  const inner = (venue as unknown as { ccxt: { setMarkets(m: unknown): void } }).ccxt;
  inner.setMarkets(markets);
  return { venue, calls };
}

describe('numeric strings from ccxt are read (fees, amounts, balances)', () => {
  it('Kraken closed market order: the fee "0.018475" USDT is kept (it was dropped: net PnL overstated)', async () => {
    const { venue, calls } = venueWith('kraken', { 'LTC/USDT': KRAKEN_LTC_USDT }, (url) =>
      url.pathname === '/0/private/QueryOrders' ? KRAKEN_CLOSED_MARKET_ORDER : undefined,
    );
    const o = await venue.fetchOrder('OGMZCL-KC6MC-ZRBGM6', 'LTC/USDT');
    expect(calls.some((u) => u.pathname === '/0/private/QueryOrders')).toBe(true);
    // Meaning: a market buy of 0.1 LTC, wholly filled at 71.05741 for 7.105741 USDT, fee 0.018475 USDT.
    expect(o.status).toBe('closed');
    expect(o.side).toBe('buy');
    expect(o.amount).toBe(0.1);
    expect(o.filled).toBe(0.1);
    expect(o.remaining).toBe(0);
    expect(o.average).toBe(71.05741);
    expect(o.cost).toBe(7.105741);
    expect(o.fee).toEqual({ cost: 0.018475, currency: 'USDT' });
  });

  it('Bybit spot: an order whose fee, filled, average and cost come as strings keeps every figure', async () => {
    // Bybit v5 execution/order fields are strings (https://bybit-exchange.github.io/docs/v5/order/execution);
    // ccxt's bybit.parseTrade keeps `fee.cost` as the `execFee` string, and an order built from such
    // trades carries it. This is the shape ccxt hands over (ccxt 4.5 bybit.js parseTrade, spot buy).
    const fromCcxt = {
      id: '1321052653536515584',
      clientOrderId: 'b1',
      symbol: 'ETH/USDT',
      type: 'limit',
      side: 'buy',
      status: 'closed',
      price: '1800.00',
      amount: '0.10',
      filled: '0.10',
      remaining: '0',
      average: '1800.00',
      cost: '180.000',
      fee: { cost: '0.0001', currency: 'ETH', rate: '0.001' },
      timestamp: 1672221263407,
    };
    const o = toOrder(fromCcxt);
    expect(o).toMatchObject({
      price: 1800,
      amount: 0.1,
      filled: 0.1,
      remaining: 0,
      average: 1800,
      cost: 180,
      fee: { cost: 0.0001, currency: 'ETH' },
    });
  });

  it('reads finite numbers and numeric strings; anything else reads as absent', () => {
    expect(toNumber('0.018475')).toBe(0.018475);
    expect(toNumber(' 12.5 ')).toBe(12.5);
    expect(toNumber('1e-8')).toBe(1e-8);
    expect(toNumber('-3')).toBe(-3);
    expect(toNumber('.5')).toBe(0.5);
    expect(toNumber(7)).toBe(7);
    for (const bad of [
      '',
      ' ',
      'abc',
      'NaN',
      'Infinity',
      '-Infinity',
      '0x10',
      '1,000',
      '1e999',
      null,
      undefined,
    ]) {
      expect(toNumber(bad)).toBeNull();
    }
    expect(toNumber(Number.NaN)).toBeNull();
    expect(toNumber(Number.POSITIVE_INFINITY)).toBeNull();
    expect(toNumber({})).toBeNull();
  });
});

describe('every ccxt precision mode', () => {
  it('TICK_SIZE is the step, DECIMAL_PLACES a count of decimals', () => {
    expect(precisionRule(0.01, TICK_SIZE, 'price')).toEqual({ kind: 'step', step: 0.01 });
    expect(precisionRule('0.5', TICK_SIZE, 'price')).toEqual({ kind: 'step', step: 0.5 });
    expect(precisionRule(2, DECIMAL_PLACES, 'price')).toEqual({ kind: 'step', step: 0.01 });
    expect(precisionRule(0, DECIMAL_PLACES, 'amount')).toEqual({ kind: 'step', step: 1 });
    expect(precisionRule(null, TICK_SIZE, 'amount')).toEqual({ kind: 'step', step: 1e-8 });
  });

  it('SIGNIFICANT_DIGITS: the step follows the value (5 digits: 97123.4 → 97123, 1.234567 → 1.2345)', () => {
    const rule = precisionRule(5, SIGNIFICANT_DIGITS, 'price');
    expect(rule).toEqual({ kind: 'significant', digits: 5, maxDecimals: 8 });
    expect(stepAt(rule, 97123.4)).toBe(1);
    expect(stepAt(rule, 1000)).toBe(0.1); // 1000.0 has 5 digits (log10 would say 2.9999…)
    expect(stepAt(rule, 999.99)).toBe(0.01);
    expect(stepAt(rule, 0.00012345678)).toBe(1e-8); // capped at 8 decimals
    expect(floorToRule(97123.46, rule)).toBe(97123);
    expect(roundToRule(1.234567, rule)).toBe(1.2346);
    expect(roundToRule(99999.7, rule)).toBe(100000);
    expect(roundToRule(0.000123456, rule)).toBe(0.00012346);
  });

  it('Bitfinex markets (recorded): prices 5 significant digits, amounts 8 decimals', () => {
    const btc = toMarket(BITFINEX_BTC_USD, SIGNIFICANT_DIGITS, 'bitfinex');
    // Meaning: amounts are multiples of 0.00000001 BTC; prices have 5 significant digits, at most
    // 8 decimals (the old reader made the price step 0.00001 and sent 97123.4 with 6 digits).
    expect(btc.amountStep).toBe(1e-8);
    expect(btc.amountSignificantDigits).toBeUndefined();
    expect(btc.priceStep).toBe(1e-8);
    expect(btc.priceSignificantDigits).toBe(5);
    expect(roundToRule(97123.4, marketRule(btc, 'price'))).toBe(97123);
    expect(floorToRule(0.123456789, marketRule(btc, 'amount'))).toBe(0.12345678);
    const ltc = toMarket(BITFINEX_LTC_USD, SIGNIFICANT_DIGITS, 'bitfinex');
    expect(roundToRule(71.057416, marketRule(ltc, 'price'))).toBe(71.057);
    expect(ltc.minAmount).toBe(0.04);
  });

  it('a Bitfinex limit order is sent with 5 significant digits and an 8-decimal amount', async () => {
    const sent: URL[] = [];
    const bodies: string[] = [];
    const venue = new CcxtVenue({
      exchange: 'bitfinex',
      apiKey: 'key',
      secret: 'secret',
      orderPollMs: 3_600_000,
      fetchImplementation: (u: string, init: Record<string, unknown>) => {
        const url = new URL(u);
        sent.push(url);
        bodies.push(typeof init.body === 'string' ? init.body : '');
        if (url.pathname.endsWith('/auth/w/order/submit')) {
          // Bitfinex's order/submit reply shape (https://docs.bitfinex.com/reference/rest-auth-submit-order).
          return json([
            1567590617.442,
            'on-req',
            null,
            null,
            [
              [
                30630788061,
                null,
                1,
                'tBTCUSD',
                1567590617439,
                1567590617439,
                0.12345678,
                0.12345678,
                'EXCHANGE LIMIT',
                null,
                null,
                null,
                4096,
                'ACTIVE',
                null,
                null,
                97123,
                0,
                0,
                0,
                null,
                null,
                null,
                0,
                null,
                null,
                null,
                null,
                'API>BFX',
                null,
                null,
                {},
              ],
            ],
            null,
            'SUCCESS',
            'Submitting 1 orders.',
          ]);
        }
        return Promise.reject(new Error(`no recorded reply for ${url.pathname}`));
      },
    });
    open.push(venue);
    (venue as unknown as { ccxt: { setMarkets(m: unknown): void } }).ccxt.setMarkets({
      'BTC/USD': BITFINEX_BTC_USD,
    });
    await venue.createOrder({
      symbol: 'BTC/USD',
      type: 'limit',
      side: 'buy',
      amount: 0.123456789,
      price: 97123.4,
      clientOrderId: '1',
    });
    const body = JSON.parse(bodies[sent.findIndex((u) => u.pathname.endsWith('/auth/w/order/submit'))]!) as {
      price: string;
      amount: string;
    };
    expect(body.price).toBe('97123');
    expect(body.amount).toBe('0.12345678');
  });

  it('the 16 other catalogue exchanges ccxt supports use TICK_SIZE (their steps are read as is)', () => {
    const tick = [
      'binance',
      'bybit',
      'coinbaseexchange',
      'okx',
      'bitget',
      'mexc',
      'kucoin',
      'bingx',
      'kraken',
      'gate',
      'phemex',
      'bitstamp',
      'poloniex',
      'lbank',
      'hitbtc',
    ];
    const exchanges = ccxt as unknown as Record<string, new () => { precisionMode: number }>;
    for (const id of tick) expect([id, new exchanges[id]!().precisionMode]).toEqual([id, TICK_SIZE]);
    expect(new exchanges.bitfinex!().precisionMode).toBe(SIGNIFICANT_DIGITS);
  });
});

describe('full sells leave no dust', () => {
  it('floorToStep(1.23456789, 1e-8) is 1.23456789 (it was 1.23456788)', () => {
    expect(floorToStep(1.23456789, 1e-8)).toBe(1.23456789);
    expect(floorToStep(0.0123, 0.0001)).toBe(0.0123);
    expect(floorToStep(0.30000000000000004, 0.1)).toBe(0.3);
  });
});
