/**
 * Where an order's fee is read when the exchange's order replies do not carry it (issue 38: a fee
 * read as empty counts as 0 and overstates net PnL). For these exchanges and market types a filled
 * (or partly filled) order whose reply has no fee gets it from its trades: ccxt `fetchMyTrades` with
 * the order id, the trades' fees summed per currency. Order.fee is the order's cumulative fee, so the
 * sum over all of its trades is reported (never added to an earlier reading: no double count).
 */
import { toNumber } from './numbers';

export type FeeMarket = 'spot' | 'swap';

/**
 * How an order's trades are read: ccxt `fetchMyTrades(symbol, …, { orderId })` (the exchange filters
 * by order; the venue filters again), or `fetchOrderTrades(id, symbol)` where the exchange has a call
 * for one order's trades and its trade history takes no order filter (Bitfinex).
 */
export type TradesCall = 'fetchMyTrades' | 'fetchOrderTrades';

/**
 * Per ccxt id and market type: the documentation that says the order replies lack the commission (a
 * string: read with fetchMyTrades), or that and the call to use.
 */
export const FEES_FROM_TRADES: Readonly<
  Record<string, Partial<Record<FeeMarket, string | { source: string; call: TradesCall }>>>
> = {
  binance: {
    // GET /api/v3/order (and the open/all orders lists) have no commission; only the create reply's
    // `fills` (newOrderRespType FULL, which ccxt reads) and GET /api/v3/myTrades carry it. A resting
    // order filled later, learned by the poll or a lookup, had no fee.
    spot:
      'https://developers.binance.com/docs/binance-spot-api-docs/rest-api/trading-endpoints#query-order-user_data ; ' +
      'https://developers.binance.com/docs/binance-spot-api-docs/rest-api/account-endpoints#account-trade-list-user_data',
    // USDⓈ-M order replies (create, query, lists) never carry it; GET /fapi/v1/userTrades does
    // (commission, commissionAsset).
    swap:
      'https://developers.binance.com/docs/derivatives/usds-margined-futures/trade/rest-api/Query-Order ; ' +
      'https://developers.binance.com/docs/derivatives/usds-margined-futures/trade/rest-api/Account-Trade-List',
  },
  // MEXC spot's order query is Binance's shape without commission (ccxt sets a fee only from a
  // contract order's feeCurrency); GET /api/v3/myTrades carries commission / commissionAsset and takes
  // orderId. Its contract orders carry their fees (takerFee, makerFee).
  mexc: {
    spot:
      'https://mexcdevelop.github.io/apidocs/spot_v3_en/#query-order ; ' +
      'https://mexcdevelop.github.io/apidocs/spot_v3_en/#account-trade-list',
  },
  // Bitfinex v2 order rows have no fee field (ccxt's parseOrder leaves it empty); a trade row has FEE
  // (negative: charged) and FEE_CURRENCY, read for one order by POST /v2/auth/r/order/{symbol}:{id}/trades.
  bitfinex: {
    spot: {
      source:
        'https://docs.bitfinex.com/reference/rest-auth-retrieve-orders ; ' +
        'https://docs.bitfinex.com/reference/rest-auth-order-trades',
      call: 'fetchOrderTrades',
    },
  },
};

/** How `ccxtId`'s orders of `market` read their fee from their trades; undefined: from the order. */
export function feesFromTrades(ccxtId: string, market: FeeMarket): TradesCall | undefined {
  const rule = FEES_FROM_TRADES[ccxtId]?.[market];
  if (rule === undefined) return undefined;
  return typeof rule === 'string' ? 'fetchMyTrades' : rule.call;
}

/** The fields of a ccxt trade we read. */
interface CcxtTrade {
  order?: unknown;
  amount?: unknown;
  fee?: { cost?: unknown; currency?: unknown } | null;
  fees?: readonly ({ cost?: unknown; currency?: unknown } | null | undefined)[];
}

/**
 * The fee of order `orderId` from its trades (others in the list are skipped: an exchange may ignore
 * the order filter), summed per currency; `amount` is the base amount the trades cover. Several
 * currencies (Binance spot paying part with BNB) cannot be added up: the one in `preferred` (the
 * quote) is reported when present, else the largest sum's. Null fee when the trades carry none.
 */
export function feeOfTrades(
  trades: readonly unknown[],
  orderId: string,
  preferred?: string,
): { fee: { cost: number; currency: string } | null; amount: number } {
  const byCurrency = new Map<string, number>();
  let amount = 0;
  for (const raw of trades) {
    const t = (raw ?? {}) as CcxtTrade;
    const order = typeof t.order === 'string' || typeof t.order === 'number' ? String(t.order) : '';
    if (order !== orderId) continue;
    amount += toNumber(t.amount) ?? 0;
    // ccxt gives one fee, or `fees` when a trade is charged in several currencies.
    const fees = t.fees && t.fees.length > 0 ? t.fees : t.fee ? [t.fee] : [];
    for (const f of fees) {
      const cost = toNumber(f?.cost);
      const currency = typeof f?.currency === 'string' ? f.currency : '';
      if (cost === null || !currency) continue;
      byCurrency.set(currency, (byCurrency.get(currency) ?? 0) + cost);
    }
  }
  if (byCurrency.size === 0) return { fee: null, amount };
  const pick =
    preferred !== undefined && byCurrency.has(preferred)
      ? preferred
      : [...byCurrency.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  // Summed trade fees carry float error (0.1 + 0.2): rounded to 1e-12, far below any exchange's unit.
  const cost = Math.round((byCurrency.get(pick) ?? 0) * 1e12) / 1e12;
  return { fee: { cost, currency: pick }, amount };
}
