import { healthResponse } from '@bytx/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context';
import { APP_VERSION } from '../../version';

export const healthRoutes: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/api/health',
    {
      config: { shed: false },
      schema: {
        tags: ['platform'],
        summary: 'Liveness and database kind',
        response: { 200: healthResponse },
      },
    },
    async () => {
      await ctx.database.sql.query('SELECT 1');
      return { ok: true as const, version: APP_VERSION, db: ctx.database.driver };
    },
  );
};
