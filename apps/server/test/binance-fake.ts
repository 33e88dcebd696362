/* eslint-disable @typescript-eslint/no-explicit-any -- JSON orders read loosely */
import { binanceExchangeInfo } from './helpers';

const json = (b: unknown, status = 200) =>
  new Response(JSON.stringify(b), { status, headers: { 'content-type': 'application/json' } });

export type BinanceKeyState = 'trade_only' | 'can_withdraw' | 'revoked';

/**
 * Binance's spot REST API behind ccxt's fetch, as recorded-style responses: market info, the account,
 * API restrictions (https://developers.binance.com/docs/wallet/account/api-key-permission), and an order
 * book of this key's orders (create, query by client id, open orders, all orders, cancel). `state` is what
 * the exchange now says about the key: 'revoked' (or a wrong key / no signature) answers every signed call
 * with Binance's HTTP 401 -2015; 'can_withdraw' sets `enableWithdrawals`. `calls` lists every call but
 * the market info, as "METHOD /path". `price()` fills market orders (quote per base).
 */
export function fakeBinanceSpot(apiKey: string, price: () => number) {
  const fake = { state: 'trade_only' as BinanceKeyState, calls: [] as string[] };
  let seq = 1000;
  const orders = new Map<string, Record<string, any>>();
  const byId = new Map<string, string>();
  const fetchImplementation = async (url: string, init: Record<string, unknown>): Promise<Response> => {
    await Promise.resolve();
    const u = new URL(url);
    const method = (typeof init.method === 'string' ? init.method : 'GET').toUpperCase();
    const headers = (init.headers ?? {}) as Record<string, string>;
    const key = headers['X-MBX-APIKEY'] ?? headers['x-mbx-apikey'];
    const params = new URLSearchParams(u.search);
    if (typeof init.body === 'string') for (const [k, v] of new URLSearchParams(init.body)) params.set(k, v);
    if (u.pathname === '/api/v3/exchangeInfo') return json(binanceExchangeInfo());
    fake.calls.push(`${method} ${u.pathname}`);
    if (fake.state === 'revoked' || key !== apiKey || !params.get('signature')) {
      return json({ code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' }, 401);
    }
    if (u.pathname === '/api/v3/account') {
      return json({ balances: [{ asset: 'USDT', free: '10000', locked: '0' }] });
    }
    if (u.pathname === '/sapi/v1/account/apiRestrictions') {
      return json({
        ipRestrict: false,
        createTime: 1698645219000,
        enableReading: true,
        enableWithdrawals: fake.state === 'can_withdraw',
        enableInternalTransfer: false,
        enableMargin: false,
        enableFutures: false,
        permitsUniversalTransfer: false,
        enableVanillaOptions: false,
        enableFixApiTrade: false,
        enableFixReadOnly: false,
        enableSpotAndMarginTrading: true,
        enablePortfolioMarginTrading: false,
      });
    }
    if (u.pathname === '/api/v3/order' && method === 'POST') {
      const id = String(seq++);
      const market = params.get('type') === 'MARKET';
      const qty = params.get('quantity') ?? '0';
      const p = market ? price().toFixed(2) : (params.get('price') ?? '0');
      const o = {
        symbol: 'BTCUSDT',
        orderId: Number(id),
        clientOrderId: params.get('newClientOrderId') ?? `x-${id}`,
        transactTime: Date.now(),
        updateTime: Date.now(),
        price: market ? '0.00000000' : p,
        origQty: qty,
        executedQty: market ? qty : '0.00000000',
        cummulativeQuoteQty: market ? (Number(qty) * Number(p)).toFixed(8) : '0.00000000',
        status: market ? 'FILLED' : 'NEW',
        timeInForce: 'GTC',
        type: params.get('type'),
        side: params.get('side'),
        fills: market
          ? [
              {
                price: p,
                qty,
                commission: (Number(qty) * Number(p) * 0.001).toFixed(8),
                commissionAsset: 'USDT',
              },
            ]
          : [],
      };
      orders.set(o.clientOrderId, o);
      byId.set(id, o.clientOrderId);
      return json({ ...o });
    }
    if (u.pathname === '/api/v3/order' && method === 'GET') {
      const cid = params.get('origClientOrderId') ?? byId.get(params.get('orderId') ?? '') ?? '';
      const o = orders.get(cid);
      return o ? json({ ...o }) : json({ code: -2013, msg: 'Order does not exist.' }, 400);
    }
    if (u.pathname === '/api/v3/order' && method === 'DELETE') {
      const cid = params.get('origClientOrderId') ?? byId.get(params.get('orderId') ?? '') ?? '';
      const o = orders.get(cid);
      if (!o || o.status !== 'NEW') return json({ code: -2011, msg: 'Unknown order sent.' }, 400);
      o.status = 'CANCELED';
      o.updateTime = Date.now();
      return json({ ...o });
    }
    if (u.pathname === '/api/v3/openOrders') {
      return json([...orders.values()].filter((o) => o.status === 'NEW'));
    }
    // Every order of the symbol (open and finished), oldest first:
    // https://developers.binance.com/docs/binance-spot-api-docs/rest-api/trading-endpoints#all-orders-user_data
    if (u.pathname === '/api/v3/allOrders') {
      const all = [...orders.values()].filter((o) => o.symbol === params.get('symbol'));
      return json(all.sort((a, b) => a.orderId - b.orderId).slice(-Number(params.get('limit') ?? 500)));
    }
    return json({ code: -1000, msg: `not recorded: ${u.pathname}` }, 404);
  };
  return Object.assign(fake, {
    fetchImplementation,
    orders,
    /** A key the exchange refuses from now on (true) or accepts again (false). */
    revoke: (v: boolean) => {
      fake.state = v ? 'revoked' : 'trade_only';
    },
  });
}
