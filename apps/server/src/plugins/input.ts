import { findUnsafeInput } from '@bytx/contract';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { badRequest } from '../lib/errors';

/**
 * One set of input rules for every route (DESIGN.md principle 3), applied before any schema or
 * handler runs:
 * - a body may be absent or empty (with or without a JSON Content-Type): it is read as `{}`;
 * - no string anywhere (body, query, path; keys too) carries a control character, no number is
 *   non-finite (`1e400` parses to Infinity), nothing is nested deeper than MAX_INPUT_DEPTH;
 * - every API answer is `Cache-Control: no-store` (most depend on the session; none should be kept).
 */
export const inputPlugin = fp(async (app: FastifyInstance) => {
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    void json(request, text, done);
  });

  app.addHook('preValidation', async (request) => {
    // No body is the empty object: every schema then names its missing fields instead of refusing
    // 'null', and the spec's calls with no payload work however the client sends nothing.
    if (request.body === null || request.body === undefined) request.body = {};
    const found =
      findUnsafeInput(request.params, 'path') ??
      findUnsafeInput(request.query, 'query') ??
      findUnsafeInput(request.body, 'body');
    if (found) throw badRequest(`Invalid request: ${found.message}`, { field: found.field });
  });

  app.addHook('onSend', async (request, reply) => {
    if (request.url.startsWith('/api/') && !reply.hasHeader('cache-control')) {
      reply.header('cache-control', 'no-store');
    }
  });
});
