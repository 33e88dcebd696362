import {
  actualizarBotDcaBody,
  botsActivosQuery,
  historyQuery,
  raToggleBody,
  relocateBody,
  startBotDcaBody,
  stopBotDcaBody,
  updateSlBody,
  updateTpPlusBody,
} from '@bytx/contract';
import { currentUser } from '../../../../plugins/auth';
import type { KindPlugin } from '../../kind-plugin';
import { DcaService } from './service';

const tags = ['bots'];

/** Grid Bot DCA (`/bot-dca`, spec part 2 §7): its own calls; the shared ones are in ../routes.ts. */
export const gridDcaRoutes: KindPlugin = async (app, { ctx, repo, runner, bots }) => {
  const dca = new DcaService(ctx, repo, runner, bots);
  const auth = { onRequest: app.authenticate };

  app.get(
    '/api/bots_activos_dca',
    { ...auth, schema: { tags, summary: 'Active Grid Bot DCA bots', querystring: botsActivosQuery } },
    // Answered from the read cache until a write to the user's bots (read-cache.ts).
    async (req, reply) => {
      const userId = currentUser(req).id;
      return bots.reads.send(reply, userId, 'bots_activos_dca', {}, async () => ({
        success: true,
        bots: await dca.active(userId),
      }));
    },
  );

  app.post(
    '/api/start_bot_dca',
    { ...auth, schema: { tags, summary: 'Start a Grid Bot DCA', body: startBotDcaBody } },
    async (req) => {
      const { bot, message } = await dca.start(currentUser(req).id, req.body);
      return { success: true, message, bot };
    },
  );

  app.post(
    '/api/stop_bot_dca',
    { ...auth, schema: { tags, summary: 'Stop a Grid Bot DCA', body: stopBotDcaBody } },
    async (req) => dca.stop(currentUser(req).id, req.body.exchange, req.body.symbol, req.body.mode),
  );

  app.post(
    '/api/actualizar_bot_dca',
    { ...auth, schema: { tags, summary: 'Update SL or TP+ of a bot', body: actualizarBotDcaBody } },
    async (req) =>
      dca.updateSlTp(currentUser(req).id, req.body.exchange, req.body.symbol, {
        ...(req.body.sl !== undefined ? { sl: req.body.sl } : {}),
        ...(req.body.tp_plus !== undefined ? { tp_plus: req.body.tp_plus } : {}),
      }),
  );

  app.post(
    '/api/update_sl',
    { ...auth, schema: { tags, summary: 'Set or clear the stop-loss price', body: updateSlBody } },
    async (req) =>
      dca.updateSlTp(currentUser(req).id, req.body.exchange, req.body.symbol, {
        sl: req.body.sl ?? null,
      }),
  );

  app.post(
    '/api/update_tp_plus',
    { ...auth, schema: { tags, summary: 'Set or clear the TP+ price', body: updateTpPlusBody } },
    async (req) =>
      dca.updateSlTp(currentUser(req).id, req.body.exchange, req.body.symbol, {
        tp_plus: req.body.tp_plus ?? null,
      }),
  );

  app.post(
    '/api/dca/ra/toggle',
    { ...auth, schema: { tags, summary: 'Automatic relocation on or off', body: raToggleBody } },
    async (req) => dca.toggleRa(currentUser(req).id, req.body.exchange, req.body.symbol, req.body.enabled),
  );

  app.post(
    '/api/dca/relocate',
    { ...auth, schema: { tags, summary: 'Re-anchor the ladder at the current price', body: relocateBody } },
    async (req) => dca.relocate(currentUser(req).id, req.body.exchange, req.body.symbol),
  );

  app.get(
    '/api/dca/history',
    { ...auth, schema: { tags, summary: 'Closed trades of a bot', querystring: historyQuery } },
    // From the read cache until a write to the user's bots (a sale, a soft delete): each answer read the
    // bot's row, a page and the page count, three PGlite queries on the main thread (docs/read-path.md).
    async (req, reply) => {
      const userId = currentUser(req).id;
      const { bot_id: botId, page, per_page: perPage } = req.query;
      return bots.reads.send(reply, userId, `dca/history|${botId}|${page}|${perPage}`, {}, () =>
        dca.history(userId, botId, page, perPage),
      );
    },
  );
};
