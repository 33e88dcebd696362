import type { DcaConfig } from '@bytx/engine';
import type { Market } from '@bytx/venues';

/** A venue market's trading rules as the strategy takes them (steps, minimums, fee rates). */
export function dcaMarketRules(market: Market): DcaConfig['market'] {
  return {
    amountStep: market.amountStep,
    priceStep: market.priceStep,
    minAmount: market.minAmount,
    minCost: market.minCost,
    takerFee: market.taker,
    makerFee: market.maker,
  };
}
