import { describe, expect, it } from 'vitest';
import { CcxtVenue, clientIdRule, clientOrderIdFor } from '../../src/live';
import { RECORDED_MARKETS } from './ccxt-static-markets';

/**
 * Issue 38 point 1: what ccxt puts on the wire when the venue places a bot's order. The request is
 * captured at ccxt's HTTP boundary (fetchImplementation) and must carry the client id in the field and
 * the form the exchange's API documentation gives (links in src/exchanges/client-ids.ts). The markets
 * are given to ccxt directly, so the only request made is the create itself: the market as ccxt
 * recorded it (ccxt-static-markets.ts, from ccxt's ts/src/test/static/markets/) where that file has a
 * usable one; for Binance (whose stored file is in an older precision mode) one spot market built in
 * ccxt's unified shape with the exchange's market id. Nothing here touches the internet.
 */

const BOT = 'b3f2a8c1e7b4d4e2a9c1f';
const SEQ = 17;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const B64 = Buffer.from('s'.repeat(48)).toString('base64');

interface Case {
  /** The exchange's documented rule, in words (the expected meaning). */
  means: string;
  symbol: string;
  marketId: string;
  /** The create request: method and path. */
  path: RegExp;
  /** The field the exchange reads the client id from. */
  field: string;
  check: (value: unknown, expected: string) => void;
  password?: string;
  secret?: string;
  options?: Record<string, unknown>;
  /** The exchange's raw market fields ccxt's createOrder reads. */
  info?: Record<string, unknown>;
}

const asString = (v: unknown, expected: string) => expect(v).toBe(expected);

const CASES: Record<string, Case> = {
  okx: {
    means: 'clOrdId: 1–32 case-sensitive letters and digits (no hyphen)',
    symbol: 'BTC/USDT',
    marketId: 'BTC-USDT',
    // ccxt 4.5 places a single OKX order through the batch endpoint (a one-element array).
    path: /^\/api\/v5\/trade\/(order|batch-orders)$/,
    field: 'clOrdId',
    password: 'pass',
    check: (v, e) => {
      asString(v, e);
      expect(v).toMatch(/^[A-Za-z0-9]{1,32}$/);
    },
  },
  kraken: {
    means: 'cl_ord_id: a long UUID (the 18-character free text cannot hold our id)',
    symbol: 'BTC/USD',
    marketId: 'XXBTZUSD',
    path: /^\/0\/private\/AddOrder$/,
    field: 'cl_ord_id',
    secret: B64,
    check: (v, e) => {
      asString(v, e);
      expect(v).toMatch(UUID);
    },
  },
  bitfinex: {
    means: 'cid: an int45 (a JSON number, not a string)',
    symbol: 'BTC/USD',
    marketId: 'tBTCUSD',
    path: /^\/v2\/auth\/w\/order\/submit$/,
    field: 'cid',
    check: (v, e) => {
      expect(typeof v).toBe('number');
      expect(Number.isSafeInteger(v)).toBe(true);
      expect(v as number).toBeGreaterThan(0);
      expect(v as number).toBeLessThan(2 ** 45);
      expect(String(v)).toBe(e);
    },
  },
  coinbaseexchange: {
    means: 'client_oid: a UUID',
    symbol: 'BTC/USD',
    marketId: 'BTC-USD',
    path: /^\/orders$/,
    field: 'client_oid',
    secret: B64,
    password: 'pass',
    check: (v, e) => {
      asString(v, e);
      expect(v).toMatch(UUID);
    },
  },
  gateio: {
    means: 'text: `t-` then at most 28 of [0-9A-Za-z_.-]',
    symbol: 'BTC/USDT',
    marketId: 'BTC_USDT',
    path: /^\/api\/v4\/spot\/orders$/,
    field: 'text',
    check: (v, e) => {
      asString(v, e);
      expect(v).toMatch(/^t-[0-9A-Za-z_.-]{1,28}$/);
    },
  },
  binance: {
    means: 'newClientOrderId: ^[.A-Z:/a-z0-9_-]{1,36}$',
    symbol: 'BTC/USDT',
    marketId: 'BTCUSDT',
    path: /^\/api\/v3\/order$/,
    field: 'newClientOrderId',
    info: { orderTypes: ['LIMIT', 'MARKET'] },
    check: (v, e) => {
      asString(v, e);
      expect(v).toMatch(/^[.A-Z:/a-z0-9_-]{1,36}$/);
    },
  },
  hitbtc: {
    means: 'client_order_id (ccxt does not map `clientOrderId` here): at most 32 of [A-Za-z0-9_-]',
    symbol: 'BTC/USDT',
    marketId: 'BTCUSDT',
    path: /^\/api\/3\/spot\/order$/,
    field: 'client_order_id',
    check: (v, e) => {
      asString(v, e);
      expect(v).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
    },
  },
  bybit: {
    means: 'orderLinkId: at most 36 of letters, digits, `-` and `_`',
    symbol: 'BTC/USDT',
    marketId: 'BTCUSDT',
    path: /^\/v5\/order\/create$/,
    field: 'orderLinkId',
    options: { enableUnifiedAccount: true, enableUnifiedMargin: false },
    check: (v, e) => {
      asString(v, e);
      expect(v).toMatch(/^[A-Za-z0-9_-]{1,36}$/);
    },
  },
};

/** The fields of a captured request: JSON or url-encoded body, then the query string. */
function fieldsOf(url: URL, body: string): Record<string, unknown> {
  const out: Record<string, unknown> = Object.fromEntries(url.searchParams);
  if (!body) return out;
  try {
    let parsed: unknown = JSON.parse(body);
    if (Array.isArray(parsed)) parsed = parsed[0];
    if (parsed && typeof parsed === 'object') return { ...out, ...(parsed as Record<string, unknown>) };
  } catch {
    // url-encoded (Binance, Kraken)
  }
  return { ...out, ...Object.fromEntries(new URLSearchParams(body)) };
}

/** The recorded market of the case's symbol, else one built in ccxt's unified shape (precision in the
 * exchange's own precision mode). */
function marketFor(exchange: string, mode: number, c: Case): unknown {
  return RECORDED_MARKETS[exchange]?.[c.symbol] ?? unifiedMarket(mode, c);
}

/** One spot market in ccxt's unified shape, precision in the exchange's own precision mode. */
function unifiedMarket(mode: number, c: Case) {
  const [base, quote] = c.symbol.split('/') as [string, string];
  const tick = mode === 4;
  return {
    id: c.marketId,
    symbol: c.symbol,
    base,
    quote,
    baseId: base,
    quoteId: quote,
    type: 'spot',
    spot: true,
    margin: false,
    swap: false,
    future: false,
    option: false,
    contract: false,
    active: true,
    taker: 0.001,
    maker: 0.001,
    precision: { amount: tick ? 0.00001 : 5, price: tick ? 0.1 : 5 },
    limits: { amount: { min: 0.00001 }, price: {}, cost: { min: 1 }, leverage: {} },
    info: c.info ?? {},
  };
}

describe('client ids on the wire: ccxt sends each exchange its documented field and form', () => {
  for (const [exchange, c] of Object.entries(CASES)) {
    it(`${exchange}: ${c.means}`, async () => {
      const calls: { method: string; url: URL; body: string }[] = [];
      const v = new CcxtVenue({
        exchange,
        apiKey: 'k'.repeat(32),
        secret: c.secret ?? 's'.repeat(64),
        ...(c.password ? { password: c.password } : {}),
        ...(c.options ? { ccxtOptions: { options: c.options } } : {}),
        orderPollMs: 3_600_000,
        fetchImplementation: (u, init) => {
          const url = new URL(u);
          calls.push({
            method: typeof init.method === 'string' ? init.method : 'GET',
            url,
            body: typeof init.body === 'string' ? init.body : '',
          });
          // The answer does not matter here (the request is what is checked): an empty success.
          return Promise.resolve(new Response('{}', { status: 200 }));
        },
      });
      const cx = (v as unknown as { ccxt: { precisionMode: number; setMarkets: (m: unknown[]) => void } })
        .ccxt;
      const market = marketFor(exchange, cx.precisionMode, c) as { id: string };
      expect(market.id).toBe(c.marketId);
      cx.setMarkets([market]);
      const expected = clientOrderIdFor(exchange, BOT, SEQ);
      expect(expected).toMatch(clientIdRule(exchange).pattern);
      await v
        .createOrder({
          symbol: c.symbol,
          side: 'buy',
          type: 'limit',
          amount: 0.001,
          price: 50_000,
          clientOrderId: expected,
        })
        .catch((e: unknown) => {
          if (process.env.DEBUG_CIDS) console.log(exchange, e);
        });
      await v.close();
      const create = calls.find((k) => k.method === 'POST' && c.path.test(k.url.pathname));
      expect(create, calls.map((k) => `${k.method} ${k.url.pathname}`).join(', ')).toBeDefined();
      const fields = fieldsOf(create!.url, create!.body);
      c.check(fields[c.field], expected);
    });
  }
});
