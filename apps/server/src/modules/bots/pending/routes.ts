import {
  autoFundToggleBody,
  drawdownsRefreshBody,
  pendingAddFundsBody,
  pendingDeleteParams,
  pendingOrdersQuery,
  pendingSellBody,
  pendingUserQuery,
} from '@bytx/contract';
import { z } from 'zod';
import { READ_ONLY } from '../../../lib/read-only';
import { currentUser } from '../../../plugins/auth';
import type { KindPlugin } from '../kind-plugin';
import { DustJob } from './dust';
import { PendingRepository } from './repository';
import { PendingService } from './service';

const tags = ['pending orders'];

/** Pending orders of every kind with lots and their actions (spec part 2 §7; docs/bots/pending-orders.md). */
export const pendingRoutes: KindPlugin = async (app, { ctx, repo, runner, bots }) => {
  const pendingRepo = new PendingRepository(ctx.db);
  const pending = new PendingService(repo, pendingRepo, runner, bots);
  const dust = new DustJob({
    repo,
    pending: pendingRepo,
    service: pending,
    runner,
    market: () => bots.market,
    holder: runner.deps.runnerId,
    log: ctx.log,
  });
  if (ctx.config.BOT_RUNNER) {
    app.addHook('onReady', async () => dust.start());
    app.addHook('onClose', async () => dust.close());
  }
  const auth = { onRequest: app.authenticate };

  app.get(
    '/api/dca/pending_orders',
    {
      ...auth,
      schema: {
        tags,
        summary: 'Pending orders: open lots of one bot, one pair or every bot, and recent completed ones',
        querystring: pendingOrdersQuery,
      },
    },
    // Cached per query until a write to the user's bots, a tick of a listed pair, or the next second
    // (the completed orders of the last days).
    async (req, reply) => {
      const userId = currentUser(req).id;
      return bots.reads.send(
        reply,
        userId,
        `pending_orders|${JSON.stringify(req.query)}`,
        { timed: true, prices: true },
        () => pending.list(userId, req.query),
      );
    },
  );

  app.post(
    '/api/dca/pending_orders/add_funds',
    { ...auth, schema: { tags, summary: 'Buy more into an open lot', body: pendingAddFundsBody } },
    async (req) => pending.addFunds(currentUser(req).id, req.body.id, req.body.amount_quote),
  );

  app.post(
    '/api/dca/pending_orders/sell',
    { ...auth, schema: { tags, summary: 'Sell an open lot at market', body: pendingSellBody } },
    async (req) => pending.sell(currentUser(req).id, req.body.id),
  );

  app.delete(
    '/api/dca/pending_orders/:id',
    {
      ...auth,
      schema: {
        tags,
        summary: 'Stop tracking an open lot (its TP is cancelled, the assets stay)',
        params: pendingDeleteParams,
        querystring: pendingUserQuery,
      },
    },
    async (req) => pending.remove(currentUser(req).id, req.params.id),
  );

  app.post(
    '/api/pending/drawdowns/refresh',
    {
      ...auth,
      schema: { ...READ_ONLY, tags, summary: 'Drawdowns of these open lots', body: drawdownsRefreshBody },
    },
    // Cached as GET /api/pending/drawdowns below, per list of ids.
    async (req, reply) => {
      const userId = currentUser(req).id;
      return bots.reads.send(
        reply,
        userId,
        `drawdowns|${JSON.stringify(req.body.ids)}`,
        { prices: true },
        () => pending.drawdowns(userId, req.body.ids),
      );
    },
  );

  app.get(
    '/api/pending/drawdowns',
    {
      ...auth,
      schema: {
        tags,
        summary: 'Drawdown and auto-fund flag of every open lot',
        querystring: pendingUserQuery,
      },
    },
    // Cached until a write to the user's bots (a lot bought, sold, funded, forgotten, its auto-fund
    // flag: the runner writes every state change) or a tick of a pair it read the price of (read through
    // the read cache's market hub, so the answer is keyed by the tick sequence it was computed at), and
    // at most for the second it was computed in (read-cache.ts).
    async (req, reply) => {
      const userId = currentUser(req).id;
      return bots.reads.send(reply, userId, 'drawdowns', { prices: true }, () => pending.drawdowns(userId));
    },
  );

  app.post(
    '/api/pending/auto_fund/toggle',
    { ...auth, schema: { tags, summary: 'Auto-fund an open lot on or off', body: autoFundToggleBody } },
    async (req) => pending.toggleAutoFund(currentUser(req).id, req.body.id, req.body.enabled),
  );

  if (ctx.config.SIMULATOR_CONTROL) {
    app.post(
      '/api/dev/pending/dust/run',
      {
        schema: {
          tags,
          summary:
            'Simulator control: run the dust auto-close now, as if at `at` (ms; default now) (SIMULATOR_CONTROL=1 only)',
          body: z.object({ at: z.number().int().positive().optional() }).optional(),
        },
      },
      async (req) => ({ success: true, closed: await dust.run(req.body?.at ?? Date.now()) }),
    );
  }
};
