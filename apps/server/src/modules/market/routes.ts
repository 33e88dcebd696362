import {
  candlesQuery,
  candlesResponse,
  devDelistBody,
  devDelistResponse,
  devPriceBody,
  devPriceResponse,
  marketTickerQuery,
  marketTickerResponse,
  orderBookQuery,
  orderBookResponse,
  pairsQuery,
  pairsResponse,
  precioQuery,
  precioResponse,
  TICKER_ASSETS,
  tickerQuery,
  tickerResponse,
} from '@bytx/contract';
import { loadLiveVenues, MarketSimulator, SimulatedMarketData } from '@bytx/venues';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context';
import { badRequest } from '../../lib/errors';
import { MarketHubService, translate } from './market.service';
import { SimMarketStore } from './sim-store';
import { CoinGeckoTickerProvider, HubTickerProvider, type TickerPriceProvider } from './ticker-provider';

/**
 * How often closed candles of the simulated market are looked for and written (ms; each candle is
 * written once, when it closes; the walk's state at most every SIM_STATE_EVERY_MS, sim-store.ts).
 */
const CANDLE_SAVE_MS = 10_000;

const rethrow = (err: unknown): never => {
  throw translate(err);
};

/**
 * The market-data hub and its routes. Registered before every other feature module: it sets
 * `ctx.services.market` (and `ctx.services.simulator` with MARKET_DATA=simulated).
 */
export const marketRoutes: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  const simulated = ctx.config.MARKET_DATA === 'simulated';
  let simulator: MarketSimulator | null = null;
  let hub: MarketHubService;
  let tickerProvider: TickerPriceProvider;
  let simStore: SimMarketStore | null = null;
  if (simulated) {
    const sim = new MarketSimulator();
    simulator = sim;
    // Continue the walk where the last run left it (a restart is invisible in the price series).
    const store = new SimMarketStore(ctx.db, sim, (err) =>
      ctx.log.warn({ err }, 'could not save the simulated market'),
    );
    simStore = store;
    const restored = await store.load();
    sim.onListing((e) => hub.notifyListing(e));
    ctx.log.info({ restored, time: new Date(sim.time).toISOString() }, 'simulated market ready');
    // In-process data: no cache needed (a set price is seen at once), one reader per pair anyway.
    hub = new MarketHubService({
      source: (exchange) => new SimulatedMarketData(sim, exchange),
      ttl: { ticker: 0, orderBook: 0, candles: 0, markets: 3_600_000 },
    });
    // A tick moves ~1,000 pairs of 20 exchanges and runs their listeners (paper accounts, bots), then
    // may write the walk's state (~80 KB of JSON through PGlite, on this thread; at most every 30 s). Done in one go, that
    // held every request for 7–20 ms once a second on a slow day, which is what a request's p99 met.
    // So each exchange's pairs move in a turn of their own and the write takes one more, and requests
    // waiting meanwhile are answered in between (docs/limits.md, "Overload").
    let ticking = false;
    let closing = false;
    const timer = setInterval(() => {
      if (ticking) return; // The last tick's turns are still running (a stalled loop): skip this one.
      const steps = sim.beginAdvance(Date.now());
      ticking = true;
      const next = (i: number) => {
        // Closing: the state written at close is a consistent one (each pair at its last step).
        if (closing) return;
        if (i < steps.length) {
          steps[i]!();
          setImmediate(next, i + 1);
          return;
        }
        ticking = false;
        store.scheduleState();
      };
      next(0);
    }, 1_000);
    timer.unref();
    const candleTimer = setInterval(() => void store.flushCandles(), CANDLE_SAVE_MS);
    candleTimer.unref();
    app.addHook('onClose', async () => {
      closing = true;
      clearInterval(timer);
      clearInterval(candleTimer);
      await store.flushState();
      await store.flushCandles(true);
    });
    tickerProvider = new HubTickerProvider(hub, 'binance');
    ctx.services.simulator = sim;
  } else {
    // Live market data reads the exchanges through ccxt: loaded here, not by a simulated market's server.
    const { CcxtVenue } = await loadLiveVenues();
    hub = new MarketHubService({
      source: (exchange) => CcxtVenue.publicData(exchange),
      onError: (err, exchange, symbol) =>
        ctx.log.warn(
          { exchange, symbol, error: err instanceof Error ? err.message : String(err) },
          'market poll failed',
        ),
    });
    tickerProvider = new CoinGeckoTickerProvider({ fallback: new HubTickerProvider(hub, 'binance') });
  }
  app.addHook('onClose', () => hub.close());
  ctx.services.market = hub;

  app.get(
    '/api/precio',
    {
      schema: {
        tags: ['market'],
        summary: 'Last price of a pair on an exchange',
        querystring: precioQuery,
        response: { 200: precioResponse },
      },
    },
    async (request) => {
      const { exchange, symbol } = request.query;
      const t = await hub.ticker(exchange, symbol).catch(rethrow);
      return { price: t.last };
    },
  );

  app.get(
    '/api/ticker',
    {
      schema: {
        tags: ['market'],
        summary: 'Ticker assets: asset id -> { usd, usd_24h_change }',
        querystring: tickerQuery,
        response: { 200: tickerResponse },
      },
    },
    async (request) => {
      const known = TICKER_ASSETS.map((a) => a.id) as string[];
      const ids = request.query.ids
        ? request.query.ids
            .split(',')
            .map((s) => s.trim())
            .filter((id) => known.includes(id))
        : known;
      return tickerProvider.prices(ids);
    },
  );

  app.get(
    '/api/market/ticker',
    {
      schema: {
        tags: ['market'],
        summary: 'Ticker of a pair on an exchange',
        querystring: marketTickerQuery,
        response: { 200: marketTickerResponse },
      },
    },
    async (request) => {
      const { exchange } = request.query;
      const t = await hub.ticker(exchange, request.query.symbol).catch(rethrow);
      return { exchange: exchange.trim().toLowerCase(), ...t };
    },
  );

  app.get(
    '/api/market/orderbook',
    {
      schema: {
        tags: ['market'],
        summary: 'Order book, at most 10 levels per side',
        querystring: orderBookQuery,
        response: { 200: orderBookResponse },
      },
    },
    async (request) => {
      const { exchange, symbol, limit } = request.query;
      const book = await hub.orderBook(exchange, symbol, limit).catch(rethrow);
      return { exchange: exchange.trim().toLowerCase(), ...book };
    },
  );

  app.get(
    '/api/market/candles',
    {
      schema: {
        tags: ['market'],
        summary: 'Candles [time, open, high, low, close, volume], oldest first',
        querystring: candlesQuery,
        response: { 200: candlesResponse },
      },
    },
    async (request) => {
      const { exchange, symbol, timeframe, limit } = request.query;
      const unified = await hub.requireSymbol(exchange, symbol).catch(rethrow);
      const candles = await hub.candles(exchange, unified, timeframe, limit).catch(rethrow);
      return { exchange: exchange.trim().toLowerCase(), symbol: unified, timeframe, candles };
    },
  );

  app.get(
    '/api/market/pairs',
    {
      schema: {
        tags: ['market'],
        summary: "The exchange's pair list (pair suggestions)",
        querystring: pairsQuery,
        response: { 200: pairsResponse },
      },
    },
    async (request) => {
      const { exchange } = request.query;
      const markets = await hub.markets(exchange).catch(rethrow);
      // The user's pairs: spot markets only (a swap, BTC/USDT:USDT, is the same pair on another market type).
      const pairs = Object.values(markets)
        .filter((m) => m.active && !m.symbol.includes(':'))
        .map((m) => m.symbol)
        .sort();
      return { exchange: exchange.trim().toLowerCase(), pairs };
    },
  );

  if (ctx.config.SIMULATOR_CONTROL) {
    app.post(
      '/api/dev/market/delist',
      {
        schema: {
          tags: ['market'],
          summary:
            'Simulator control: delist (listed false) or relist a pair; bots on it pause and resume (SIMULATOR_CONTROL=1 only)',
          body: devDelistBody,
          response: { 200: devDelistResponse },
        },
      },
      async (request) => {
        if (!simulator) throw badRequest('The simulator is not running (MARKET_DATA=live)');
        const { exchange, symbol, listed } = request.body;
        const key = exchange.trim().toLowerCase();
        const unified = await hub.requireSymbol(key, symbol).catch(rethrow);
        simulator.setListed(key, unified, listed);
        await simStore?.flushState();
        request.log.info({ exchange: key, symbol: unified, listed }, 'simulated listing changed');
        return { ok: true as const, exchange: key, symbol: unified, listed };
      },
    );

    app.post(
      '/api/dev/market/price',
      {
        schema: {
          tags: ['market'],
          summary: 'Simulator control: set a price that holds until changed (SIMULATOR_CONTROL=1 only)',
          body: devPriceBody,
          response: { 200: devPriceResponse },
        },
      },
      async (request) => {
        if (!simulator) throw badRequest('The simulator is not running (MARKET_DATA=live)');
        const { exchange, symbol, price } = request.body;
        const key = exchange.trim().toLowerCase();
        const unified = await hub.requireSymbol(key, symbol).catch(rethrow);
        const tick = simulator.market(key, unified).priceStep;
        if (price < tick) {
          throw badRequest(`price must be at least the market's tick size (${tick}) on ${unified}`);
        }
        const held = simulator.setPrice(key, unified, price);
        await simStore?.flushState();
        request.log.info({ exchange: key, symbol: unified, price: held }, 'simulated price set');
        return { ok: true as const, exchange: key, symbol: unified, price: held };
      },
    );
  }
};
