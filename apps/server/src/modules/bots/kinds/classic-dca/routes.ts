import {
  actualizarBotBody,
  anadirFondosBody,
  botsActivosQuery,
  dcasActualesBody,
  startBotBody,
  stopBotBody,
  updateTpVncBody,
  vncsActualesBody,
} from '@bytx/contract';
import { READ_ONLY } from '../../../../lib/read-only';
import { currentUser } from '../../../../plugins/auth';
import type { KindPlugin } from '../../kind-plugin';
import { ClassicDcaService } from './service';

const tags = ['bots'];

/** Classic DCA bot (`/dashboard`, the spot-bot screen; spec part 2 §7). */
export const classicDcaRoutes: KindPlugin = async (app, { ctx, repo, runner, bots }) => {
  const classic = new ClassicDcaService(ctx, repo, runner, bots);
  const auth = { onRequest: app.authenticate };

  app.get(
    '/api/bots_activos',
    { ...auth, schema: { tags, summary: 'Active classic DCA bots', querystring: botsActivosQuery } },
    // Cached until a write to the user's bots, a tick of a listed pair, or the next second (ttr).
    async (req, reply) => {
      const userId = currentUser(req).id;
      return bots.reads.send(reply, userId, 'bots_activos', { timed: true, prices: true }, async () => ({
        success: true,
        bots: await classic.active(userId),
      }));
    },
  );

  app.post(
    '/api/start_bot',
    { ...auth, schema: { tags, summary: 'Start a classic DCA bot', body: startBotBody } },
    async (req) => {
      const { bot, message } = await classic.start(currentUser(req).id, req.body);
      return { success: true, message, bot };
    },
  );

  app.post(
    '/api/stop_bot',
    {
      ...auth,
      schema: { tags, summary: 'Stop a classic DCA bot (default: keep assets as VNC)', body: stopBotBody },
    },
    async (req) => classic.stop(currentUser(req).id, req.body.exchange, req.body.symbol, req.body.mode),
  );

  app.post(
    '/api/actualizar_bot',
    { ...auth, schema: { tags, summary: 'Set one of sl, tp_plus, r, r_os', body: actualizarBotBody } },
    async (req) =>
      classic.update(currentUser(req).id, req.body.exchange, req.body.symbol, {
        sl: req.body.sl,
        tp_plus: req.body.tp_plus,
        r: req.body.r,
        r_os: req.body.r_os,
      }),
  );

  app.post(
    '/api/update_tp_vnc',
    { ...auth, schema: { tags, summary: 'Take profit of the pair’s VNC', body: updateTpVncBody } },
    async (req) =>
      classic.updateTpVnc(currentUser(req).id, req.body.exchange, req.body.symbol, req.body.tp_vnc),
  );

  app.post(
    '/api/anadir_fondos',
    {
      ...auth,
      schema: { tags, summary: 'Buy more at market into the open position', body: anadirFondosBody },
    },
    async (req) => classic.addFunds(currentUser(req).id, req.body.exchange, req.body.symbol, req.body.amount),
  );

  app.post(
    '/api/vncs_actuales',
    {
      ...auth,
      schema: { ...READ_ONLY, tags, summary: 'VNC quantities of the user’s pairs', body: vncsActualesBody },
    },
    // Cached until a write to the user's bots (read-cache.ts): a VNC's figures (qty, cost, its sell
    // order, tp_vnc) are its state's, changed only by a fill or an action, which the runner writes; no
    // price or clock is read. A residual handed over while computing is a write: that answer is not kept.
    async (req, reply) => {
      const userId = currentUser(req).id;
      return bots.reads.send(
        reply,
        userId,
        `vncs|${JSON.stringify(req.body.bots ?? null)}`,
        {},
        async () => ({
          success: true,
          vncs: await classic.vncs(userId, req.body.bots),
        }),
      );
    },
  );

  app.post(
    '/api/dcas_actuales',
    {
      ...auth,
      schema: {
        ...READ_ONLY,
        tags,
        summary: 'Average entry of each active classic DCA bot',
        body: dcasActualesBody,
      },
    },
    // Cached until a write to the user's bots (read-cache.ts): the average entry is the position's
    // cost over its qty (no live price: `summarizeClassicDca`'s price only moves the PnL, not `dca`),
    // changed only by a fill, which the runner writes.
    async (req, reply) => {
      const userId = currentUser(req).id;
      return bots.reads.send(
        reply,
        userId,
        `dcas|${JSON.stringify(req.body.bots ?? null)}`,
        {},
        async () => ({
          success: true,
          dcas: await classic.dcas(userId, req.body.bots),
        }),
      );
    },
  );
};
