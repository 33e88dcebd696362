import { findUnsafeInput } from '@bytx/contract';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { badRequest } from '../lib/errors';
import { BodyMemo } from '../lib/memoized-body';

/**
 * One set of input rules for every route (DESIGN.md principle 3), applied before any schema or
 * handler runs:
 * - a body may be absent or empty (with or without a JSON Content-Type): it is read as `{}`;
 * - no string anywhere (body, query, path; keys too) carries a control character, no number is
 *   non-finite (`1e400` parses to Infinity), nothing is nested deeper than MAX_INPUT_DEPTH.
 *
 * Every API answer is `Cache-Control: no-store` (plugins/security-headers.ts). A route marked
 * `config: { memoizeBody: true }` has each distinct body parsed, checked and validated once
 * (lib/memoized-body.ts).
 */
export const inputPlugin = fp(async (app: FastifyInstance) => {
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  const memo = new BodyMemo();
  const memoized = new Set<string>();
  app.addHook('onRoute', (route) => {
    if (!route.config?.memoizeBody) return;
    memoized.add(route.url);
    route.validatorCompiler = memo.validator;
  });
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    // The route's path, without the query string the spec's calls may carry (`?user_id=`).
    const q = request.url.indexOf('?');
    if (memoized.has(q < 0 ? request.url : request.url.slice(0, q))) {
      memo.parse(text, (t, d) => void json(request, t, d), done);
      return;
    }
    void json(request, text, done);
  });
  // The checks of a remembered (frozen) body, by its identity: they read nothing else.
  const checked = new WeakMap<object, ReturnType<typeof findUnsafeInput>>();
  const unsafeBody = (body: unknown) => {
    if (typeof body !== 'object' || body === null || !Object.isFrozen(body))
      return findUnsafeInput(body, 'body');
    if (!checked.has(body)) checked.set(body, findUnsafeInput(body, 'body'));
    return checked.get(body)!;
  };

  // Callback style: every request runs it, and an async hook costs a promise and a microtask turn.
  app.addHook('preValidation', (request, _reply, done) => {
    // No body is the empty object: every schema then names its missing fields instead of refusing
    // 'null', and the spec's calls with no payload work however the client sends nothing.
    if (request.body === null || request.body === undefined) request.body = {};
    const found =
      findUnsafeInput(request.params, 'path') ??
      findUnsafeInput(request.query, 'query') ??
      unsafeBody(request.body);
    done(found ? badRequest(`Invalid request: ${found.message}`, { field: found.field }) : undefined);
  });
});
