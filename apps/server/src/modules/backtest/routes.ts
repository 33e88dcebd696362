import {
  BACKTEST_LIMITS,
  backtestGetQuery,
  backtestIdParams,
  backtestListQuery,
  backtestStartBody,
} from '@bytx/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context';
import { HttpError } from '../../lib/errors';
import { assertSameUser, currentUser } from '../../plugins/auth';
import { BotsRepository } from '../bots/bots.repository';
import { BacktestsRepository } from './repository';
import { BacktestService } from './service';

const tags = ['backtest'];

/** The backtest service of each app (tests reach it through the app's context: clock, candle store). */
export const backtestServices = new WeakMap<AppContext, BacktestService>();

/**
 * A JSON body of 600,000 inline candles is about 30 MB; a CSV at most 8 MB (a little more as JSON).
 * Only this route takes such bodies (the app's default is 256 KB).
 */
const BODY_LIMIT = 48 * 1024 * 1024;

/** The bytes of a start call's body, kept aside by its content-type parser (read in a worker). */
const rawBodies = new WeakMap<FastifyRequest, Buffer>();
/** The user's upload slot of a start call (admission.ts), freed once it is answered. */
const releases = new WeakMap<FastifyRequest, () => void>();
const NO_BODY = Buffer.from('{}');

/** Backtests (issue 19, docs/backtest.md): a start form's params over past candles, in a worker thread. */
export const backtestRoutes: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  const service = new BacktestService(ctx, new BacktestsRepository(ctx.db), new BotsRepository(ctx.db));
  backtestServices.set(ctx, service);
  // Reads kept in memory (read-cache.ts): only where this process is the database's only writer.
  if (ctx.database.driver === 'pglite') {
    service.reads.enable((ctx.db as unknown as { $client?: unknown }).$client);
  }
  app.addHook('onReady', async () => service.startup());
  app.addHook('onClose', async () => service.close());
  const auth = { onRequest: app.authenticate };

  /**
   * POST /api/backtest (issue 37 point 3, docs/backtest.md "Uploads"). Before a byte of the body is
   * read (onRequest, after the session): the user's rate limit (429) and their running backtest or
   * upload (409) — a refused upload costs a lookup, not a parse (node discards a body sent anyway).
   * Then the body is kept as bytes (this context's own JSON parser) and read in a worker (upload.ts):
   * the event loop never parses or checks the candles. The schema stays for the OpenAPI document; the
   * worker validates with it (the route's validator lets the placeholder body through).
   */
  const admit = async (req: FastifyRequest, reply: FastifyReply) => {
    const release = await service.admit(currentUser(req).id);
    releases.set(req, release);
    // Whichever comes first: the answer sent, or the connection closed.
    reply.raw.once('close', release);
  };
  await app.register(async (upload) => {
    upload.removeContentTypeParser('application/json');
    upload.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
      rawBodies.set(req, body as Buffer);
      done(null, {});
    });
    upload.addHook('onResponse', (req, _reply, done) => {
      releases.get(req)?.();
      done();
    });
    upload.post(
      '/api/backtest',
      {
        onRequest: [app.authenticate, admit],
        bodyLimit: BODY_LIMIT,
        validatorCompiler: () => (data: unknown) => ({ value: data }),
        schema: {
          tags,
          summary: `Backtest a start form's params over past candles (at most ${BACKTEST_LIMITS.maxCandles}); 202 with its id`,
          body: backtestStartBody,
        },
      },
      async (req, reply) => {
        const user = currentUser(req);
        // No JSON body: none at all reads as `{}`; another content type's parsed value (a text/plain
        // string) is checked as that value, as the schema did before.
        const bytes =
          rawBodies.get(req) ??
          (req.body === undefined || req.body === null ? NO_BODY : Buffer.from(JSON.stringify(req.body)));
        rawBodies.delete(req);
        const read = await service.readUpload(user.id, bytes);
        const answer = (e: { status: number; message: string; extra: Record<string, unknown> }) =>
          new HttpError(e.status, e.message, e.extra);
        // The order of the app's own checks: input rules, then user_id (403), then the schema.
        if (read.stage === 'input') throw answer(read.error);
        assertSameUser(req, read.identity.user_id);
        assertSameUser(req, read.identity.user);
        if (read.schemaError) throw answer(read.schemaError);
        if (!read.body) throw new Error('the upload has no body');
        const { id } = await service.start(user.id, read.body, read);
        return reply.code(202).send({ success: true, id });
      },
    );
  });

  app.get(
    '/api/backtest',
    {
      ...auth,
      schema: { tags, summary: 'The user’s recent backtests (kept 24 h)', querystring: backtestListQuery },
    },
    async (req, reply) =>
      reply
        .type('application/json; charset=utf-8')
        .send(await service.listBody(currentUser(req).id, req.query.limit)),
  );

  app.get(
    '/api/backtest/:id',
    {
      ...auth,
      schema: {
        tags,
        summary: 'A backtest: status and progress while it runs, the result once done',
        params: backtestIdParams,
        querystring: backtestGetQuery,
      },
    },
    async (req, reply) =>
      reply
        .type('application/json; charset=utf-8')
        .send(await service.getBody(currentUser(req).id, req.params.id)),
  );

  app.delete(
    '/api/backtest/:id',
    {
      ...auth,
      schema: {
        tags,
        summary: 'Cancel a running backtest, or delete a finished one',
        params: backtestIdParams,
        querystring: backtestGetQuery,
      },
    },
    async (req) => service.remove(currentUser(req).id, req.params.id),
  );
};
