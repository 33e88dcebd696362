import {
  arbitrageHistoryBody,
  arbitrageLogQuery,
  arbitrageStartBody,
  arbitrageStatusBody,
  arbitrageStopBody,
} from '@bytx/contract';
import { READ_ONLY } from '../../../../lib/read-only';
import { currentUser } from '../../../../plugins/auth';
import type { KindPlugin } from '../../kind-plugin';
import { ArbitrageService } from './service';

const tags = ['bots'];

/**
 * Arbitrage bot (`/arbitraje`, spec part 2 §7; issue 15 §1): its own calls, with the spec's paths and
 * field names; the shared ones (events, pnls_actuales…) are in ../routes.ts. A `user_id` naming another
 * user is refused with 403 by the auth plugin, as for every bot call.
 */
export const arbitrageRoutes: KindPlugin = async (app, { ctx, repo, runner, bots }) => {
  const arb = new ArbitrageService(ctx, repo, runner, bots);
  const auth = { onRequest: app.authenticate };

  app.post(
    '/api/start_arbitraje',
    {
      ...auth,
      schema: {
        tags,
        summary: 'Start the Arbitrage bot (Binance ↔ Bybit, half of monto_usdt on each)',
        body: arbitrageStartBody,
      },
    },
    async (req) => {
      const { id, message } = await arb.start(currentUser(req).id, req.body);
      return { success: true, message, id };
    },
  );

  app.post(
    '/api/stop_arbitraje',
    {
      ...auth,
      schema: {
        tags,
        summary: "Stop the user's Arbitrage bot (sells its inventory unless keep_assets)",
        body: arbitrageStopBody,
      },
    },
    async (req) => arb.stop(currentUser(req).id, req.body.keep_assets),
  );

  app.post(
    '/api/historial_arbitraje',
    {
      ...auth,
      schema: {
        ...READ_ONLY,
        tags,
        summary: 'Round trips of the user’s Arbitrage bots, newest first',
        body: arbitrageHistoryBody,
      },
    },
    // Answered from the read cache until a write to the user's bots or trades (read-cache.ts).
    async (req, reply) => {
      const userId = currentUser(req).id;
      return bots.reads.send(reply, userId, 'historial_arbitraje', {}, async () => ({
        success: true,
        historial: await arb.history(userId),
      }));
    },
  );

  app.post(
    '/api/estado_bot_arbitraje',
    {
      ...auth,
      // Polled with the same body: parsed and validated once per distinct body (lib/memoized-body.ts).
      config: { memoizeBody: true },
      schema: {
        ...READ_ONLY,
        tags,
        summary: 'Whether the Arbitrage bot is active, both exchanges connected, its live spread and PnL',
        body: arbitrageStatusBody,
      },
    },
    // The same text while the connections, the bot's row and the runner's state are the same objects
    // (service.ts statusText): the live figures are the runner's, read on every call.
    async (req, reply) =>
      reply.type('application/json; charset=utf-8').send(await arb.statusText(currentUser(req).id)),
  );

  app.get(
    '/api/arbitraje/log',
    {
      ...auth,
      schema: {
        tags,
        summary: "The Arbitrage bot's event log (active, else the latest), newest first",
        querystring: arbitrageLogQuery,
      },
    },
    // Answered from the read cache until a write to the user's bots or their events (read-cache.ts).
    async (req, reply) => {
      const userId = currentUser(req).id;
      const { limit } = req.query;
      return bots.reads.send(reply, userId, `arbitraje/log|${limit ?? ''}`, {}, async () => {
        const { botId, events } = await arb.log(userId, limit);
        return { success: true, bot_id: botId, events };
      });
    },
  );
};
