import {
  futuresCloseBody,
  futuresFundingQuery,
  spotFavoriteBody,
  spotMarketQuery,
  spotOrderBody,
  spotOrderIdParams,
  spotOrdersQuery,
} from '@bytx/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context';
import { tableCache } from '../../db/table-cache';
import { currentUser } from '../../plugins/auth';
import { requireTrading } from '../accounts/roles';
import { botsModuleOf } from '../bots/routes';
import { FavoritesRepository } from './favorites.repository';
import { FavoritesService } from './favorites.service';
import { FundingService } from './funding.service';
import { TradingInputs } from './inputs';
import { MarketInfoService } from './market-info.service';
import { OrderChecks } from './order-checks';
import { ManualOrdersRepository } from './orders.repository';
import { ManualOrdersService } from './orders.service';

const tags = ['trading'];

/**
 * The trading module: the spot (`/spot`) and futures (`/futuros`) screens' calls (issue 16,
 * docs/trading.md). Every order is a bot of kind 'manual' run by the bots module's runner, so this
 * module registers after that one. All of them need a session and the trading screens (the support
 * accounts, or everyone with TRADING_SCREENS=all): 403 'Platform in Development' otherwise, checked
 * before the input is read.
 */
export const tradingRoutes: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  const shared = botsModuleOf.get(ctx);
  if (!shared) throw new Error('the trading module registers after the bots module (modules/index.ts)');
  const { repo, runner, bots } = shared;
  const inputs = new TradingInputs(bots);
  const manualOrders = new ManualOrdersRepository(ctx.db);
  const orders = new ManualOrdersService(
    ctx,
    repo,
    manualOrders,
    runner,
    bots,
    inputs,
    new OrderChecks(inputs, manualOrders),
  );
  const favorites = new FavoritesService(
    new FavoritesRepository(ctx.db),
    tableCache(ctx, /\bspot_favorites\b|\bdelete\s+from\s+"?users\b/i),
  );
  const funding = new FundingService(inputs);
  const markets = new MarketInfoService(inputs);
  const guard = { onRequest: [app.authenticate, requireTrading(ctx.config)] };

  app.post(
    '/api/spot/order',
    {
      ...guard,
      schema: {
        tags,
        summary:
          'Place a spot or futures order (limit or market, optional TP/SL as one-cancels-the-other); dry_run only checks and rounds',
        body: spotOrderBody,
      },
    },
    async (req) => orders.order(currentUser(req).id, req.body),
  );

  app.get(
    '/api/spot/orders',
    {
      ...guard,
      schema: {
        tags,
        summary: 'Open orders, recently ended orders and the last fills of an exchange (and pair)',
        querystring: spotOrdersQuery,
      },
    },
    // Orders are bots (kind 'manual'): answered from the bots' read cache until a write to the user's
    // bots, or any write to a bot table by others (bots/read-cache.ts), as the bot lists are.
    async (req, reply) => {
      const userId = currentUser(req).id;
      const { exchange, symbol } = req.query;
      return bots.reads.send(
        reply,
        userId,
        `spot_orders|${JSON.stringify([exchange, symbol ?? ''])}`,
        {},
        () => orders.list(userId, exchange, symbol),
      );
    },
  );

  app.delete(
    '/api/spot/orders/:id',
    {
      ...guard,
      schema: {
        tags,
        summary: 'Cancel an open entry, or the TP/SL of a filled one (the position is kept)',
        params: spotOrderIdParams,
      },
    },
    async (req) => orders.cancel(currentUser(req).id, req.params.id),
  );

  app.get(
    '/api/spot/market',
    {
      ...guard,
      schema: {
        tags,
        summary: 'Steps, minimums, fees, price and free balances of a pair (spot) or perpetual (futures)',
        querystring: spotMarketQuery,
      },
    },
    async (req) => markets.market(currentUser(req).id, req.query.exchange, req.query.symbol),
  );

  app.get(
    '/api/spot/favorites',
    { ...guard, schema: { tags, summary: "The user's favourite pairs" } },
    async (req) => favorites.favorites(currentUser(req).id),
  );

  app.post(
    '/api/spot/favorites',
    {
      ...guard,
      schema: { tags, summary: 'Star or unstar a pair (favorite true or false)', body: spotFavoriteBody },
    },
    async (req) => favorites.setFavorite(currentUser(req).id, req.body.symbol, req.body.favorite),
  );

  app.post(
    '/api/futures/close',
    {
      ...guard,
      schema: { tags, summary: 'Close the whole position of a perpetual at market', body: futuresCloseBody },
    },
    async (req) => orders.closePosition(currentUser(req).id, req.body.exchange, req.body.symbol),
  );

  app.get(
    '/api/futures/funding',
    {
      ...guard,
      schema: {
        tags,
        summary: "A perpetual's funding rate, next funding time and mark price",
        querystring: futuresFundingQuery,
      },
    },
    async (req) => funding.funding(currentUser(req).id, req.query.exchange, req.query.symbol),
  );
};
