import {
  SIGNAL_LIMITS,
  SIGNAL_MESSAGES,
  signalCreateBody,
  signalIdParams,
  signalListQuery,
  signalStopBody,
} from '@bytx/contract';
import type { FastifyError, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { currentUser } from '../../../../plugins/auth';
import { requireRecentAuth } from '../../../accounts/reauth';
import type { KindPlugin } from '../../kind-plugin';
import { SignalRepository } from './repository';
import { convertSealedSecrets } from './secrets';
import { SignalService } from './service';
import { SignalWebhook } from './webhook';

const tags = ['bots'];

/** Webhook bodies as text, kept aside by the route's own parser (the handler parses and logs). */
const rawBodies = new WeakMap<FastifyRequest, string>();

const webhookParams = z.object({ id: z.string().max(100) });

/**
 * Signal bot (`/signalbot`, issue 15 §2): its calls (session, own bots only) and the webhook (no
 * session: the bot's secret in the body). The webhook route has its own body parser (any content
 * type as text, at most SIGNAL_LIMITS.bodyBytes) so that a malformed or over-large body is answered
 * and logged by us rather than refused before the bot is known. On start, signals recorded but not
 * yet executed are fed again (webhook.ts).
 */
export const signalRoutes: KindPlugin = async (app, { ctx, repo, runner, bots }) => {
  const signals = new SignalRepository(ctx.db);
  const webhook = new SignalWebhook(ctx, repo, signals, runner);
  const service = new SignalService(ctx, repo, signals, runner, bots, webhook);

  app.addHook('onReady', async () => {
    // Secrets still sealed (before migration 0830) become hashes before the first signal is read; the
    // webhook compares a sealed one as before until then.
    await convertSealedSecrets(ctx).catch((err: unknown) =>
      ctx.log.error({ err }, 'could not convert the sealed signal webhook secrets'),
    );
    // In the background, after the runner (started by the bots module's onReady) has been asked to
    // resume the bots: attaching is shared, so a bot is never attached twice.
    void webhook
      .refeedAll()
      .catch((err: unknown) => ctx.log.error({ err }, 'could not re-feed the accepted signals'));
  });
  app.addHook('onClose', async () => webhook.close());

  const auth = { onRequest: app.authenticate };

  app.post(
    '/api/signalbot/bots',
    {
      ...auth,
      schema: {
        tags,
        summary: 'Create a Signal bot (webhook URL, and the secret: answered this once)',
        body: signalCreateBody,
      },
    },
    async (req) => service.create(currentUser(req).id, req.body),
  );

  app.get(
    '/api/signalbot/bots',
    { ...auth, schema: { tags, summary: 'Signal bots of the user, active first' } },
    // From the read cache until a write to the user's bots or signals, or a tick of a pair it read the
    // price of (read-cache.ts): each answer was 4 PGlite queries and a price per active bot.
    async (req, reply) => {
      const userId = currentUser(req).id;
      return bots.reads.send(reply, userId, 'signalbot/bots', { prices: true }, async () => ({
        success: true,
        bots: await service.list(userId),
      }));
    },
  );

  app.post(
    '/api/signalbot/bots/:id/stop',
    {
      ...auth,
      schema: {
        tags,
        summary: 'Stop a Signal bot (keep_assets keeps the position, else it is sold at market)',
        params: signalIdParams,
        body: signalStopBody,
      },
    },
    async (req) => service.stop(currentUser(req).id, req.params.id, req.body.keep_assets),
  );

  // No call reads a secret back (it is stored as a hash). Rotating needs a login or a password
  // confirmation (POST /api/reauth) in the last 5 minutes: 403 `reauth_required` otherwise.
  app.post(
    '/api/signalbot/bots/:id/secret',
    {
      ...auth,
      preHandler: requireRecentAuth(ctx),
      schema: {
        tags,
        summary: "Rotate a Signal bot's webhook secret (the new one is answered this once)",
        params: signalIdParams,
      },
    },
    async (req) => ({
      success: true,
      secret: await service.rotateSecret(currentUser(req).id, req.params.id),
      message: SIGNAL_MESSAGES.secretRotated,
    }),
  );

  app.get(
    '/api/signalbot/bots/:id/signals',
    {
      ...auth,
      schema: {
        tags,
        summary: 'The signal log of a Signal bot, newest first, paged',
        params: signalIdParams,
        querystring: signalListQuery,
      },
    },
    // From the read cache until a write to the user's bots, their orders or signals (read-cache.ts): each
    // answer was 4-6 PGlite queries (the bot, the count, the page, the orders' journal rows).
    async (req, reply) => {
      const userId = currentUser(req).id;
      const { page, per_page: perPage } = req.query;
      const key = `signalbot/signals|${req.params.id}|${page}|${perPage}`;
      return bots.reads.send(reply, userId, key, {}, () => service.log(userId, req.params.id, page, perPage));
    },
  );

  // The webhook, in its own context: its body parser and error handler apply to it alone.
  await app.register(async (plain) => {
    const hook = plain.withTypeProvider<ZodTypeProvider>();
    hook.removeAllContentTypeParsers();
    hook.addContentTypeParser(
      '*',
      { parseAs: 'string', bodyLimit: SIGNAL_LIMITS.bodyBytes },
      (req, body, done) => {
        rawBodies.set(req, typeof body === 'string' ? body : body.toString('utf8'));
        done(null, undefined);
      },
    );
    hook.setErrorHandler(async (err: FastifyError, req, reply) => {
      if (err.code !== 'FST_ERR_CTP_BODY_TOO_LARGE') throw err;
      const { id } = (req.params ?? {}) as { id?: string };
      const answer = await webhook.receive({
        id: String(id ?? ''),
        raw: undefined,
        tooLarge: true,
        ip: req.ip,
      });
      if (answer.retryAfter !== undefined) reply.header('retry-after', String(answer.retryAfter));
      return reply.status(answer.statusCode).send(answer.body);
    });
    hook.post(
      '/api/signalbot/webhook/:id',
      {
        bodyLimit: SIGNAL_LIMITS.bodyBytes,
        schema: {
          tags,
          summary: 'Webhook of a Signal bot: {secret, action: buy|sell|close, symbol, amount?, id?}',
          params: webhookParams,
        },
      },
      async (req, reply) => {
        const answer = await webhook.receive({ id: req.params.id, raw: rawBodies.get(req), ip: req.ip });
        if (answer.retryAfter !== undefined) reply.header('retry-after', String(answer.retryAfter));
        return reply.status(answer.statusCode).send(answer.body);
      },
    );
  });
};
