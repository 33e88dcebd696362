// SimulatedMarketData: one exchange of the simulated market as a MarketDataSource (what PaperVenue
// and the market hub read).
import { VenueUnavailableError } from '../errors';
import type { Candle, Market, MarketDataSource, OrderBook, Ticker, Timeframe } from '../types';
import type { MarketSimulator } from './market-simulator';

/** The simulator as one exchange's public market data (what PaperVenue and the hub read). */
export class SimulatedMarketData implements MarketDataSource {
  constructor(
    readonly simulator: MarketSimulator,
    readonly exchange: string,
  ) {
    if (!simulator.hasExchange(exchange)) {
      throw new VenueUnavailableError(`Unknown exchange '${exchange}' in the simulated market`, exchange);
    }
  }

  /** Spot and swap markets (swap marks follow their spot pair). */
  loadMarkets(): Promise<Record<string, Market>> {
    return Promise.resolve(this.simulator.markets(this.exchange, { swaps: true }));
  }

  fetchTicker(symbol: string): Promise<Ticker> {
    return this.wrap(() => this.simulator.ticker(this.exchange, symbol));
  }

  fetchOrderBook(symbol: string, limit?: number): Promise<OrderBook> {
    return this.wrap(() => this.simulator.orderBook(this.exchange, symbol, limit));
  }

  fetchOHLCV(symbol: string, timeframe: Timeframe, since?: number, limit?: number): Promise<Candle[]> {
    return this.wrap(() => this.simulator.candles(this.exchange, symbol, timeframe, since, limit));
  }

  /** Price changes of one symbol, pushed at once. */
  subscribe(symbol: string, listener: (price: number, timestamp: number) => void): () => void {
    return this.simulator.onPairPrice(this.exchange, symbol, (e) => listener(e.price, e.timestamp));
  }

  isListed(symbol: string): boolean {
    return this.simulator.isListed(this.exchange, symbol);
  }

  /** Last price now, synchronously. */
  lastPrice(symbol: string): number {
    return this.simulator.price(this.exchange, symbol);
  }

  private wrap<T>(fn: () => T): Promise<T> {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }
}
