import { SimulatedMarketData, type MarketSimulator, type Ticker } from '@bytx/venues';
import { createDcaBot } from '@bytx/engine';
import type { MarketHub } from '../src/context';
import { dcaMarketRules } from '../src/modules/bots/market-rules';
import { strategyIdOf } from '../src/modules/bots/runner';

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

/**
 * Waits until `fn` answers a value (truthy) that then stays the same (as JSON) for `quietMs`: a price
 * move can fill one order and the bot's answer to it fill the next, so the first answer seen after a
 * move may be a step of a chain still running. With the price held, the chain ends and the value holds.
 */
export async function untilSettled<T>(
  fn: () => Promise<T | null | false | undefined>,
  ms = 10_000,
  quietMs = 500,
): Promise<T> {
  const end = Date.now() + ms;
  let last: string | null = null;
  let since = 0;
  for (;;) {
    const v = await fn();
    const seen = v ? JSON.stringify(v) : null;
    if (seen !== null && seen === last) {
      if (Date.now() - since >= quietMs) return v as T;
    } else {
      last = seen;
      since = Date.now();
    }
    if (Date.now() > end) throw new Error('condition not met and settled in time');
    await new Promise((r) => setTimeout(r, 50));
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

/** A new Grid Bot DCA state on a simulated pair: `amount` USDT a buy, TP 1%, separation 1%, 3 OS, LONG. */
export function newDcaState(
  sim: MarketSimulator,
  exchange: string,
  symbol: string,
  botId: string,
  amount = 20,
) {
  return createDcaBot(strategyIdOf(botId), {
    symbol,
    amount,
    tpPct: 1,
    sepPct: 1,
    os: 3,
    direction: 'LONG',
    raEnabled: false,
    market: dcaMarketRules(sim.market(exchange, symbol)),
  });
}
