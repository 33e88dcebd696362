/**
 * Per-exchange parameters of the unified calls where ccxt's defaults bend what the platform means
 * (found by the conformance tier, packages/venues/test/conformance/, issue 38 point 6). Data only,
 * with the exchange's documentation for each rule.
 */

/**
 * Order-book depths an exchange accepts. ccxt passes the asked depth through, and these exchanges
 * refuse any other (the market-data hub asks for 10 levels): the smallest accepted depth that holds
 * the levels asked for is requested, and the venue keeps the first `limit` levels.
 */
export const BOOK_DEPTHS: Record<string, { depths: readonly number[]; source: string }> = {
  // GET /api/v1/market/orderbook/level2_20 and level2_100 (ccxt: "limit argument must be 20 or 100").
  kucoin: {
    depths: [20, 100],
    source: 'https://www.kucoin.com/docs-new/rest/spot-trading/market-data/get-part-orderbook',
  },
  // GET /v2/book/{symbol}/P0?len=: "Number of price points ("1", "25", "100")".
  bitfinex: { depths: [1, 25, 100], source: 'https://docs.bitfinex.com/reference/rest-public-book' },
};

/** The depth to ask `ccxtId` for so that `limit` levels can be shown. */
export function bookDepth(ccxtId: string, limit: number): number {
  const rule = BOOK_DEPTHS[ccxtId];
  if (!rule) return limit;
  return rule.depths.find((d) => d >= limit) ?? rule.depths[rule.depths.length - 1]!;
}

/**
 * Parameters ccxt's `setLeverage` needs on an exchange for the platform's positions: one-way mode,
 * isolated margin (CcxtVenue.setLeverage sets isolated margin first where the exchange has the call).
 */
export const LEVERAGE_PARAMS: Record<
  string,
  {
    params: Record<string, unknown> | Record<string, unknown>[];
    /** The leverage call sets the margin mode too: ccxt's own setMarginMode is not called. */
    setsMarginMode?: true;
    source: string;
  }
> = {
  // set-leverage takes the margin mode it sets the leverage for (mgnMode); ccxt's default is cross, so
  // the leverage of the isolated positions the bots open was left unset (and cross's changed).
  okx: {
    params: { marginMode: 'isolated' },
    source: 'https://www.okx.com/docs-v5/en/#trading-account-rest-api-set-leverage',
  },
  // POST /openApi/swap/v2/trade/leverage requires `side` (LONG, SHORT, or BOTH in one-way mode); ccxt
  // refuses the call without it (ArgumentsRequired), so no leverage could be set on BingX.
  bingx: {
    params: { side: 'BOTH' },
    source: 'https://bingx-api.github.io/docs-v3/#/en/Swap/Trades%20Endpoints/Set%20Leverage',
  },
  // POST /api/v1/private/position/change_leverage takes the leverage per side of an isolated position
  // (openType 1 = isolated; positionType 1 = long, 2 = short) or a position id; ccxt refuses the call
  // without them. Both sides are set, as one-way bots open either. ccxt's setMarginMode posts the same
  // call without positionType, which MEXC requires when no position id is given: not used.
  mexc: {
    setsMarginMode: true,
    params: [
      { openType: 1, positionType: 1 },
      { openType: 1, positionType: 2 },
    ],
    source: 'https://mexcdevelop.github.io/apidocs/contract_v1_en/#switch-leverage',
  },
  // POST /v3/position/leverage requires mgnMode (ISOLATED / CROSS); ccxt refuses the call without it.
  poloniex: {
    params: { marginMode: 'isolated' },
    source: 'https://api-docs.poloniex.com/v3/futures/api/positions/set-leverage',
  },
};

/**
 * Exchanges whose perpetual leverage the platform cannot set correctly: refused before anything is
 * sent (UnsupportedFeatureError), and the capability table (capabilities.ts) shows no perpetual or
 * leverage support, so the start forms warn. HitBTC: leverage belongs to an isolated margin account,
 * created or updated by PUT /api/3/futures/account/isolated/{symbol} with the leverage AND the
 * margin_balance to reserve for it (ccxt 4.5.84 hitbtc.setLeverage refuses the call without
 * margin_balance). The platform's setLeverage(leverage, symbol) has no margin amount; any figure we chose
 * would move the user's funds (or, as 0, close the margin account), so it is not done.
 */
export const LEVERAGE_REFUSED: Record<string, { why: string; source: string }> = {
  hitbtc: {
    why: 'leverage on its perpetuals (HitBTC sets it only together with the margin to reserve, which the platform does not choose for the user)',
    source: 'https://api.hitbtc.com/#create-update-margin-account-2',
  },
};

/** Whether the exchange's leverage call sets the margin mode itself (no separate setMarginMode). */
export function leverageSetsMarginMode(ccxtId: string): boolean {
  return LEVERAGE_PARAMS[ccxtId]?.setsMarginMode === true;
}

/** The parameter sets of the `setLeverage` calls to make (one call each; one with none by default). */
export function leverageCalls(ccxtId: string): Record<string, unknown>[] {
  const p = LEVERAGE_PARAMS[ccxtId]?.params;
  if (!p) return [{}];
  return Array.isArray(p) ? p.map((x) => ({ ...x })) : [{ ...p }];
}

/**
 * Where the exact leverage is in the exchange's own reply (ccxt's `info`) when ccxt's unified figure
 * is rounded: ccxt reads Bybit's position `leverage` as an integer, 4.2x became 4x.
 */
export const LEVERAGE_INFO_FIELD: Record<string, { field: string; source: string }> = {
  // Leverage steps of 0.01 (instruments-info leverageFilter.leverageStep); /v5/position/list "leverage".
  bybit: { field: 'leverage', source: 'https://bybit-exchange.github.io/docs/v5/position' },
};

/**
 * The exchange's own 24 h change (percent) where ccxt computes the ticker's change from another open:
 * Bitstamp's `open` is the day's first price, so ccxt's figure is the change since 00:00 UTC; the reply
 * carries the 24 h one (`percent_change_24`, with `open_24`).
 */
export const TICKER_CHANGE_FIELD: Record<string, { field: string; source: string }> = {
  bitstamp: {
    field: 'percent_change_24',
    source: 'https://www.bitstamp.net/api/#tag/Tickers/operation/GetMarketTicker',
  },
};

/**
 * The currency of an order's fee where ccxt leaves it out: HitBTC's v3 trades carry a `fee` amount
 * without its currency, charged in the symbol's fee currency, the quote for spot and USDT perpetuals.
 */
export const FEE_CURRENCY: Record<string, { of: 'quote'; source: string }> = {
  hitbtc: { of: 'quote', source: 'https://api.hitbtc.com/#symbols (fee_currency)' },
};

/** The fee currency of an order on `symbol` ('BTC/USDT' or 'BTC/USDT:USDT') when the reply has none. */
export function feeCurrencyOf(ccxtId: string, symbol: string): string | undefined {
  if (!FEE_CURRENCY[ccxtId]) return undefined;
  const quote = symbol.split(':')[0]?.split('/')[1];
  return quote || undefined;
}

/**
 * Parameters ccxt's `fetchLeverage` needs to read the leverage of the platform's isolated positions
 * (ccxt reads the cross one by default on OKX, and refuses Poloniex's read without a margin mode).
 */
export const FETCH_LEVERAGE_PARAMS: Record<string, { params: Record<string, unknown>; source: string }> = {
  okx: {
    params: { marginMode: 'isolated' },
    source: 'https://www.okx.com/docs-v5/en/#trading-account-rest-api-get-leverage',
  },
  poloniex: {
    params: { marginMode: 'isolated' },
    source: 'https://api-docs.poloniex.com/v3/futures/api/positions/get-leverages',
  },
};

/**
 * Exchanges where an isolated position's leverage is not a setting but a parameter of each order: the
 * venue keeps the leverage the bot set and sends it with every perpetual order. KuCoin futures: an
 * order's `leverage` (ccxt sends 1 when none is given); its only leverage setting, changeCrossUserLeverage,
 * is the cross margin one.
 */
export const ORDER_LEVERAGE: Record<string, { param: string; source: string }> = {
  kucoin: {
    param: 'leverage',
    source: 'https://www.kucoin.com/docs-new/rest/futures-trading/orders/add-order',
  },
};
