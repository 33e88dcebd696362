import { SimulatedMarketData, type MarketSimulator, type Ticker } from '@bytx/venues';
import type { MarketHub } from '../src/context';

/** Polls `fn` every 20 ms until it gives a truthy value (returned), failing after `ms`. */
export async function until<T>(fn: () => Promise<T | null | false | undefined>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The market hub as the runner uses it, straight on a simulator's exchange (prices pushed as tickers). */
export function simulatedHub(sim: MarketSimulator, exchange: string): MarketHub {
  const feed = new SimulatedMarketData(sim, exchange);
  return {
    subscribe: (_e: string, s: string, l: (t: Ticker) => void) =>
      feed.subscribe(s, (price, ts) =>
        l({ symbol: s, last: price, bid: null, ask: null, percentage: null, timestamp: ts }),
      ),
    ticker: async (_e: string, s: string) => sim.ticker(exchange, s),
    market: async (_e: string, s: string) => sim.market(exchange, s),
  } as unknown as MarketHub;
}
