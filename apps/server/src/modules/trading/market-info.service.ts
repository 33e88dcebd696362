import { asciiTrim, LIMITS, type SpotMarketResponse } from '@bytx/contract';
import { HttpError } from '../../lib/errors';
import { settleOf } from '../bots/derivatives';
import { SYMBOL, type TradingInputs } from './inputs';

/** What the order panel shows of a market before an order: its rules, price and the free balances. */
export class MarketInfoService {
  constructor(private readonly inputs: TradingInputs) {}

  /** GET /api/spot/market: steps, minimums, fees, price and the free balances the order would use. */
  async market(userId: string, exchangeRaw: string, symbolRaw: string): Promise<SpotMarketResponse> {
    const exchange = await this.inputs.connectedExchange(userId, exchangeRaw);
    const sent = asciiTrim(symbolRaw).toUpperCase();
    const m = SYMBOL.exec(sent);
    const swapSent = m?.[3] !== undefined;
    const t = await this.inputs.target(exchange, symbolRaw).catch((err: unknown) => {
      if (err instanceof HttpError && err.statusCode === 400) return null;
      throw err;
    });
    if (!t) {
      // Not listed: the pair list marks it; nothing to trade, nothing to read.
      return {
        success: true,
        exchange,
        symbol: sent,
        listed: false,
        base: m?.[1] ?? '',
        quote: m?.[2] ?? '',
        market: swapSent ? 'swap' : 'spot',
        amount_step: 0,
        price_step: 0,
        min_amount: 0,
        min_cost: 0,
        taker: 0,
        maker: 0,
        max_leverage: null,
        price: null,
        base_free: 0,
        quote_free: 0,
      };
    }
    const venue = await this.inputs.venue(userId, exchange);
    const [price, wallet] = await Promise.all([
      this.inputs.priceNow(t),
      venue.fetchBalance(t.swap ? { type: 'swap' } : undefined),
    ]);
    const quoteCoin = t.swap ? settleOf(t.market, 'Perpetual') : t.quote;
    return {
      success: true,
      exchange,
      symbol: t.marketSymbol,
      listed: true,
      base: t.base,
      quote: t.quote,
      market: t.swap ? 'swap' : 'spot',
      amount_step: t.market.amountStep,
      price_step: t.market.priceStep,
      min_amount: t.market.minAmount,
      min_cost: t.market.minCost,
      taker: t.market.taker,
      maker: t.market.maker,
      max_leverage: t.swap ? Math.min(t.market.maxLeverage ?? LIMITS.maxLeverage, LIMITS.maxLeverage) : null,
      price,
      base_free: wallet[t.base]?.free ?? 0,
      quote_free: wallet[quoteCoin]?.free ?? 0,
    };
  }
}
