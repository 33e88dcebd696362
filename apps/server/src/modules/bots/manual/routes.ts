import {
  futuresCloseBody,
  futuresFundingQuery,
  spotFavoriteBody,
  spotMarketQuery,
  spotOrderBody,
  spotOrderIdParams,
  spotOrdersQuery,
} from '@bytx/contract';
import { requireTrading } from '../../accounts/roles';
import { currentUser } from '../../../plugins/auth';
import type { KindPlugin } from '../kind-plugin';
import { ManualRepository } from './repository';
import { ManualService } from './service';

const tags = ['trading'];

/**
 * The spot (`/spot`) and futures (`/futuros`) screens' calls (issue 16, docs/trading.md). Every order is
 * a bot of kind 'manual' run by the shared runner. All of them need a session and the trading screens
 * (the support accounts, or everyone with TRADING_SCREENS=all): 403 'Platform in Development' otherwise,
 * checked before the input is read.
 */
export const manualRoutes: KindPlugin = async (app, { ctx, repo, runner, bots }) => {
  const service = new ManualService(ctx, repo, new ManualRepository(ctx.db), runner, bots);
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
    async (req) => service.order(currentUser(req).id, req.body),
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
    async (req) => service.list(currentUser(req).id, req.query.exchange, req.query.symbol),
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
    async (req) => service.cancel(currentUser(req).id, req.params.id),
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
    async (req) => service.market(currentUser(req).id, req.query.exchange, req.query.symbol),
  );

  app.get(
    '/api/spot/favorites',
    { ...guard, schema: { tags, summary: "The user's favourite pairs" } },
    async (req) => service.favorites(currentUser(req).id),
  );

  app.post(
    '/api/spot/favorites',
    {
      ...guard,
      schema: { tags, summary: 'Star or unstar a pair (favorite true or false)', body: spotFavoriteBody },
    },
    async (req) => service.setFavorite(currentUser(req).id, req.body.symbol, req.body.favorite),
  );

  app.post(
    '/api/futures/close',
    {
      ...guard,
      schema: { tags, summary: 'Close the whole position of a perpetual at market', body: futuresCloseBody },
    },
    async (req) => service.closePosition(currentUser(req).id, req.body.exchange, req.body.symbol),
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
    async (req) => service.funding(currentUser(req).id, req.query.exchange, req.query.symbol),
  );
};
