import { MARKET_TYPES, type MarketType } from '@bytx/contract';
import { marketSymbol, type Balances, type Market, type Venue } from '@bytx/venues';

/**
 * What the bots module uses of the venues' derivatives API (docs/venues.md "Derivatives"): the
 * optional Venue methods a spot-only venue lacks, read through one typed view so the runner and the
 * services never guess.
 */

/** A liquidation the venue made of one position (ccxt-like). */
export interface LiquidationInfo {
  symbol: string;
  side?: string;
  contracts: number;
  price: number;
  ts: number;
  loss?: number;
}

/** A market with the derivatives fields a venue may give (absent on spot-only venues). */
export type DerivativesMarket = Market & {
  type?: 'spot' | 'swap';
  linear?: boolean;
  inverse?: boolean;
  settle?: string;
  contractSize?: number;
  maxLeverage?: number;
  margin?: boolean;
};

/** The optional derivatives methods of a Venue (each may be missing). */
export interface DerivativesVenue {
  setLeverage?(leverage: number, symbol: string): Promise<unknown>;
  fetchMyLiquidations?(symbol: string, since?: number): Promise<LiquidationInfo[]>;
  onLiquidation?(listener: (l: LiquidationInfo) => void): () => void;
  fetchBalance(params?: { type?: 'spot' | 'swap' | 'margin' }): Promise<Balances>;
}

export function derivativesOf(venue: Venue): DerivativesVenue {
  return venue;
}

/** Whether a market type holds positions (anything but Spot). */
export const isDerivatives = (type: string): boolean => type !== 'Spot';

/**
 * The exchange's unified symbol of a pair on a market type (`marketSymbol` of @bytx/venues): Spot and
 * Margin trade the pair itself, Perpetual its linear swap (BTC/USDT:USDT), Inverse the coin-margined swap
 * quoted in USD (BTC/USD:BTC).
 */
export function venueSymbol(pair: string, type: string): string {
  return marketSymbol(
    pair,
    (MARKET_TYPES as readonly string[]).includes(type) ? (type as MarketType) : 'Spot',
  );
}

/** The currency a derivatives market's margin and PnL are in (the settle coin; the quote on spot). */
export function settleOf(market: DerivativesMarket, type: string): string {
  if (type === 'Inverse') return market.settle ?? market.base;
  return market.settle ?? market.quote;
}
