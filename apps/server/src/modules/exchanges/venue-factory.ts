import {
  isCcxtVenue,
  loadLiveVenues,
  MarketSimulator,
  PaperVenue,
  SimulatedMarketData,
  type PaperMarketFeed,
  type Venue,
} from '@bytx/venues';
import type { AppContext, MarketHub } from '../../context';
import { badRequest } from '../../lib/errors';
import { parsePaperAccountId } from './paper-store';
import type { VenueFactory } from './venue-registry';

/** Said on connect where the exchange does not show a key's withdrawal right (docs/exchanges.md). */
export const withdrawUncheckedNotice = (name: string) =>
  `${name} does not show whether an API key can withdraw: make sure this key has withdrawals disabled.`;

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
    // The market list as it is now (a pair can be delisted while the account is open).
    isListed: async (symbol) => (await hub.listedSymbol(exchange, symbol).catch(() => null)) !== null,
  };
}

/** Refusal of a key that can withdraw (DESIGN.md §6: keys must be trade-only). */
export const WITHDRAW_KEY_MESSAGE =
  'This API key can withdraw funds. Create a trade-only key (withdrawals disabled) and connect it again.';

export interface VenueFactoryOptions {
  /** Replaces ccxt's HTTP layer of live venues (tests: recorded-style responses). */
  fetchImplementation?: (url: string, init: Record<string, unknown>) => Promise<Response>;
  /** Tests: how often live venues poll their open orders (ms; default LIVE_ORDER_POLL_MS). */
  orderPollMs?: number;
}

/** PaperVenue on the market hub, CcxtVenue for live keys (ccxt is loaded with the first one). */
export function defaultVenueFactory(ctx: AppContext, opts: VenueFactoryOptions = {}): VenueFactory {
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
    live: async ({ exchange, apiKey, apiSecret, password }): Promise<Venue> => {
      const { CcxtVenue, binanceEmulatorUrlOptions, bybitEmulatorUrlOptions } = await loadLiveVenues();
      return new CcxtVenue({
        exchange,
        apiKey,
        secret: apiSecret,
        ...(password ? { password } : {}),
        ...(opts.fetchImplementation ? { fetchImplementation: opts.fetchImplementation } : {}),
        ...(opts.orderPollMs ? { orderPollMs: opts.orderPollMs } : {}),
        // Tests only (refused in production by config.ts): Binance is the localhost exchange emulator.
        ...(exchange === 'binance' && ctx.config.BINANCE_EMULATOR_URL
          ? {
              ccxtOptions: binanceEmulatorUrlOptions(ctx.config.BINANCE_EMULATOR_URL),
              orderPollMs: opts.orderPollMs ?? 1_000,
            }
          : {}),
        // Tests only, likewise: Bybit is the localhost Bybit v5 emulator.
        ...(exchange === 'bybit' && ctx.config.BYBIT_EMULATOR_URL
          ? {
              ccxtOptions: bybitEmulatorUrlOptions(ctx.config.BYBIT_EMULATOR_URL),
              orderPollMs: opts.orderPollMs ?? 1_000,
            }
          : {}),
      });
    },
    verifyLive: async (venue) => {
      // Bad keys fail here (AuthenticationError)...
      await venue.fetchBalance();
      // ...and a key that can withdraw is refused where the exchange shows it (the rules and their
      // sources: packages/venues/src/withdraw-permission.ts).
      if (!isCcxtVenue(venue)) return 'unchecked';
      const canWithdraw = await venue.checkWithdrawPermission();
      if (canWithdraw === true) throw badRequest(WITHDRAW_KEY_MESSAGE);
      return canWithdraw === false ? 'checked' : 'unchecked';
    },
  };
}
