import { allHistoryQuery, historyDeleteQuery, historyIdParams } from '@bytx/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../../context';
import { currentUser } from '../../../plugins/auth';
import type { ReadCache } from '../read-cache';
import { HistoryRepository } from './repository';
import { HistoryService } from './service';

const tags = ['bots'];

/**
 * The global history calls (spec part 2 §7; docs/bots/history.md). The static
 * `DELETE /api/dca/history/delete_all` wins over `DELETE /api/dca/history/:id` (the router prefers
 * static segments), and `delete_all` is no valid id either.
 */
export const historyRoutes: FastifyPluginAsyncZod<{ ctx: AppContext; reads: ReadCache }> = async (
  app,
  { ctx, reads },
) => {
  const history = new HistoryService(
    ctx,
    new HistoryRepository(ctx.db),
    () => reads.market ?? ctx.services.market,
  );
  const auth = { onRequest: app.authenticate };

  app.get(
    '/api/dca/all_history',
    {
      ...auth,
      schema: {
        tags,
        summary: 'Every closed trade of the user, newest sale first; aggregates=1 adds the page panels',
        querystring: allHistoryQuery,
      },
    },
    // Cached per user and query (read-cache.ts); "last 30 days" panels make it clock-dependent.
    async (req, reply) => {
      const userId = currentUser(req).id;
      return reads.send(
        reply,
        userId,
        `all_history|${JSON.stringify(req.query)}`,
        { timed: true, prices: true },
        () => history.list(userId, req.query),
      );
    },
  );

  app.delete(
    '/api/dca/history/delete_all',
    {
      ...auth,
      schema: {
        tags,
        summary: 'Delete (hide) every history row of the user',
        querystring: historyDeleteQuery,
      },
    },
    async (req) => history.deleteAll(currentUser(req).id),
  );

  app.delete(
    '/api/dca/history/:id',
    {
      ...auth,
      schema: {
        tags,
        summary: 'Delete (hide) one history row of the user',
        params: historyIdParams,
        querystring: historyDeleteQuery,
      },
    },
    async (req) => history.deleteOne(currentUser(req).id, req.params.id),
  );
};
