import os from 'node:os';
import {
  actualizarBotDcaBody,
  apartadoBody,
  botEventsParams,
  botEventsQuery,
  botsActivosQuery,
  historyQuery,
  minCostBody,
  pendingOrdersQuery,
  pnlsActualesBody,
  raToggleBody,
  relocateBody,
  setLeverageBody,
  startBotDcaBody,
  stopBotDcaBody,
  updateSlBody,
  updateTpPlusBody,
  userOnlyBody,
} from '@bytx/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context';
import { currentUser } from '../../plugins/auth';
import { BotsRepository } from './bots.repository';
import { DcaService } from './dca.service';
import { BotRunner } from './runner';

const tags = ['bots'];

/** The runner of each app (tests and benchmarks reach it through the app's context). */
export const runners = new WeakMap<AppContext, BotRunner>();

/**
 * Grid Bot DCA (spec part 2 §7) and the bot runner. The runner trades leased bots when BOT_RUNNER=1;
 * an API-only process attaches a bot just for the user action it carries out.
 */
export const botsRoutes: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  const repo = new BotsRepository(ctx.db);
  const runner = new BotRunner({
    store: repo,
    market: () => {
      if (!ctx.services.market) throw new Error('market hub not available');
      return ctx.services.market;
    },
    venues: () => {
      if (!ctx.services.venues) throw new Error('venue registry not available');
      return ctx.services.venues;
    },
    log: ctx.log,
    runnerId: `${os.hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`,
    takeAllLeases: ctx.database.driver === 'pglite',
    autoRun: ctx.config.BOT_RUNNER,
  });
  const service = new DcaService(ctx, repo, runner);
  // First: bots cancel their orders while the user's venues are still open (exchanges closes them after).
  ctx.hooks.beforeUserDelete.unshift((userId) => service.stopAllForUser(userId));
  // Before a connection is removed or its venue replaced: its bots stop (cancel_only) on the open venue.
  ctx.hooks.beforeConnectionChange.push((userId, exchange) => service.stopForConnection(userId, exchange));

  if (ctx.config.BOT_RUNNER) {
    app.addHook('onReady', async () => {
      void runner.start().catch((err: unknown) => ctx.log.error({ err }, 'bot runner failed to start'));
    });
  }
  app.addHook('onClose', async () => runner.close());
  runners.set(ctx, runner);

  const auth = { onRequest: app.authenticate };

  app.get(
    '/api/bots_activos_dca',
    { ...auth, schema: { tags, summary: 'Active Grid Bot DCA bots', querystring: botsActivosQuery } },
    async (req) => ({ success: true, bots: await service.active(currentUser(req).id) }),
  );

  app.get(
    '/api/historial',
    { ...auth, schema: { tags, summary: 'Closed Grid Bot DCA bots (bot history modal)' } },
    async (req) => ({ success: true, historial: await service.closed(currentUser(req).id) }),
  );

  app.post(
    '/api/start_bot_dca',
    { ...auth, schema: { tags, summary: 'Start a Grid Bot DCA', body: startBotDcaBody } },
    async (req) => {
      const { bot, message } = await service.start(currentUser(req).id, req.body);
      return { success: true, message, bot };
    },
  );

  app.post(
    '/api/stop_bot_dca',
    { ...auth, schema: { tags, summary: 'Stop a Grid Bot DCA', body: stopBotDcaBody } },
    async (req) => service.stop(currentUser(req).id, req.body.exchange, req.body.symbol, req.body.mode),
  );

  app.post(
    '/api/actualizar_bot_dca',
    { ...auth, schema: { tags, summary: 'Update SL or TP+ of a bot', body: actualizarBotDcaBody } },
    async (req) =>
      service.updateSlTp(currentUser(req).id, req.body.exchange, req.body.symbol, {
        ...(req.body.sl !== undefined ? { sl: req.body.sl } : {}),
        ...(req.body.tp_plus !== undefined ? { tp_plus: req.body.tp_plus } : {}),
      }),
  );

  app.post(
    '/api/update_sl',
    { ...auth, schema: { tags, summary: 'Set or clear the stop-loss price', body: updateSlBody } },
    async (req) =>
      service.updateSlTp(currentUser(req).id, req.body.exchange, req.body.symbol, {
        sl: req.body.sl ?? null,
      }),
  );

  app.post(
    '/api/update_tp_plus',
    { ...auth, schema: { tags, summary: 'Set or clear the TP+ price', body: updateTpPlusBody } },
    async (req) =>
      service.updateSlTp(currentUser(req).id, req.body.exchange, req.body.symbol, {
        tp_plus: req.body.tp_plus ?? null,
      }),
  );

  app.post(
    '/api/min_cost',
    { ...auth, schema: { tags, summary: 'Minimum order cost of a pair', body: minCostBody } },
    async (req) => service.minCost(req.body.exchange, req.body.symbol),
  );

  app.post(
    '/api/dca/ra/toggle',
    { ...auth, schema: { tags, summary: 'Automatic relocation on or off', body: raToggleBody } },
    async (req) =>
      service.toggleRa(currentUser(req).id, req.body.exchange, req.body.symbol, req.body.enabled),
  );

  app.post(
    '/api/dca/relocate',
    { ...auth, schema: { tags, summary: 'Re-anchor the ladder at the current price', body: relocateBody } },
    async (req) => service.relocate(currentUser(req).id, req.body.exchange, req.body.symbol),
  );

  app.get(
    '/api/dca/pending_orders',
    {
      ...auth,
      schema: { tags, summary: 'Open lots (pending orders) of a bot', querystring: pendingOrdersQuery },
    },
    async (req) => service.pendingOrders(currentUser(req).id, req.query),
  );

  app.get(
    '/api/dca/history',
    { ...auth, schema: { tags, summary: 'Closed trades of a bot', querystring: historyQuery } },
    async (req) => service.history(currentUser(req).id, req.query.bot_id, req.query.page, req.query.per_page),
  );

  app.get(
    '/api/bots/:id/events',
    {
      ...auth,
      schema: { tags, summary: "A bot's event log", params: botEventsParams, querystring: botEventsQuery },
    },
    async (req) => ({
      success: true,
      events: await service.events(currentUser(req).id, req.params.id, req.query.limit),
    }),
  );

  app.post(
    '/api/set_leverage',
    { ...auth, schema: { tags, summary: 'Leverage per exchange and symbol', body: setLeverageBody } },
    async (req) =>
      service.setLeverage(currentUser(req).id, req.body.exchange, req.body.symbol, req.body.leverage),
  );

  app.post(
    '/api/apartado_usuario',
    { ...auth, schema: { tags, summary: 'Save the market type (apartado)', body: apartadoBody } },
    async (req) => service.setApartado(currentUser(req).id, req.body.apartado),
  );

  app.get(
    '/api/apartado_usuario',
    { ...auth, schema: { tags, summary: 'The saved market type', querystring: botsActivosQuery } },
    async (req) => ({ success: true, apartado: await service.apartado(currentUser(req).id) }),
  );

  app.post(
    '/api/precios_actuales',
    { ...auth, schema: { tags, summary: 'Current prices of the active bots', body: userOnlyBody } },
    async (req) => service.prices(currentUser(req).id),
  );

  app.post(
    '/api/pnls_actuales',
    { ...auth, schema: { tags, summary: 'Realized PnL per active bot', body: pnlsActualesBody } },
    async (req) => service.pnls(currentUser(req).id, req.body.bots),
  );

  app.post(
    '/api/reanudar_bots_activos',
    { ...auth, schema: { tags, summary: 'Resume every active bot of the user', body: userOnlyBody } },
    async (req) => service.resume(currentUser(req).id),
  );
};
