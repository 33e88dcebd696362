import { describe, expect, it } from 'vitest';
import { CcxtVenue, InvalidOrderError, NotSupportedError, UnsupportedFeatureError } from '../src/live';
import { binance, bybit, paramsOf } from './conformance/swap-fakes';

/**
 * Live derivatives through ccxt's unified calls, against recorded-style responses at ccxt's HTTP
 * boundary (`fetchImplementation`): Binance USDⓈ-M and Bybit linear. Nothing touches the internet.
 */

describe('CcxtVenue derivatives: Binance USDⓈ-M (recorded responses)', () => {
  it('loads the swap markets on their own instance: contracts, settle, precision, minimum value', async () => {
    const { v, calls } = binance();
    const markets = await v.loadMarkets();
    expect(markets['BTC/USDT']).toMatchObject({ amountStep: 0.00001 });
    expect(markets['BTC/USDT']?.type).toBeUndefined();
    expect(markets['BTC/USDT:USDT']).toMatchObject({
      symbol: 'BTC/USDT:USDT',
      type: 'swap',
      linear: true,
      inverse: false,
      settle: 'USDT',
      contractSize: 1,
      amountStep: 0.001,
      priceStep: 0.1,
      minAmount: 0.001,
      minCost: 100,
    });
    expect(markets['BTC/USD:BTC']).toMatchObject({ inverse: true, settle: 'BTC', contractSize: 100 });
    // Each list was fetched once: spot by the spot instance, USDⓈ-M and COIN-M by the swap one.
    const lists = calls
      .map((c) => `${c.url.hostname}${c.url.pathname}`)
      .filter((u) => u.endsWith('exchangeInfo'));
    expect(lists.sort()).toEqual([
      'api.binance.com/api/v3/exchangeInfo',
      'dapi.binance.com/dapi/v1/exchangeInfo',
      'fapi.binance.com/fapi/v1/exchangeInfo',
    ]);
    await v.loadMarkets();
    expect(calls.filter((c) => c.url.pathname.endsWith('exchangeInfo'))).toHaveLength(3);
  });

  it('sets isolated margin and the leverage (setMarginMode, setLeverage)', async () => {
    const { v, calls, misses } = binance();
    expect(await v.setLeverage(10, 'BTC/USDT:USDT')).toBe(10);
    expect(misses).toEqual([]);
    const marginType = calls.find((c) => c.url.pathname === '/fapi/v1/marginType');
    expect(paramsOf(marginType!)).toMatchObject({ symbol: 'BTCUSDT', marginType: 'ISOLATED' });
    const leverage = calls.find((c) => c.url.pathname === '/fapi/v1/leverage');
    expect(paramsOf(leverage!)).toMatchObject({ symbol: 'BTCUSDT', leverage: '10' });
    await expect(v.setLeverage(0, 'BTC/USDT:USDT')).rejects.toBeInstanceOf(InvalidOrderError);
  });

  it('"No need to change margin type" (-4046) is not an error', async () => {
    const { v } = binance((url) =>
      url.pathname === '/fapi/v1/marginType'
        ? { status: 400, body: { code: -4046, msg: 'No need to change margin type.' } }
        : undefined,
    );
    expect(await v.setLeverage(20, 'BTC/USDT:USDT')).toBe(20);
  });

  it('places a reduce-only market order on the swap', async () => {
    const { v, calls } = binance();
    const o = await v.createOrder({
      symbol: 'BTC/USDT:USDT',
      side: 'sell',
      type: 'market',
      amount: 0.0104,
      reduceOnly: true,
      clientOrderId: 'bot7-0002',
    });
    expect(o).toMatchObject({ id: '4113946481', symbol: 'BTC/USDT:USDT', amount: 0.01, reduceOnly: true });
    const post = calls.find((c) => c.method === 'POST' && c.url.pathname === '/fapi/v1/order');
    expect(paramsOf(post!)).toMatchObject({
      symbol: 'BTCUSDT',
      side: 'SELL',
      type: 'MARKET',
      quantity: '0.01',
      reduceOnly: 'true',
      newClientOrderId: 'bot7-0002',
    });
  });

  it('reads positions, liquidations and the funding rate', async () => {
    const { v } = binance();
    const [pos] = await v.fetchPositions(['BTC/USDT:USDT']);
    expect(pos).toMatchObject({
      symbol: 'BTC/USDT:USDT',
      marketType: 'Perpetual',
      side: 'long',
      contracts: 0.01,
      entryPrice: 94_000,
      markPrice: 95_000,
      unrealizedPnl: 10,
      liquidationPrice: 85_100.12345678,
      settle: 'USDT',
      marginMode: 'isolated',
    });
    expect(await v.fetchMyLiquidations('BTC/USDT:USDT', 1736800000000)).toEqual([
      {
        symbol: 'BTC/USDT:USDT',
        side: 'long',
        contracts: 0.01,
        price: 85_100.1,
        ts: 1736900000100,
        loss: 0,
        settle: 'USDT',
      },
    ]);
    expect(await v.fetchFundingRate('BTC/USDT:USDT')).toEqual({
      symbol: 'BTC/USDT:USDT',
      rate: 0.0001,
      nextFundingTime: 1736956800000,
      timestamp: 1736942400000,
    });
  });

  it('places an isolated margin order that borrows (Margin market type on the spot symbol)', async () => {
    const { v, calls } = binance((url, method) =>
      url.pathname === '/sapi/v1/margin/order' && method === 'POST'
        ? {
            body: {
              symbol: 'BTCUSDT',
              orderId: 28,
              clientOrderId: 'bot8-0001',
              transactTime: 1736942401000,
              price: '90000.00',
              origQty: '0.01000',
              executedQty: '0',
              cummulativeQuoteQty: '0',
              status: 'NEW',
              timeInForce: 'GTC',
              type: 'LIMIT',
              side: 'BUY',
              isIsolated: true,
            },
          }
        : undefined,
    );
    expect(await v.setLeverage(3, 'BTC/USDT')).toBe(3);
    expect(await v.fetchLeverage('BTC/USDT')).toBe(3);
    const o = await v.createOrder({
      symbol: 'BTC/USDT',
      side: 'buy',
      type: 'limit',
      amount: 0.01,
      price: 90_000,
      marginMode: 'isolated',
      clientOrderId: 'bot8-0001',
    });
    expect(o).toMatchObject({ id: '28', status: 'open', marginMode: 'isolated' });
    expect(paramsOf(calls.find((c) => c.url.pathname === '/sapi/v1/margin/order')!)).toMatchObject({
      symbol: 'BTCUSDT',
      isIsolated: 'true',
      sideEffectType: 'MARGIN_BUY',
      newClientOrderId: 'bot8-0001',
    });
  });

  it('transfers between spot and USDⓈ-M', async () => {
    const { v, calls } = binance();
    await v.transfer('USDT', 250, 'spot', 'swap');
    const t = calls.find((c) => c.url.pathname === '/sapi/v1/asset/transfer');
    expect(paramsOf(t!)).toMatchObject({ asset: 'USDT', amount: '250', type: 'MAIN_UMFUTURE' });
  });
});

// --- Bybit linear (v5) ---------------------------------------------------------------------------

describe('CcxtVenue derivatives: Bybit linear (recorded responses)', () => {
  it('lists the linear swap with its leverage limit', async () => {
    const { v } = bybit();
    const m = (await v.loadMarkets())['BTC/USDT:USDT'];
    expect(m).toMatchObject({
      type: 'swap',
      linear: true,
      settle: 'USDT',
      contractSize: 1,
      amountStep: 0.001,
      priceStep: 0.1,
      minAmount: 0.001,
      maxLeverage: 100,
    });
  });

  it('sets isolated margin and leverage; "leverage not modified" (110043) is fine', async () => {
    const { v, calls, misses } = bybit();
    expect(await v.setLeverage(10, 'BTC/USDT:USDT')).toBe(10);
    expect(misses).toEqual([]);
    const lev = calls.find((c) => c.url.pathname === '/v5/position/set-leverage');
    expect(paramsOf(lev!)).toMatchObject({
      category: 'linear',
      symbol: 'BTCUSDT',
      buyLeverage: '10',
      sellLeverage: '10',
    });
    expect(paramsOf(calls.find((c) => c.url.pathname === '/v5/account/set-margin-mode')!)).toMatchObject({
      setMarginMode: 'ISOLATED_MARGIN',
    });
    await expect(v.setLeverage(101, 'BTC/USDT:USDT')).rejects.toThrow(/from 1 to 100/);

    const same = bybit((url) =>
      url.pathname === '/v5/position/set-leverage'
        ? { body: { retCode: 110043, retMsg: 'leverage not modified', result: {}, retExtInfo: {}, time: 1 } }
        : undefined,
    ).v;
    expect(await same.setLeverage(10, 'BTC/USDT:USDT')).toBe(10);
  });

  it('places a reduce-only limit order', async () => {
    const { v, calls } = bybit();
    const o = await v.createOrder({
      symbol: 'BTC/USDT:USDT',
      side: 'buy',
      type: 'limit',
      amount: 0.01,
      price: 90_000.04,
      reduceOnly: true,
      clientOrderId: 'bot9-0001',
    });
    expect(o).toMatchObject({
      id: '1321003749386327552',
      clientOrderId: 'bot9-0001',
      price: 90_000,
      reduceOnly: true,
    });
    expect(paramsOf(calls.find((c) => c.url.pathname === '/v5/order/create')!)).toMatchObject({
      category: 'linear',
      symbol: 'BTCUSDT',
      side: 'Buy',
      orderType: 'Limit',
      qty: '0.01',
      price: '90000',
      reduceOnly: true,
      orderLinkId: 'bot9-0001',
    });
  });

  it('reads a short position and the funding rate', async () => {
    const { v } = bybit();
    expect(await v.fetchPositions(['BTC/USDT:USDT'])).toMatchObject([
      {
        symbol: 'BTC/USDT:USDT',
        side: 'short',
        contracts: 0.01,
        entryPrice: 96_000,
        markPrice: 95_000,
        leverage: 10,
        liquidationPrice: 105_000,
        unrealizedPnl: 10,
        settle: 'USDT',
      },
    ]);
    expect(await v.fetchFundingRate('BTC/USDT:USDT')).toMatchObject({
      symbol: 'BTC/USDT:USDT',
      rate: 0.000125,
      nextFundingTime: 1736956800000,
    });
  });
});

describe('CcxtVenue derivatives: unsupported capabilities', () => {
  it('names the exchange and the missing capability', async () => {
    const kraken = new CcxtVenue({ exchange: 'kraken', apiKey: 'k', secret: 'c2VjcmV0' });
    const err = await kraken.setLeverage(5, 'BTC/USD:BTC').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsupportedFeatureError);
    expect(err).toBeInstanceOf(NotSupportedError);
    expect((err as UnsupportedFeatureError).message).toBe(
      'kraken does not support setLeverage through its API',
    );
    expect((err as UnsupportedFeatureError).capability).toBe('setLeverage');
    expect((err as UnsupportedFeatureError).action).toBe('stop');
    await expect(kraken.fetchBalance({ type: 'swap' })).rejects.toThrow(
      'kraken does not support a derivatives wallet through its API',
    );
    await expect(kraken.fetchFundingRate('BTC/USD:BTC')).rejects.toThrow(
      'kraken does not support fetchFundingRate through its API',
    );
    const coinbase = new CcxtVenue({
      exchange: 'coinbaseexchange',
      apiKey: 'k',
      secret: 'c2VjcmV0',
      password: 'p',
    });
    await expect(coinbase.setLeverage(3, 'BTC/USDT')).rejects.toThrow(
      'coinbaseexchange does not support margin trading through its API',
    );
    await expect(coinbase.fetchPositions()).rejects.toThrow(
      'coinbaseexchange does not support fetchPositions through its API',
    );
  });
});
