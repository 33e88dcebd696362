import {
  gridActivosBody,
  gridDetenerBody,
  gridHistorialBody,
  gridIdParams,
  gridNivelesBody,
  gridStartBody,
} from '@bytx/contract';
import { READ_ONLY } from '../../../../lib/read-only';
import { currentUser } from '../../../../plugins/auth';
import type { KindPlugin } from '../../kind-plugin';
import { GridService } from './service';

const tags = ['bots'];

/** Grid Bot (`/grid-bot`, spec part 2 §7; issue 14 §3): its own calls; the shared ones are in ../routes.ts. */
export const gridRoutes: KindPlugin = async (app, { ctx, repo, runner, bots }) => {
  const grid = new GridService(ctx, repo, runner, bots);
  const auth = { onRequest: app.authenticate };

  app.post(
    '/api/gridbot/niveles',
    {
      ...auth,
      schema: {
        ...READ_ONLY,
        tags,
        summary: 'Grid levels of a range at the price (nothing placed)',
        body: gridNivelesBody,
      },
    },
    async (req) => grid.niveles(req.body),
  );

  app.post(
    '/api/gridbot/start',
    { ...auth, schema: { tags, summary: 'Start a Grid bot', body: gridStartBody } },
    async (req) => {
      const { bot, message } = await grid.start(currentUser(req).id, req.body);
      return { ok: true, success: true, message, id: bot.id, bot };
    },
  );

  app.post(
    '/api/gridbot/activos',
    {
      ...auth,
      schema: { ...READ_ONLY, tags, summary: 'Active Grid bots of the user', body: gridActivosBody },
    },
    // Answered from the read cache until a write to the user's bots (read-cache.ts).
    async (req, reply) => {
      const userId = currentUser(req).id;
      return bots.reads.send(reply, userId, 'gridbot/activos', {}, async () => ({
        ok: true,
        success: true,
        bots: await grid.active(userId),
      }));
    },
  );

  app.post(
    '/api/gridbot/detener',
    {
      ...auth,
      schema: {
        tags,
        summary: 'Stop a Grid bot (vender: sell all at market, else keep assets)',
        body: gridDetenerBody,
      },
    },
    async (req) => grid.stop(currentUser(req).id, req.body.grid_id, req.body.vender),
  );

  app.post(
    '/api/gridbot/historial',
    {
      ...auth,
      // Polled with the same body: parsed and validated once per distinct body (lib/memoized-body.ts).
      config: { memoizeBody: true },
      schema: {
        ...READ_ONLY,
        tags,
        summary: 'Closed Grid bots of the user with their PnL',
        body: gridHistorialBody,
      },
    },
    // Answered from the read cache until a write to the user's bots (read-cache.ts).
    async (req, reply) => {
      const userId = currentUser(req).id;
      return bots.reads.send(reply, userId, 'gridbot/historial', {}, async () => ({
        ok: true,
        success: true,
        history: await grid.history(userId),
      }));
    },
  );

  app.get(
    '/api/gridbot/:id',
    {
      ...auth,
      schema: { tags, summary: 'One Grid bot: levels, open orders, PnL (the chart)', params: gridIdParams },
    },
    // From the read cache until a write to the user's bots or their orders (a fill is one), or a tick of
    // the pair (its price, and the runner's state that follows it) (read-cache.ts).
    async (req, reply) => {
      const userId = currentUser(req).id;
      const { id } = req.params;
      return bots.reads.send(reply, userId, `gridbot|${id}`, { prices: true }, async () => ({
        ok: true,
        success: true,
        bot: await grid.detail(userId, id),
      }));
    },
  );
};
