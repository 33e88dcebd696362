import os from 'node:os';
import {
  apartadoBody,
  botEventsParams,
  botEventsQuery,
  botsActivosQuery,
  getLeverageQuery,
  historialQuery,
  minCostBody,
  pnlsActualesBody,
  setLeverageBody,
  userOnlyBody,
} from '@bytx/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { READ_ONLY } from '../../lib/read-only';
import { currentUser } from '../../plugins/auth';
import { BotsRepository } from './bots.repository';
import { BotsService } from './bots.service';
import { botKindModules, kindFigures, runnerKinds, type BotKindModule } from './kinds';
import { historyRoutes } from './history/routes';
import { pendingRoutes } from './pending/routes';
import { BotRunner } from './runner';
import { GroupCommitStore } from './runner/group-commit';
import { enforcePlansOnBotStarts } from '../chain/plans.service';
import { keyOf } from '../../lib/memoized-body';
import { keyCheckHandler } from './key-problems';

const tags = ['bots'];

/** The runner of each app (tests and benchmarks reach it through the app's context). */
export const runners = new WeakMap<AppContext, BotRunner>();

/**
 * What the bots module shares with the modules built on it, per app: the spot and futures screens'
 * orders (modules/trading) are bots of kind 'manual' run by this runner. Set when the bots module
 * registers, so those modules register after it (modules/index.ts).
 */
export const botsModuleOf = new WeakMap<
  AppContext,
  { repo: BotsRepository; runner: BotRunner; bots: BotsService }
>();

/**
 * The bots module (spec part 2 §7): one runner for every kind, the calls every kind shares, and each
 * kind's own routes (kinds/<kind>/, listed in kinds/index.ts). The runner trades leased bots when
 * BOT_RUNNER=1; an API-only process attaches a bot just for the user action it carries out.
 */
export const botsRoutes: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) =>
  botsModule(app, ctx, botKindModules);

/**
 * The bots module with the given kinds (the app passes kinds/index.ts's list; a test adds its own kind
 * module to it): the runner runs their strategies, their figures fill the shared lists, their routes
 * are registered.
 */
export async function botsModule(
  app: Parameters<FastifyPluginAsyncZod>[0],
  ctx: AppContext,
  kinds: readonly BotKindModule[],
): Promise<void> {
  const repo = new BotsRepository(ctx.db);
  enforcePlansOnBotStarts(ctx, repo);
  const runner = new BotRunner({
    // Runner writes made together share one transaction (group-commit.ts; each is acknowledged only
    // once committed, so the journal is still written before the venue is called).
    store: new GroupCommitStore(repo, ctx.db),
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
    // One process owns the embedded database, so its leases guard nothing: 10 min instead of 30 s
    // means a bot's row is rewritten every ~5 min rather than every heartbeat (docs/database.md).
    ...(ctx.database.driver === 'pglite' ? { leaseTtlMs: 10 * 60_000 } : {}),
    autoRun: ctx.config.BOT_RUNNER,
    kinds: runnerKinds(kinds),
  });
  const bots = new BotsService(ctx, repo, runner);
  // The calls below go to the service of their concern; the kinds get the whole BotsService.
  const { lifecycle, checks, settings, views } = bots;
  for (const [kind, figures] of kindFigures(kinds)) bots.kinds.set(kind, figures);
  // The read cache of the polled lists (read-cache.ts): only where this process is the database's only
  // writer (the embedded one); on PostgreSQL other processes write too and every call reads through.
  if (ctx.database.driver === 'pglite') {
    repo.reads.enable((ctx.db as unknown as { $client?: unknown }).$client, () => ctx.services.market);
    app.addHook('onClose', async () => repo.reads.close());
  }
  // First: bots cancel their orders while the user's venues are still open (exchanges closes them after).
  ctx.hooks.beforeUserDelete.unshift((userId) => lifecycle.stopAllForUser(userId));
  // Before a connection is removed or its venue replaced: its bots stop (cancel_only) on the open venue.
  ctx.hooks.beforeConnectionChange.push((userId, exchange) => lifecycle.stopForConnection(userId, exchange));
  // A live key re-checked (daily, on resume): its bots pause when it was revoked or can withdraw.
  ctx.hooks.afterKeyCheck?.push(keyCheckHandler(repo, runner, ctx.log));

  if (ctx.config.BOT_RUNNER) {
    app.addHook('onReady', async () => {
      void runner.start().catch((err: unknown) => ctx.log.error({ err }, 'bot runner failed to start'));
    });
  }
  app.addHook('onClose', async () => runner.close());
  runners.set(ctx, runner);
  botsModuleOf.set(ctx, { repo, runner, bots });

  if (ctx.config.SIMULATOR_CONTROL) {
    // Crash tests wait on it: the state they check is only settled once the runner has reconciled.
    app.get(
      '/api/dev/runner',
      {
        schema: {
          tags,
          summary:
            "The bot runner's progress: first scan done (every bot leased then reconciled), bots running and attaching (SIMULATOR_CONTROL=1 only)",
          response: {
            200: z.object({ started: z.boolean(), running: z.number().int(), attaching: z.number().int() }),
          },
        },
      },
      async () => runner.status,
    );
  }

  for (const kind of kinds) await app.register(kind.routes, { ctx, repo, runner, bots });
  await app.register(historyRoutes, { ctx, reads: repo.reads });
  await app.register(pendingRoutes, { ctx, repo, runner, bots });

  const auth = { onRequest: app.authenticate };

  app.get(
    '/api/historial',
    {
      ...auth,
      schema: {
        tags,
        summary: 'Closed bots of a kind (bot history modal; default the Grid Bot DCA)',
        querystring: historialQuery,
      },
    },
    // Answered from the read cache until a write to the user's bots (read-cache.ts).
    async (req, reply) => {
      const userId = currentUser(req).id;
      return bots.reads.send(reply, userId, `historial|${req.query.kind}`, {}, async () => ({
        success: true,
        historial: await views.closed(userId, req.query.kind),
      }));
    },
  );

  app.post(
    '/api/min_cost',
    { ...auth, schema: { ...READ_ONLY, tags, summary: 'Minimum order cost of a pair', body: minCostBody } },
    async (req) => checks.minCost(req.body.exchange, req.body.symbol),
  );

  app.get(
    '/api/bots/:id/events',
    {
      ...auth,
      schema: { tags, summary: "A bot's event log", params: botEventsParams, querystring: botEventsQuery },
    },
    // From the read cache until a write to the user's bots (an event is one): each answer read the bot's
    // row and up to 500 events, two PGlite queries on the main thread (docs/read-path.md).
    async (req, reply) => {
      const userId = currentUser(req).id;
      const { id } = req.params;
      const { limit } = req.query;
      return bots.reads.send(reply, userId, `events|${id}|${limit}`, {}, async () => ({
        success: true,
        events: await views.events(userId, id, limit),
      }));
    },
  );

  app.post(
    '/api/set_leverage',
    { ...auth, schema: { tags, summary: 'Leverage per exchange and symbol', body: setLeverageBody } },
    async (req) =>
      settings.setLeverage(currentUser(req).id, req.body.exchange, req.body.symbol, req.body.leverage),
  );

  app.get(
    '/api/set_leverage',
    {
      ...auth,
      schema: { tags, summary: 'The stored leverage of a pair (1 when none)', querystring: getLeverageQuery },
    },
    async (req) => settings.leverage(currentUser(req).id, req.query.exchange, req.query.symbol),
  );

  app.post(
    '/api/apartado_usuario',
    { ...auth, schema: { tags, summary: 'Save the market type (apartado)', body: apartadoBody } },
    async (req) => settings.setApartado(currentUser(req).id, req.body.apartado),
  );

  app.get(
    '/api/apartado_usuario',
    { ...auth, schema: { tags, summary: 'The saved market type', querystring: botsActivosQuery } },
    async (req) => ({ success: true, apartado: await settings.apartado(currentUser(req).id) }),
  );

  app.post(
    '/api/precios_actuales',
    {
      ...auth,
      schema: { ...READ_ONLY, tags, summary: 'Current prices of the active bots', body: userOnlyBody },
    },
    // Cached until a write to the user's bots or a tick of one of the pairs (read-cache.ts).
    async (req, reply) => {
      const userId = currentUser(req).id;
      return bots.reads.send(reply, userId, 'precios_actuales', { prices: true }, () => views.prices(userId));
    },
  );

  app.post(
    '/api/pnls_actuales',
    {
      ...auth,
      // Polled with the same body (every active bot's pair) every few seconds: validated once per body.
      config: { memoizeBody: true },
      schema: { ...READ_ONLY, tags, summary: 'Realized PnL per active bot', body: pnlsActualesBody },
    },
    // Cached per filter until a write to the user's bots, a tick of a pair read, or the next second (ttr).
    async (req, reply) => {
      const userId = currentUser(req).id;
      const key = `pnls_actuales|${keyOf(req.body.bots ?? null)}`;
      return bots.reads.send(reply, userId, key, { timed: true, prices: true }, () =>
        views.pnls(userId, req.body.bots),
      );
    },
  );

  app.post(
    '/api/reanudar_bots_activos',
    { ...auth, schema: { tags, summary: 'Resume every active bot of the user', body: userOnlyBody } },
    async (req) => lifecycle.resume(currentUser(req).id),
  );
}
