import {
  BACKTEST_LIMITS,
  backtestGetQuery,
  backtestIdParams,
  backtestListQuery,
  backtestStartBody,
} from '@bytx/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context';
import { currentUser } from '../../plugins/auth';
import { BotsRepository } from '../bots/bots.repository';
import { BacktestsRepository } from './repository';
import { BacktestService } from './service';

const tags = ['backtest'];

/** The backtest service of each app (tests reach it through the app's context: clock, candle store). */
export const backtestServices = new WeakMap<AppContext, BacktestService>();

/**
 * A JSON body of 600,000 inline candles is about 30 MB; a CSV at most 8 MB (a little more as JSON).
 * Only this route takes such bodies (the app's default is 256 KB).
 */
const BODY_LIMIT = 48 * 1024 * 1024;

/** Backtests (issue 19, docs/backtest.md): a start form's params over past candles, in a worker thread. */
export const backtestRoutes: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  const service = new BacktestService(ctx, new BacktestsRepository(ctx.db), new BotsRepository(ctx.db));
  backtestServices.set(ctx, service);
  app.addHook('onReady', async () => service.startup());
  app.addHook('onClose', async () => service.close());
  const auth = { onRequest: app.authenticate };

  app.post(
    '/api/backtest',
    {
      ...auth,
      bodyLimit: BODY_LIMIT,
      schema: {
        tags,
        summary: `Backtest a start form's params over past candles (at most ${BACKTEST_LIMITS.maxCandles}); 202 with its id`,
        body: backtestStartBody,
      },
    },
    async (req, reply) => {
      const { id } = await service.start(currentUser(req).id, req.body);
      return reply.code(202).send({ success: true, id });
    },
  );

  app.get(
    '/api/backtest',
    {
      ...auth,
      schema: { tags, summary: 'The user’s recent backtests (kept 24 h)', querystring: backtestListQuery },
    },
    async (req) => ({ success: true, backtests: await service.list(currentUser(req).id, req.query.limit) }),
  );

  app.get(
    '/api/backtest/:id',
    {
      ...auth,
      schema: {
        tags,
        summary: 'A backtest: status and progress while it runs, the result once done',
        params: backtestIdParams,
        querystring: backtestGetQuery,
      },
    },
    async (req) => service.get(currentUser(req).id, req.params.id),
  );

  app.delete(
    '/api/backtest/:id',
    {
      ...auth,
      schema: {
        tags,
        summary: 'Cancel a running backtest, or delete a finished one',
        params: backtestIdParams,
        querystring: backtestGetQuery,
      },
    },
    async (req) => service.remove(currentUser(req).id, req.params.id),
  );
};
