/**
 * How to learn an order's state on each exchange (issue 38 point 2). ccxt's `fetchOrder` is not the
 * same call everywhere: Bybit's unified accounts refuse it unless the caller acknowledges that it only
 * sees the last 500 orders, HitBTC's order id is the client id and its `fetchOrder` reads only finished
 * orders, several exchanges find an order by client id only through a parameter of their own, and
 * some not at all (the open and closed lists are searched instead). Each rule below names the
 * exchange's API documentation it follows; keys are ccxt ids (ccxt 4.5.84, read in node_modules/ccxt).
 */

/** How an order is looked up by the exchange's own order id. */
export type ByIdRule =
  /** ccxt `fetchOrder(id, symbol)`: one call that answers for open and finished orders alike. */
  | { kind: 'fetchOrder' }
  /**
   * Bybit v5: the open orders by id (`/v5/order/realtime`, which also holds the most recent closed
   * ones), then the order history by id (`/v5/order/history`, every finished status).
   */
  | { kind: 'openThenHistory' }
  /** The active order by id (`fetchOpenOrder`), then `fetchOrder`, which reads the finished ones. */
  | { kind: 'openThenFetchOrder' };

/** How an order is looked up by the client order id it was placed with. */
export type ByClientIdRule =
  /** `fetchOrder('', symbol, params(cid))`: the exchange takes the client id as a query parameter. */
  | { kind: 'param'; params: (clientOrderId: string) => Record<string, unknown> }
  /** The client id is the order's id for ccxt (HitBTC): looked up as by id. */
  | { kind: 'asId' }
  /** Bybit v5: `orderLinkId` on the open orders, then on the order history. */
  | { kind: 'bybitLink' }
  /** No lookup by client id: the open orders, then the recent finished ones, are searched. */
  | { kind: 'lists' };

export interface LookupRule {
  byId: ByIdRule;
  byClientId: ByClientIdRule;
  /**
   * Where the exchange finds an order only for a while (its documented window); after it the lookup
   * answers "not found" and the open and closed lists decide.
   */
  window?: string;
  /**
   * The direct lookup by client id sees only part of the orders (active ones, or a window): its "not
   * found" sends the search on to the open and closed lists. Elsewhere it is final.
   */
  listsAfterNotFound?: true;
  /** The exchange's API documentation the rule follows. */
  source: string;
}

const FETCH_ORDER: ByIdRule = { kind: 'fetchOrder' };
const LISTS: ByClientIdRule = { kind: 'lists' };
const param =
  (name: string) =>
  (clientOrderId: string): Record<string, unknown> => ({ [name]: clientOrderId });

/** Per ccxt id; every exchange of the catalogue that ccxt supports (16 ids, 17 keys with bybit_testnet). */
export const LOOKUP_RULES: Readonly<Record<string, LookupRule>> = {
  // GET /api/v3/order and /fapi/v1/order take orderId or origClientOrderId (ccxt: `clientOrderId`).
  // Canceled or expired orders with no fill are archived after 90 days. Its -2013 "Order does not
  // exist" is not final: Binance's reads can lag its writes (the order just placed, or under load, is
  // not yet seen by GET /api/v3/order), so a not-found is checked against GET /api/v3/openOrders and
  // GET /api/v3/allOrders before the order is given up (https://developers.binance.com/docs/binance-spot-api-docs/errors#-2013-no_such_order,
  // https://developers.binance.com/docs/binance-spot-api-docs/rest-api/trading-endpoints#all-orders-user_data).
  binance: {
    byId: FETCH_ORDER,
    byClientId: { kind: 'param', params: param('clientOrderId') },
    window: 'canceled or expired orders without a fill: 90 days',
    listsAfterNotFound: true,
    source:
      'https://developers.binance.com/docs/binance-spot-api-docs/rest-api/trading-endpoints#query-order-user_data, https://developers.binance.com/docs/binance-spot-api-docs/errors',
  },
  // Unified accounts (the default): ccxt refuses fetchOrder without `acknowledged` (only the last 500
  // orders are visible there); /v5/order/realtime takes orderId / orderLinkId and holds open and
  // recent closed orders, /v5/order/history every finished one ("after a server release or restart,
  // filled, cancelled and rejected orders of Unified account should only be queried through order
  // history").
  bybit: {
    byId: { kind: 'openThenHistory' },
    byClientId: { kind: 'bybitLink' },
    window:
      '/v5/order/realtime: the most recent 500 closed orders; /v5/order/history: fully cancelled or rejected orders 24 hours, orders with fills 2 years',
    source:
      'https://bybit-exchange.github.io/docs/v5/order/open-order, https://bybit-exchange.github.io/docs/v5/order/order-list',
  },
  // GET /orders/client:<client_oid>.
  coinbaseexchange: {
    byId: FETCH_ORDER,
    byClientId: { kind: 'param', params: param('clientOrderId') },
    window: 'canceled orders without a fill are not returned after 24 hours',
    listsAfterNotFound: true,
    source: 'https://docs.cdp.coinbase.com/exchange/reference/exchangerestapi_getorder',
  },
  // GET /api/v5/trade/order takes ordId or clOrdId.
  okx: {
    byId: FETCH_ORDER,
    byClientId: { kind: 'param', params: param('clOrdId') },
    window: 'canceled orders without a fill: 2 hours',
    listsAfterNotFound: true,
    source: 'https://www.okx.com/docs-v5/en/#order-book-trading-trade-get-order-details',
  },
  // GET /api/v2/spot/trade/orderInfo takes orderId or clientOid.
  bitget: {
    byId: FETCH_ORDER,
    byClientId: { kind: 'param', params: param('clientOid') },
    source: 'https://www.bitget.com/api-doc/spot/trade/Get-Order-Info',
  },
  // GET /api/v3/order takes orderId or origClientOrderId (ccxt: `clientOrderId`).
  mexc: {
    byId: FETCH_ORDER,
    byClientId: { kind: 'param', params: param('clientOrderId') },
    source: 'https://mexcdevelop.github.io/apidocs/spot_v3_en/#query-order',
  },
  // GET /api/v1/order/client-order/{clientOid}.
  kucoin: {
    byId: FETCH_ORDER,
    byClientId: { kind: 'param', params: param('clientOid') },
    source: 'https://www.kucoin.com/docs/rest/spot-trading/orders/get-order-details-by-clientoid',
  },
  // ccxt's fetchOrder sends orderId only: the open orders and the order history are searched.
  bingx: {
    byId: FETCH_ORDER,
    byClientId: LISTS,
    source: 'https://bingx-api.github.io/docs/#/en-us/spot/trade-api.html#Query%20Order%20details',
  },
  // QueryOrders needs txid; open and closed orders are listed with their cl_ord_id.
  kraken: {
    byId: FETCH_ORDER,
    byClientId: LISTS,
    source:
      'https://docs.kraken.com/api/docs/rest-api/get-orders-info, https://docs.kraken.com/api/docs/rest-api/get-open-orders',
  },
  // A lookup by cid needs the cid's date as well; the order lists carry the cid.
  bitfinex: {
    byId: FETCH_ORDER,
    byClientId: LISTS,
    source: 'https://docs.bitfinex.com/reference/rest-auth-retrieve-orders',
  },
  // GET /spot/orders/{order_id} takes the custom `text` ("t-…") in place of the id, but only for a
  // while after the order is placed; after that the lists decide.
  gate: {
    byId: FETCH_ORDER,
    byClientId: { kind: 'param', params: param('clientOrderId') },
    window: 'by custom id (text): 30 minutes after the order is created',
    listsAfterNotFound: true,
    source: 'https://www.gate.io/docs/developers/apiv4/en/#get-a-single-order',
  },
  // Spot: GET /spot/orders/active takes orderID or clOrdID (active orders only; then the lists).
  phemex: {
    byId: FETCH_ORDER,
    byClientId: { kind: 'param', params: param('clientOrderId') },
    listsAfterNotFound: true,
    source: 'https://phemex-docs.github.io/#query-open-order-by-order-id-or-client-order-id',
  },
  // POST /api/v2/order_status/ takes id or client_order_id.
  bitstamp: {
    byId: FETCH_ORDER,
    byClientId: { kind: 'param', params: param('clientOrderId') },
    window: 'orders older than 30 days are not returned',
    listsAfterNotFound: true,
    source: 'https://www.bitstamp.net/api/#tag/Orders/operation/GetOrderStatus',
  },
  // ccxt's fetchOrder overwrites the id with what it was asked (a "cid:" lookup would return the
  // client id as the order id): the lists are searched.
  poloniex: {
    byId: FETCH_ORDER,
    byClientId: LISTS,
    source: 'https://api-docs.poloniex.com/spot/api/private/order#order-details',
  },
  // Orders are found by orderId only.
  lbank: {
    byId: FETCH_ORDER,
    byClientId: LISTS,
    source: 'https://www.lbank.com/docs/index.html#query-order',
  },
  // ccxt's order id is HitBTC's client_order_id; GET /spot/order/{client_order_id} holds the active
  // order, GET /spot/history/order the finished ones.
  hitbtc: {
    byId: { kind: 'openThenFetchOrder' },
    byClientId: { kind: 'asId' },
    source: 'https://api.hitbtc.com/#get-active-spot-order, https://api.hitbtc.com/#spot-orders-history',
  },
};

/** An exchange not in the table (a ccxt id added later): the plain calls, then the lists. */
const DEFAULT_RULE: LookupRule = {
  byId: FETCH_ORDER,
  byClientId: LISTS,
  source: 'ccxt unified API (no exchange-specific rule)',
};

export function lookupRule(ccxtId: string): LookupRule {
  return LOOKUP_RULES[ccxtId] ?? DEFAULT_RULE;
}

/**
 * Parameters for ccxt's `fetchOpenOrders` where the exchange answers one page of the open orders: on
 * Bybit, GET /v5/order/realtime returns `limit` orders (default 20, at most 50) and a `nextPageCursor`
 * (https://bybit-exchange.github.io/docs/v5/order/open-order); ccxt follows the cursor only when asked
 * (`paginate`: pages of 50, up to ccxt's `paginationCalls`, 10 by default). Without it a bot with more
 * than 20 resting orders had the rest missing from the list (each then looked up one by one).
 */
const OPEN_ORDERS_PARAMS: Readonly<Record<string, Record<string, unknown>>> = {
  bybit: { paginate: true },
};

export function openOrdersParams(ccxtId: string): Record<string, unknown> {
  return { ...OPEN_ORDERS_PARAMS[ccxtId] };
}
