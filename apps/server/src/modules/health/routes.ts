import { healthResponse, readyResponse, type ReadyResponse } from '@bytx/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context';
import { APP_VERSION } from '../../version';
import { runners } from '../bots/routes';

/** How long `/api/ready` waits for the database's `SELECT 1` before it says the database is down (ms). */
export const READY_DB_TIMEOUT_MS = 2_000;

export const READY_MESSAGES = {
  database: 'The database is not answering.',
  runner: 'The bot runner has not finished reconciling its bots yet.',
} as const;

/**
 * Liveness and readiness (issue 45 point 4, issue 43's interface).
 *
 * `/api/health` is alive: the process serves. It is answered from memory, with no database round trip,
 * so it stays as fast as the cheapest call under load and says nothing a slow query could delay.
 * `/api/ready` is the one to wait on before sending work: 503 until the database answers a `SELECT 1`
 * (within READY_DB_TIMEOUT_MS) and this process's bot runner has done its first scan (every bot leased
 * then reconciled with its venue); with `BOT_RUNNER=0` only the database counts. Neither is ever shed.
 */
export const healthRoutes: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  const health = { ok: true as const, version: APP_VERSION, db: ctx.database.driver };
  app.get(
    '/api/health',
    {
      config: { shed: false },
      schema: {
        tags: ['platform'],
        summary: 'Liveness: the process serves (from memory, no database round trip)',
        response: { 200: healthResponse },
      },
    },
    async () => health,
  );

  // Callers at the same moment share one `SELECT 1` (a monitor polling hard costs one query at a time).
  let check: Promise<boolean> | null = null;
  const databaseAnswers = (): Promise<boolean> => {
    check ??= new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), READY_DB_TIMEOUT_MS);
      timer.unref();
      ctx.database.sql.query('SELECT 1').then(
        () => {
          clearTimeout(timer);
          resolve(true);
        },
        () => {
          clearTimeout(timer);
          resolve(false);
        },
      );
    }).finally(() => {
      check = null;
    });
    return check;
  };

  app.get(
    '/api/ready',
    {
      config: { shed: false },
      schema: {
        tags: ['platform'],
        summary:
          "Readiness: the database answers and this process's first reconcile is done (503 until then)",
        response: { 200: readyResponse, 503: readyResponse },
      },
    },
    async (_req, reply) => {
      const up = await databaseAnswers();
      const runner: ReadyResponse['runner'] = !ctx.config.BOT_RUNNER
        ? 'off'
        : runners.get(ctx)?.status.started
          ? 'reconciled'
          : 'starting';
      const body: ReadyResponse = {
        ok: up && runner !== 'starting',
        version: APP_VERSION,
        db: ctx.database.driver,
        database: up ? 'up' : 'down',
        runner,
      };
      if (body.ok) return body;
      const message = up ? READY_MESSAGES.runner : READY_MESSAGES.database;
      void reply.header('retry-after', '1');
      return reply.status(503).send({ ...body, error: message, message });
    },
  );
};
