// The simulated market's pairs: a spot pair per exchange and symbol (its market, walk state, candle
// series and listeners), the swaps whose mark follows it, their markets, and the book around a price.
import {
  MARGIN_MAX_LEVERAGE,
  SWAP_MAKER_FEE,
  SWAP_TAKER_FEE,
  marketSymbol,
  swapMaxLeverage,
} from '../derivatives';
import { roundToStep } from '../precision';
import type { Market, OrderBook, Timeframe } from '../types';
import type { CandleSeries } from './candles';
import {
  QUOTE_USD,
  SIM_MIN_COST,
  simAmountStep,
  simPriceStep,
  simSpotFees,
  SIM_START_PRICES,
} from './config';
import { hash32, mulberry32 } from './random';

export interface PriceEvent {
  exchange: string;
  symbol: string;
  price: number;
  timestamp: number;
}
export type PriceListener = (e: PriceEvent) => void;
export interface ListingEvent {
  exchange: string;
  symbol: string;
  listed: boolean;
}
export type ListingListener = (e: ListingEvent) => void;

export interface Pair {
  exchange: string;
  symbol: string;
  base: string;
  quote: string;
  index: number;
  /** Fixed offset (fraction) of this exchange's price. */
  offset: number;
  /** Mean-reverting deviation on top of the offset. */
  wobble: number;
  /** Current dislocation (fraction), decaying towards 0. */
  jump: number;
  /** Time (ms) of the next dislocation. */
  nextJump: number;
  held: number | null;
  price: number;
  market: Market;
  series: Map<Timeframe, CandleSeries>;
  listeners: Set<PriceListener>;
  /** When its price was last sent to its listeners (simulated ms; not persisted). */
  sentAt: number;
  /** The swaps whose mark follows this pair (linear on USDT/USDC pairs, inverse on USDT pairs). */
  swaps: SwapPair[];
}

/**
 * A perpetual swap of the simulated market: no walk of its own, its price (the mark) is its spot
 * pair's price on the same exchange (an inverse `X/USD:X` follows `X/USDT`, 1 USD taken as 1 USDT),
 * its candles are the spot pair's, and it is listed while the spot pair is.
 */
export interface SwapPair {
  exchange: string;
  symbol: string;
  underlying: Pair;
  market: Market;
  listeners: Set<PriceListener>;
}

/** The market of a spot pair: the exchange's spot fees and minimum, steps from its start price. */
export function spotMarket(exchange: string, symbol: string, base: string, quote: string): Market {
  const fees = simSpotFees(exchange);
  const startUsd = SIM_START_PRICES[base] ?? 1;
  const refPrice = startUsd / (QUOTE_USD[quote] ?? 1);
  const priceStep = simPriceStep(refPrice);
  const amountStep = simAmountStep(refPrice);
  return {
    symbol,
    base,
    quote,
    active: true,
    amountStep,
    priceStep,
    minAmount: amountStep,
    minCost: fees.minCost,
    taker: fees.taker,
    maker: fees.maker,
    type: 'spot',
    // Every simulated spot pair allows isolated margin (Margin market type).
    margin: true,
    maxLeverage: MARGIN_MAX_LEVERAGE,
  };
}

/** The markets of the swaps following a spot pair: linear on USDT and USDC pairs, inverse (1 USD contracts) on USDT. */
export function swapMarkets(p: Pair): Market[] {
  const common = {
    base: p.base,
    active: true,
    priceStep: p.market.priceStep,
    taker: SWAP_TAKER_FEE,
    maker: SWAP_MAKER_FEE,
    type: 'swap' as const,
    contractSize: 1,
    maxLeverage: swapMaxLeverage(p.base),
  };
  const markets: Market[] = [];
  if (p.quote === 'USDT' || p.quote === 'USDC') {
    markets.push({
      ...common,
      symbol: marketSymbol(p.symbol, 'Perpetual'),
      quote: p.quote,
      // Linear contracts are 1 base unit: the spot pair's steps and minimum cost apply.
      amountStep: p.market.amountStep,
      minAmount: p.market.amountStep,
      minCost: SIM_MIN_COST,
      linear: true,
      inverse: false,
      settle: p.quote,
    });
  }
  if (p.quote === 'USDT') {
    markets.push({
      ...common,
      symbol: marketSymbol(p.symbol, 'Inverse'),
      quote: 'USD',
      // Whole contracts of 1 USD; the minimum is one contract.
      amountStep: 1,
      minAmount: 1,
      minCost: 0,
      linear: false,
      inverse: true,
      settle: p.base,
    });
  }
  return markets;
}

/**
 * A book of `limit` levels (at most 10) per side: best bid one tick (or 0.01%) below the last
 * price, best ask the same above, 0.02% between levels, amounts worth 500-20,000 USD per level
 * (deterministic per pair and second). `swap` is set when the symbol is a swap following `p`.
 */
export function pairBook(
  seed: number,
  exchange: string,
  symbol: string,
  p: Pair,
  swap: SwapPair | null,
  now: number,
  limit: number,
): OrderBook {
  const n = Math.max(1, Math.min(10, Math.floor(limit)));
  const step = p.market.priceStep;
  const half = Math.max(step, p.price * 0.0001);
  const gap = Math.max(step, p.price * 0.0002);
  const r = mulberry32(hash32(`${seed}:book:${exchange}:${symbol}:${Math.floor(now / 1000)}`));
  const usdQuote = QUOTE_USD[p.quote] ?? 1;
  const amountStep = swap ? swap.market.amountStep : p.market.amountStep;
  const level = (price: number) => {
    const usd = 500 + r() * 19_500;
    // Inverse swaps count contracts of `contractSize` USD; everything else base units.
    const raw = swap?.market.inverse ? usd / (swap.market.contractSize ?? 1) : usd / usdQuote / price;
    return Math.max(amountStep, roundToStep(raw, amountStep));
  };
  const bids: [number, number][] = [];
  const asks: [number, number][] = [];
  for (let i = 0; i < n; i++) {
    const bid = roundToStep(p.price - half - i * gap, step);
    if (bid > 0) bids.push([bid, level(bid)]);
    const ask = roundToStep(p.price + half + i * gap, step);
    asks.push([ask, level(ask)]);
  }
  return { symbol, bids, asks, timestamp: now };
}
