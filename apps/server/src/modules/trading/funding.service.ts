import { exchangeDisplayName, fillMessage, type FuturesFundingResponse } from '@bytx/contract';
import { badRequest } from '../../lib/errors';
import { MANUAL_INPUT_MESSAGES, type TradingInputs } from './inputs';

/** The futures screen's funding panel. */
export class FundingService {
  constructor(private readonly inputs: TradingInputs) {}

  /** GET /api/futures/funding: the perpetual's funding rate, next funding time and mark price. */
  async funding(userId: string, exchangeRaw: string, symbolRaw: string): Promise<FuturesFundingResponse> {
    const exchange = await this.inputs.connectedExchange(userId, exchangeRaw);
    const target = await this.inputs.target(exchange, symbolRaw, true);
    const venue = await this.inputs.venue(userId, exchange);
    if (!venue.fetchFundingRate) {
      throw badRequest(
        fillMessage(MANUAL_INPUT_MESSAGES.noFunding, { exchange: exchangeDisplayName(exchange) }),
      );
    }
    const [f, mark] = await Promise.all([
      venue.fetchFundingRate(target.marketSymbol),
      this.inputs.priceNow(target),
    ]);
    return {
      success: true,
      exchange,
      symbol: target.marketSymbol,
      rate: f.rate,
      next_funding_time: f.nextFundingTime,
      mark_price: mark,
    };
  }
}
