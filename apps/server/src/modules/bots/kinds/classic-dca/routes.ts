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
import { summarizeClassicDca, type ClassicDcaState, type VncState } from '@bytx/engine';
import { currentUser } from '../../../../plugins/auth';
import type { KindPlugin } from '../../kind-plugin';
import { CLASSIC_DCA, CLASSIC_VNC, ClassicDcaService } from './service';

const tags = ['bots'];

/** Classic DCA bot (`/dashboard`, the spot-bot screen; spec part 2 §7). */
export const classicDcaRoutes: KindPlugin = async (app, { ctx, repo, runner, bots }) => {
  const classic = new ClassicDcaService(ctx, repo, runner, bots);
  bots.kinds.set(CLASSIC_DCA, {
    needsPrice: true,
    figures: (_row, state, price, now) => {
      const s = state as ClassicDcaState;
      const sum = summarizeClassicDca(s, price ?? s.lastPrice ?? 0);
      return {
        pnl: Math.round(sum.pnl * 1e8) / 1e8,
        ttr: sum.cycleStart === null ? 0 : Math.max(0, Math.round((now - sum.cycleStart) / 1000)),
      };
    },
  });
  bots.kinds.set(CLASSIC_VNC, {
    needsPrice: false,
    leftover: true,
    figures: (row, state, _price, now) => ({
      pnl: Number((state as VncState).realizedPnl) || 0,
      ttr: Math.round((now - row.startedAt.getTime()) / 1000),
    }),
  });
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
    { ...auth, schema: { tags, summary: 'VNC quantities of the user’s pairs', body: vncsActualesBody } },
    async (req) => ({ success: true, vncs: await classic.vncs(currentUser(req).id, req.body.bots) }),
  );

  app.post(
    '/api/dcas_actuales',
    {
      ...auth,
      schema: { tags, summary: 'Average entry of each active classic DCA bot', body: dcasActualesBody },
    },
    async (req) => ({ success: true, dcas: await classic.dcas(currentUser(req).id, req.body.bots) }),
  );
};
