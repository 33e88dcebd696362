import { FUNDING_INTERVAL_MS, fundingTimeFloor, simulatedFundingRate } from '../derivatives';
import type { PaperVenue } from '../paper-venue';
import type { MarketSimulator } from '../simulator';
import type { Market, Timeframe } from '../types';
import type { FaultSettings } from './faults';
import { BinanceError, dec, stepDecimals } from './http';

/**
 * Binance USDⓈ-M public market data in its wire format, from the simulated 'binance' exchange's
 * linear perpetuals (their price is their spot pair's: simulator.ts).
 * https://developers.binance.com/docs/derivatives/usds-margined-futures/market-data/rest-api
 */

/** What the handler shares with the emulator that serves it. */
export interface UsdmContext {
  simulator: MarketSimulator;
  venue: PaperVenue;
  settings: FaultSettings;
  /** The server's clock (ms; skewed by the emulator's clockOffsetMs). */
  now: () => number;
  /** A client id placed a second time (counted in the emulator's duplicateAttempts). */
  onDuplicate: () => void;
}

/** The linear perpetuals of the simulated 'binance' exchange (COIN-M inverse ones are not served). */
export function usdmMarkets(sim: MarketSimulator): Market[] {
  return Object.values(sim.markets('binance', { swaps: true })).filter(
    (m) => m.type === 'swap' && m.linear === true,
  );
}

/** BTC/USDT:USDT → BTCUSDT. */
export function idOf(symbol: string): string {
  return (symbol.split(':')[0] ?? '').replace('/', '');
}

/** A quantity at the market's step decimals (contracts = base units on linear swaps). */
export function qty(v: number, m: Market): string {
  return v.toFixed(stepDecimals(m.amountStep));
}

export function px(v: number, m: Market): string {
  return v.toFixed(stepDecimals(m.priceStep));
}

export function sum(list: number[]): number {
  return list.reduce((a, b) => a + b, 0);
}

/** GET /fapi/v1/exchangeInfo (shape of Binance's recorded reply; steps and minimums from the simulator). */
export function usdmExchangeInfo(markets: Market[], now: number): unknown {
  return {
    timezone: 'UTC',
    serverTime: now,
    futuresType: 'U_MARGINED',
    rateLimits: [
      { rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: 2400 },
      { rateLimitType: 'ORDERS', interval: 'MINUTE', intervalNum: 1, limit: 1200 },
    ],
    exchangeFilters: [],
    assets: [...new Set(markets.map((m) => m.settle ?? m.quote))].map((asset) => ({
      asset,
      marginAvailable: true,
      autoAssetExchange: '-10000',
    })),
    symbols: markets.map((m) => {
      const minQty = dec(Math.max(m.minAmount, m.amountStep));
      return {
        symbol: m.base + m.quote,
        pair: m.base + m.quote,
        contractType: 'PERPETUAL',
        deliveryDate: 4133404800000,
        onboardDate: 1569398400000,
        // A delisted pair's perpetual stops trading (Binance: SETTLING, then CLOSE).
        status: m.active ? 'TRADING' : 'SETTLING',
        maintMarginPercent: '2.5000',
        requiredMarginPercent: '5.0000',
        baseAsset: m.base,
        quoteAsset: m.quote,
        marginAsset: m.settle ?? m.quote,
        pricePrecision: stepDecimals(m.priceStep),
        quantityPrecision: stepDecimals(m.amountStep),
        baseAssetPrecision: 8,
        quotePrecision: 8,
        underlyingType: 'COIN',
        underlyingSubType: [],
        triggerProtect: '0.0500',
        liquidationFee: '0.012500',
        marketTakeBound: '0.05',
        maxMoveOrderLimit: 10000,
        filters: [
          {
            filterType: 'PRICE_FILTER',
            minPrice: dec(m.priceStep),
            maxPrice: '10000000',
            tickSize: dec(m.priceStep),
          },
          { filterType: 'LOT_SIZE', stepSize: dec(m.amountStep), maxQty: '1000', minQty },
          { filterType: 'MARKET_LOT_SIZE', stepSize: dec(m.amountStep), maxQty: '120', minQty },
          { filterType: 'MAX_NUM_ORDERS', limit: 200 },
          { filterType: 'MAX_NUM_ALGO_ORDERS', limit: 10 },
          { filterType: 'MIN_NOTIONAL', notional: String(m.minCost) },
          {
            filterType: 'PERCENT_PRICE',
            multiplierUp: '1.0500',
            multiplierDown: '0.9500',
            multiplierDecimal: '4',
          },
        ],
        orderTypes: ['LIMIT', 'MARKET', 'STOP', 'STOP_MARKET', 'TAKE_PROFIT', 'TAKE_PROFIT_MARKET'],
        timeInForce: ['GTC', 'IOC', 'FOK', 'GTX', 'GTD'],
        permissionSets: ['GRID', 'COPY'],
      };
    }),
  };
}

/** GET /fapi/v1/ticker/24hr for one market (fapi's 24 h ticker carries no bid / ask). */
export function usdmTicker24h(sim: MarketSimulator, m: Market): unknown {
  const t = sim.ticker('binance', m.symbol);
  const d = stepDecimals(m.priceStep);
  const last = t.last;
  const open = last / (1 + (t.percentage ?? 0) / 100);
  return {
    symbol: m.base + m.quote,
    priceChange: (last - open).toFixed(d),
    priceChangePercent: (t.percentage ?? 0).toFixed(3),
    weightedAvgPrice: last.toFixed(d),
    lastPrice: last.toFixed(d),
    lastQty: '0',
    openPrice: open.toFixed(d),
    highPrice: Math.max(open, last).toFixed(d),
    lowPrice: Math.min(open, last).toFixed(d),
    volume: '0',
    quoteVolume: '0',
    openTime: t.timestamp - 86_400_000,
    closeTime: t.timestamp,
    firstId: 0,
    lastId: 0,
    count: 0,
  };
}

const INTERVAL_MS: Record<string, number> = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '1h': 3_600_000,
  '4h': 14_400_000,
  '1d': 86_400_000,
  '1w': 604_800_000,
  '1M': 2_592_000_000,
};

/** GET /fapi/v1/klines: [openTime, o, h, l, c, volume, closeTime, quoteVolume, trades, takerBase, takerQuote, "0"]. */
export function usdmKlines(sim: MarketSimulator, m: Market, p: URLSearchParams): unknown[] {
  const interval = p.get('interval') ?? '';
  const ms = INTERVAL_MS[interval];
  if (ms === undefined) throw new BinanceError(400, -1120, 'Invalid interval.');
  const limit = Math.min(1_500, Math.max(1, Number(p.get('limit') ?? 500) || 500));
  const since = p.get('startTime') ? Number(p.get('startTime')) : undefined;
  const d = stepDecimals(m.priceStep);
  const rows = sim.candles('binance', m.symbol, interval as Timeframe, since, limit);
  return rows.map((c) => [
    c[0],
    c[1].toFixed(d),
    c[2].toFixed(d),
    c[3].toFixed(d),
    c[4].toFixed(d),
    c[5].toFixed(stepDecimals(m.amountStep)),
    c[0] + ms - 1,
    '0',
    0,
    '0',
    '0',
    '0',
  ]);
}

/** GET /fapi/v1/premiumIndex for one market: mark, and the rate charged at the next funding time. */
export function usdmPremiumIndex(sim: MarketSimulator, m: Market): unknown {
  const t = sim.ticker('binance', m.symbol);
  const next = fundingTimeFloor(t.timestamp) + FUNDING_INTERVAL_MS;
  return {
    symbol: idOf(m.symbol),
    markPrice: dec(t.last),
    indexPrice: dec(t.last),
    estimatedSettlePrice: dec(t.last),
    // Binance's "lastFundingRate" is the rate to be charged at nextFundingTime.
    lastFundingRate: simulatedFundingRate(m.symbol, next).toFixed(8),
    interestRate: '0.00010000',
    nextFundingTime: next,
    time: t.timestamp,
  };
}

/** GET /fapi/v1/fundingRate: the rates charged at past funding times (every 8 h), oldest first. */
export function usdmFundingHistory(
  sim: MarketSimulator,
  list: Market[],
  p: URLSearchParams,
  now: number,
): unknown[] {
  const limit = Math.min(1_000, Math.max(1, Number(p.get('limit') ?? 100) || 100));
  const end = fundingTimeFloor(Math.min(Number(p.get('endTime') ?? Infinity), now));
  const start = p.get('startTime') ? Number(p.get('startTime')) : end - (limit - 1) * FUNDING_INTERVAL_MS;
  const first = fundingTimeFloor(start) + (fundingTimeFloor(start) < start ? FUNDING_INTERVAL_MS : 0);
  const out: unknown[] = [];
  for (const m of list) {
    for (let t = first; t <= end && out.length < limit; t += FUNDING_INTERVAL_MS) {
      out.push({
        symbol: idOf(m.symbol),
        fundingRate: simulatedFundingRate(m.symbol, t).toFixed(8),
        fundingTime: t,
        markPrice: dec(sim.price('binance', m.symbol)),
      });
    }
  }
  return out;
}
