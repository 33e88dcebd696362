import {
  MarketSimulator,
  NotSupportedError,
  PaperVenue,
  SimulatedMarketData,
  type PaperMarketFeed,
  type Venue,
} from '@bytx/venues';
import type { AppContext, MarketHub } from '../../context';
import { parsePaperAccountId } from './paper-store';
import type { VenueFactory } from './venue-registry';

/**
 * A paper account's market: the shared market-data hub (simulated or live market, one upstream
 * fetch per pair for everyone), pushed prices through the hub's subscription.
 */
export function hubFeed(hub: MarketHub, exchange: string): PaperMarketFeed {
  return {
    exchange,
    loadMarkets: () => hub.markets(exchange),
    fetchTicker: (symbol) => hub.ticker(exchange, symbol),
    fetchOrderBook: (symbol, limit) => hub.orderBook(exchange, symbol, limit),
    fetchOHLCV: (symbol, timeframe, _since, limit) => hub.candles(exchange, symbol, timeframe, limit),
    subscribe: (symbol, listener) => hub.subscribe(exchange, symbol, (t) => listener(t.last, t.timestamp)),
  };
}

/** PaperVenue on the market hub, CcxtVenue for live keys. */
export function defaultVenueFactory(ctx: AppContext): VenueFactory {
  // Only when no market module runs (a bare test app): a private, still simulated market.
  let fallback: MarketSimulator | null = null;
  const feedFor = (exchange: string): PaperMarketFeed => {
    const hub = ctx.services.market;
    if (hub) return hubFeed(hub, exchange);
    fallback ??= new MarketSimulator();
    return new SimulatedMarketData(fallback, exchange);
  };
  return {
    paper: ({ exchange, accountId, store }): Venue =>
      new PaperVenue({
        accountId,
        feed: feedFor(exchange),
        store,
        // Deposit addresses are deterministic per user and coin.
        addressSeed: parsePaperAccountId(accountId).userId,
        onError: (err) =>
          ctx.log.error(
            { exchange, error: err instanceof Error ? err.message : String(err) },
            'paper account save failed',
          ),
      }),
    live: ({ exchange }): Venue => {
      throw new NotSupportedError('CcxtVenue is not available yet', exchange);
    },
    verifyLive: async (venue) => {
      await venue.fetchBalance();
    },
  };
}
