import type { MarketSimulator } from '../simulator';
import type { Balances, Market, Position, Timeframe } from '../types';

/**
 * Bybit v5 wire shapes for the emulator (bybit-v5.ts): markets, tickers, books, candles, positions,
 * and the error codes. Everything as Bybit sends it: numbers as decimal strings, times in ms as
 * strings inside `result`, the {retCode, retMsg, result, retExtInfo, time} envelope with HTTP 200.
 * Sources: https://bybit-exchange.github.io/docs/v5/market/instrument, .../market/tickers,
 * .../market/orderbook, .../market/kline, .../position, .../error
 */

/** The categories the emulator trades (inverse lists are served empty; option is not served). */
export type Category = 'spot' | 'linear';

/** A Bybit answer with retCode ≠ 0 (HTTP 200 unless `http` says otherwise). */
export class BybitError extends Error {
  constructor(
    readonly retCode: number,
    msg: string,
    readonly http = 200,
  ) {
    super(msg);
  }
}

/** Bybit's error codes the emulator answers with (https://bybit-exchange.github.io/docs/v5/error). */
export const BYBIT = {
  params: 10001,
  /** "invalid request, please check your server timestamp or recv_window param". */
  timestamp: 10002,
  apiKey: 10003,
  sign: 10004,
  rateLimit: 10006,
  /** Derivatives: "order not exists or too late to cancel". */
  orderNotExists: 110001,
  /** Derivatives: "ab not enough for new order" (available balance). */
  insufficient: 110007,
  leverageNotModified: 110043,
  /** Derivatives: "OrderLinkedID is duplicate". */
  duplicateLink: 110072,
  /** Derivatives: "Order does not meet minimum order value". */
  minValue: 110094,
  /** Spot: "Insufficient balance." */
  spotInsufficient: 170131,
  spotMinQty: 170136,
  spotMinValue: 170140,
  /** Spot: "Duplicate clientOrderId." */
  spotDuplicateLink: 170141,
  spotBadSymbol: 170121,
  /** Spot: "Order does not exist." */
  spotOrderNotExists: 170213,
} as const;

export function envelope(result: unknown, now: number, retCode = 0, retMsg = 'OK'): unknown {
  return { retCode, retMsg, result, retExtInfo: {}, time: now };
}

/** A plain decimal string (no exponent, trailing zeros dropped): Bybit's number format. */
export function s(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '0';
  const t = v.toFixed(10);
  return t.includes('.') ? t.replace(/\.?0+$/, '') || '0' : t;
}

/** Bybit's symbol id: base + quote (BTCUSDT), for spot and USDT perpetuals alike. */
export function bybitId(m: Market): string {
  return m.base + (m.type === 'swap' ? (m.settle ?? m.quote) : m.quote);
}

export function spotInstrument(m: Market): unknown {
  return {
    symbol: bybitId(m),
    baseCoin: m.base,
    quoteCoin: m.quote,
    innovation: '0',
    status: m.active ? 'Trading' : 'Closed',
    marginTrading: 'none',
    stTag: '0',
    lotSizeFilter: {
      basePrecision: s(m.amountStep),
      quotePrecision: '0.00000001',
      minOrderQty: s(Math.max(m.minAmount, m.amountStep)),
      maxOrderQty: '9000000',
      minOrderAmt: s(m.minCost),
      maxOrderAmt: '9000000',
    },
    priceFilter: { tickSize: s(m.priceStep) },
    riskParameters: { priceLimitRatioX: '0.05', priceLimitRatioY: '0.05' },
  };
}

export function linearInstrument(m: Market): unknown {
  const decimals = Math.max(0, Math.round(-Math.log10(m.priceStep)));
  return {
    symbol: bybitId(m),
    contractType: 'LinearPerpetual',
    status: m.active ? 'Trading' : 'Closed',
    baseCoin: m.base,
    quoteCoin: m.quote,
    launchTime: '1585526400000',
    deliveryTime: '0',
    deliveryFeeRate: '',
    priceScale: String(decimals),
    leverageFilter: { minLeverage: '1', maxLeverage: s(m.maxLeverage ?? 1), leverageStep: '0.01' },
    priceFilter: { minPrice: s(m.priceStep), maxPrice: '1999999', tickSize: s(m.priceStep) },
    lotSizeFilter: {
      maxOrderQty: '1190',
      minOrderQty: s(Math.max(m.minAmount, m.amountStep)),
      qtyStep: s(m.amountStep),
      postOnlyMaxOrderQty: '1190',
      maxMktOrderQty: '500',
      minNotionalValue: s(m.minCost),
    },
    unifiedMarginTrade: true,
    // Minutes: funding every 8 hours (derivatives.ts FUNDING_INTERVAL_MS).
    fundingInterval: 480,
    settleCoin: m.settle ?? m.quote,
    copyTrading: 'both',
    upperFundingRate: '0.00375',
    lowerFundingRate: '-0.00375',
    isPreListing: false,
    preListingInfo: null,
  };
}

/** GET /v5/market/tickers: one entry; linear ones carry funding and open interest. */
export function ticker(
  sim: MarketSimulator,
  m: Market,
  funding: { rate: number; next: number } | null,
): unknown {
  const t = sim.ticker('bybit', m.symbol);
  const last = t.last;
  const pct = (t.percentage ?? 0) / 100;
  const open = last / (1 + pct);
  const common = {
    symbol: bybitId(m),
    bid1Price: s(t.bid ?? last),
    bid1Size: '1',
    ask1Price: s(t.ask ?? last),
    ask1Size: '1',
    lastPrice: s(last),
    prevPrice24h: s(open),
    price24hPcnt: s(pct),
    highPrice24h: s(Math.max(open, last)),
    lowPrice24h: s(Math.min(open, last)),
    turnover24h: '0',
    volume24h: '0',
  };
  if (!funding) return { ...common, usdIndexPrice: s(last) };
  return {
    ...common,
    indexPrice: s(last),
    markPrice: s(last),
    prevPrice1h: s(last),
    openInterest: '0',
    openInterestValue: '0',
    fundingRate: s(funding.rate),
    nextFundingTime: String(funding.next),
    predictedDeliveryPrice: '',
    basisRate: '',
    deliveryFeeRate: '',
    deliveryTime: '0',
    basis: '',
  };
}

/** GET /v5/market/orderbook's result. */
export function orderbook(sim: MarketSimulator, m: Market, limit: number, now: number): unknown {
  const b = sim.orderBook('bybit', m.symbol, limit);
  const lv = (x: [number, number][]) => x.slice(0, limit).map(([p, q]) => [s(p), s(q)]);
  return { s: bybitId(m), b: lv(b.bids), a: lv(b.asks), ts: now, u: 1, seq: 1, cts: now };
}

/** Bybit's kline intervals and ours (https://bybit-exchange.github.io/docs/v5/market/kline). */
export const INTERVALS: Readonly<Record<string, Timeframe>> = {
  '1': '1m',
  '5': '5m',
  '15': '15m',
  '60': '1h',
  '240': '4h',
  D: '1d',
  W: '1w',
  M: '1M',
};

/** GET /v5/market/kline's list: [start, open, high, low, close, volume, turnover], newest first. */
export function klines(
  sim: MarketSimulator,
  m: Market,
  tf: Timeframe,
  start: number | undefined,
  limit: number,
): string[][] {
  const rows = sim.candles('bybit', m.symbol, tf, start, limit);
  return rows
    .map((c) => [String(c[0]), s(c[1]), s(c[2]), s(c[3]), s(c[4]), s(c[5]), s(c[5] * c[4])])
    .reverse();
}

/**
 * GET /v5/position/list entry. `pos` null: the empty row Bybit returns for a symbol without a
 * position (size 0, side ""), which still carries the leverage (ccxt's fetchLeverage reads it).
 */
export function position(m: Market, pos: Position | null, leverage: number, now: number): unknown {
  const id = bybitId(m);
  if (!pos) {
    return {
      positionIdx: 0,
      riskId: 1,
      riskLimitValue: '2000000',
      symbol: id,
      side: '',
      size: '0',
      avgPrice: '0',
      positionValue: '0',
      tradeMode: 0,
      autoAddMargin: 0,
      positionStatus: 'Normal',
      leverage: s(leverage),
      markPrice: '0',
      liqPrice: '',
      bustPrice: '',
      positionIM: '0',
      positionMM: '0',
      positionBalance: '0',
      tpslMode: 'Full',
      takeProfit: '0',
      stopLoss: '0',
      trailingStop: '0',
      unrealisedPnl: '0',
      curRealisedPnl: '0',
      cumRealisedPnl: '0',
      adlRankIndicator: 0,
      createdTime: String(now),
      updatedTime: String(now),
      seq: 1,
      isReduceOnly: false,
    };
  }
  const long = pos.side === 'long';
  // Isolated: the bankruptcy price is where the margin posted is gone (entry ∓ entry / leverage).
  const bust = long ? pos.entryPrice * (1 - 1 / pos.leverage) : pos.entryPrice * (1 + 1 / pos.leverage);
  return {
    positionIdx: 0,
    riskId: 1,
    riskLimitValue: '2000000',
    symbol: id,
    side: long ? 'Buy' : 'Sell',
    size: s(pos.contracts),
    avgPrice: s(pos.entryPrice),
    positionValue: s(pos.contracts * pos.entryPrice),
    // Deprecated on unified accounts (always 0): the account's margin mode applies (account/info).
    tradeMode: 0,
    autoAddMargin: 0,
    positionStatus: 'Normal',
    leverage: s(pos.leverage),
    markPrice: s(pos.markPrice),
    liqPrice: pos.liquidationPrice !== null ? s(pos.liquidationPrice) : '',
    bustPrice: s(bust),
    positionIM: s(pos.collateral),
    positionMM: s(pos.notional * 0.005),
    positionBalance: s(pos.collateral),
    tpslMode: 'Full',
    takeProfit: '0',
    stopLoss: '0',
    trailingStop: '0',
    unrealisedPnl: s(pos.unrealizedPnl),
    curRealisedPnl: '0',
    cumRealisedPnl: '0',
    adlRankIndicator: 2,
    createdTime: String(pos.timestamp),
    updatedTime: String(pos.timestamp),
    seq: 1,
    isReduceOnly: false,
  };
}

/** One Bybit order: its paper legs (two after a withheld remainder is released). */
export interface EmuOrder {
  orderId: string;
  orderLinkId: string;
  category: Category;
  market: Market;
  side: 'buy' | 'sell';
  type: 'limit' | 'market';
  price: number | null;
  amount: number;
  reduceOnly: boolean;
  legs: string[];
  /** Amount held back by a 'partial-fill' fault (not yet sent to the matching engine). */
  withheld: number;
  canceled: boolean;
  time: number;
  /** 'late-fill': until then reads show the order as New and unfilled (ms epoch). */
  hideUntil: number;
  /** 'unknown-order': lookup requests by id that still answer an empty list. */
  unknownLookups: number;
}

/** Bybit's order statuses (https://bybit-exchange.github.io/docs/v5/enum#orderstatus). */
export type BybitStatus = 'New' | 'PartiallyFilled' | 'Filled' | 'Cancelled' | 'PartiallyFilledCanceled';
export const OPEN: ReadonlySet<BybitStatus> = new Set(['New', 'PartiallyFilled']);

export interface View {
  status: BybitStatus;
  filled: number;
  cost: number;
  fee: number;
  feeCurrency: string;
  updated: number;
}

/** Bybit's order object (GET /v5/order/realtime and /v5/order/history). */
export function orderObject(o: EmuOrder, v: View): Record<string, unknown> {
  const open = OPEN.has(v.status);
  const leaves = open ? Math.max(0, o.amount - v.filled) : 0;
  const spot = o.category === 'spot';
  return {
    orderId: o.orderId,
    orderLinkId: o.orderLinkId,
    blockTradeId: '',
    symbol: bybitId(o.market),
    price: s(o.price ?? 0),
    qty: s(o.amount),
    side: o.side === 'buy' ? 'Buy' : 'Sell',
    isLeverage: spot ? '0' : '',
    positionIdx: 0,
    orderStatus: v.status,
    cancelType: o.canceled ? 'CancelByUser' : 'UNKNOWN',
    rejectReason: 'EC_NoError',
    avgPrice: v.filled > 0 ? s(v.cost / v.filled) : spot ? '' : '0',
    leavesQty: s(leaves),
    leavesValue: s(leaves * (o.price ?? 0)),
    cumExecQty: s(v.filled),
    cumExecValue: s(v.cost),
    cumExecFee: s(v.fee),
    // The fee per coin (Bybit spot charges a buy's fee in the base coin).
    cumFeeDetail: v.fee > 0 ? { [v.feeCurrency]: s(v.fee) } : {},
    timeInForce: o.type === 'market' ? 'IOC' : 'GTC',
    orderType: o.type === 'market' ? 'Market' : 'Limit',
    stopOrderType: '',
    orderIv: '',
    // A spot market order's qty unit: the emulator's is always the base coin.
    marketUnit: spot && o.type === 'market' ? 'baseCoin' : '',
    triggerPrice: '0',
    takeProfit: '0',
    stopLoss: '0',
    tpTriggerBy: '',
    slTriggerBy: '',
    triggerDirection: 0,
    triggerBy: '',
    lastPriceOnCreated: '',
    reduceOnly: o.reduceOnly,
    closeOnTrigger: false,
    placeType: '',
    smpType: 'None',
    smpGroup: 0,
    smpOrderId: '',
    ...(spot ? {} : { tpslMode: '', tpLimitPrice: '', slLimitPrice: '' }),
    createdTime: String(o.time),
    updatedTime: String(v.updated),
  };
}

/** GET /v5/user/query-api: the key's permissions ("Withdraw" in Wallet when it can withdraw). */
export function queryApi(apiKey: string, canWithdraw: boolean, now: number): unknown {
  const created = new Date(now - 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    id: '13770661',
    note: 'emulator',
    apiKey: apiKey,
    readOnly: 0,
    secret: '',
    permissions: {
      ContractTrade: ['Order', 'Position'],
      Spot: ['SpotTrade'],
      Wallet: canWithdraw ? ['AccountTransfer', 'Withdraw'] : ['AccountTransfer'],
      Options: [],
      Derivatives: [],
      CopyTrading: [],
      BlockTrade: [],
      Exchange: [],
      NFT: [],
      Affiliate: [],
      Earn: [],
    },
    ips: ['*'],
    type: 1,
    deadlineDay: 89,
    expiredAt: '',
    createdAt: created,
    unified: 0,
    uta: 1,
    userID: 24600000,
    inviterID: 0,
    vipLevel: 'No VIP',
    mktMakerLevel: '0',
    affiliateID: 0,
    rsaPublicKey: '',
    isMaster: true,
    parentUid: '0',
    kycLevel: 'LEVEL_DEFAULT',
    kycRegion: '',
  };
}

/**
 * GET /v5/account/wallet-balance (accountType UNIFIED): the paper spot and derivatives wallets summed
 * per coin; `locked` holds spot orders, `totalPositionIM` the derivatives margin. ccxt reads free =
 * walletBalance - locked - totalPositionIM - totalOrderIM (availableToWithdraw is "" on UTA 2.0).
 */
export function walletBalance(spot: Balances, deriv: Balances, upnl: number): unknown {
  const coins = [...new Set([...Object.keys(spot), ...Object.keys(deriv)])];
  let total = 0;
  const coin = coins.map((c) => {
    const a = spot[c] ?? { free: 0, used: 0, total: 0 };
    const d = deriv[c] ?? { free: 0, used: 0, total: 0 };
    const wallet = a.total + d.total;
    if (c === 'USDT' || c === 'USDC') total += wallet;
    const pnl = c === 'USDT' ? upnl : 0;
    return {
      coin: c,
      equity: s(wallet + pnl),
      usdValue: s(c === 'USDT' || c === 'USDC' ? wallet + pnl : 0),
      walletBalance: s(wallet),
      // Spot orders' holds; derivatives margin (positions and orders) in totalPositionIM.
      locked: s(a.used),
      spotHedgingQty: '0',
      borrowAmount: '0',
      accruedInterest: '0',
      totalOrderIM: '0',
      totalPositionIM: s(d.used),
      totalPositionMM: '0',
      unrealisedPnl: s(pnl),
      cumRealisedPnl: '0',
      bonus: '0',
      marginCollateral: true,
      collateralSwitch: true,
      availableToWithdraw: '',
      availableToBorrow: '',
    };
  });
  return {
    list: [
      {
        accountType: 'UNIFIED',
        accountIMRate: '0',
        accountMMRate: '0',
        accountLTV: '0',
        totalEquity: s(total + upnl),
        totalWalletBalance: s(total),
        totalMarginBalance: s(total + upnl),
        totalAvailableBalance: s(total),
        totalPerpUPL: s(upnl),
        totalInitialMargin: '0',
        totalMaintenanceMargin: '0',
        coin,
      },
    ],
  };
}

/**
 * GET /v5/asset/coin/query-info rows (ccxt's bybit loads them with the markets whenever it has keys):
 * every coin of the spot markets, one chain each (USDT and USDC on Ethereum, a coin on its own chain).
 */
export function coinInfo(markets: Market[], only: string | null): unknown[] {
  const coins = [...new Set(markets.flatMap((m) => [m.base, m.quote]))].filter(
    (c) => only === null || c === only,
  );
  return coins.map((coin) => {
    const chain = coin === 'USDT' || coin === 'USDC' ? 'ETH' : coin;
    return {
      name: coin,
      coin,
      remainAmount: '1000000',
      chains: [
        {
          chainType: chain === 'ETH' ? 'Ethereum' : coin,
          confirmation: '12',
          withdrawFee: '0',
          depositMin: '0',
          withdrawMin: '0',
          chain,
          chainDeposit: '1',
          chainWithdraw: '1',
          minAccuracy: '8',
          withdrawPercentageFee: '0',
          contractAddress: '',
        },
      ],
    };
  });
}
