import { describe, expect, it } from 'vitest';
import { bitfinex } from './conformance/fixtures/bitfinex';
import { mexc } from './conformance/fixtures/mexc';
import { replay } from './conformance/replay';
import { onReplay } from './conformance/tier';

/**
 * MEXC spot answers an order query as Binance does, without the commission (its documented
 * GET /api/v3/order reply, https://mexcdevelop.github.io/apidocs/spot_v3_en/#query-order); the fee is in
 * GET /api/v3/myTrades (https://mexcdevelop.github.io/apidocs/spot_v3_en/#account-trade-list). A filled
 * order is reported with the sum of its trades' commission (exchanges/fees.ts), not with none.
 */
const ORDER_ID = 'c8663a12a2fc457fbfdd55307b463495';
const FILLED = {
  symbol: 'BTCUSDT',
  orderId: ORDER_ID,
  orderListId: -1,
  clientOrderId: 'b3f2a8c1-18',
  price: '30000',
  origQty: '0.0002',
  executedQty: '0.0002',
  cummulativeQuoteQty: '6',
  status: 'FILLED',
  timeInForce: null,
  type: 'LIMIT',
  side: 'BUY',
  stopPrice: null,
  icebergQty: null,
  time: 1647718055000,
  updateTime: 1647718056000,
  isWorking: true,
  origQuoteOrderQty: '6',
};
/** Two fills of 0.0001 BTC at 30,000; taker 0.05 % of 3 USDT = 0.0015 USDT each. */
const trade = (id: string) => ({
  symbol: 'BTCUSDT',
  id,
  orderId: ORDER_ID,
  orderListId: -1,
  price: '30000',
  qty: '0.0001',
  quoteQty: '3',
  commission: '0.0015',
  commissionAsset: 'USDT',
  time: 1647718056000,
  isBuyer: true,
  isMaker: false,
  isBestMatch: true,
  isSelfTrade: false,
  clientOrderId: null,
});

describe('fees from trades where the order query has none', () => {
  it("MEXC spot: a filled order gets its trades' commission, 0.0015 + 0.0015 = 0.003 USDT", async () => {
    const r = replay('mexc', mexc, [
      { path: '/api/v3/order', method: 'GET', body: FILLED },
      {
        path: '/api/v3/myTrades',
        method: 'GET',
        params: { orderId: ORDER_ID },
        body: [trade('t1'), trade('t2')],
      },
    ]);
    await onReplay(r, async () => {
      const o = await r.venue.fetchOrder(ORDER_ID, 'BTC/USDT');
      expect(o).toMatchObject({ status: 'closed', filled: 0.0002, cost: 6 });
      expect(o.fee?.currency).toBe('USDT');
      expect(o.fee?.cost).toBeCloseTo(0.003, 12);
      expect(r.calls.filter((c) => c.includes('/api/v3/myTrades'))).toHaveLength(1);
      expect(r.misses).toEqual([]);
    });
  });

  it("Bitfinex: an executed order's fee from its trades (negative FEE: charged), 0.005 + 0.005 = 0.01 USDT", async () => {
    // An order row (https://docs.bitfinex.com/reference/rest-auth-retrieve-orders): 0.1 LTC bought at
    // 50 UST, executed (AMOUNT 0 left of AMOUNT_ORIG 0.1), PRICE_AVG 50; no fee field in the row.
    const executed = [
      139472205826,
      null,
      1003435,
      'tLTCUST',
      1706699075903,
      1706699080000,
      0,
      0.1,
      'EXCHANGE LIMIT',
      null,
      null,
      null,
      0,
      'EXECUTED @ 50.0(0.1)',
      null,
      null,
      50,
      50,
      0,
      0,
      null,
      null,
      null,
      0,
      0,
      null,
      null,
      null,
      'API>BFX',
      null,
      null,
      {},
    ];
    // Trade rows (https://docs.bitfinex.com/reference/rest-auth-order-trades): [ID, SYMBOL, MTS,
    // ORDER_ID, EXEC_AMOUNT, EXEC_PRICE, ORDER_TYPE, ORDER_PRICE, MAKER, FEE, FEE_CURRENCY, CID];
    // taker 0.2 % of 0.05 × 50 = 2.5 UST: FEE -0.005 each.
    const fill = (id: number) => [
      id,
      'tLTCUST',
      1706699080000,
      139472205826,
      0.05,
      50,
      null,
      null,
      -1,
      -0.005,
      'UST',
      1003435,
    ];
    const r = replay('bitfinex', bitfinex, [
      { path: /\/v2\/auth\/r\/orders/, method: 'POST', body: [executed] },
      { path: '/v2/auth/r/order/tLTCUST:139472205826/trades', method: 'POST', body: [fill(1), fill(2)] },
    ]);
    await onReplay(r, async () => {
      const o = await r.venue.fetchOrder('139472205826', 'LTC/USDT');
      expect(o).toMatchObject({ status: 'closed', filled: 0.1 });
      expect(o.fee?.currency).toBe('USDT');
      expect(o.fee?.cost).toBeCloseTo(0.01, 12);
      expect(r.misses).toEqual([]);
    });
  });
});
