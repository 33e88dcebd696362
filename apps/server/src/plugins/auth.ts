import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { SessionUser } from '../modules/accounts/sessions.repository';
import { SessionsRepository } from '../modules/accounts/sessions.repository';
import { forbidden, unauthorized } from '../lib/errors';
import type { AppContext } from '../context';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `app.authenticate`; the only source of identity (DESIGN.md principle 2). */
    user?: SessionUser;
  }
  interface FastifyInstance {
    /**
     * 401 unless a valid session bearer token is sent. Routes put it in `onRequest` (or `preHandler`,
     * which the auth plugin moves to `onRequest`), so a request with no session is refused before its
     * body is validated or even parsed.
     */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /** Every route registered, with whether it needs a session (tests walk it against the OpenAPI document). */
    routeTable: RouteEntry[];
  }
  interface FastifyContextConfig {
    /** Set by the auth plugin on every route that needs a session. */
    authenticated?: boolean;
  }
}

export const BEARER_SECURITY = [{ bearer: [] }];

export interface RouteEntry {
  method: string;
  url: string;
  authenticated: boolean;
}

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1] ?? null;
}

/** The logged-in user of a request that passed `app.authenticate`. */
export function currentUser(request: FastifyRequest): SessionUser {
  if (!request.user) throw unauthorized();
  return request.user;
}

/**
 * A `user_id` / `user` sent in a body or query is accepted for compatibility with the spec's calls,
 * but must name the session user (by email or id); anything else is refused with 403.
 * 'anonimo' is the spec's fallback identifier of a client that had no user loaded: treated as absent.
 */
export function assertSameUser(request: FastifyRequest, claimed: unknown): void {
  if (claimed === undefined || claimed === null || claimed === '' || claimed === 'anonimo') return;
  const user = currentUser(request);
  if (typeof claimed !== 'string' && typeof claimed !== 'number') throw forbidden('user_id must be a string');
  const value = String(claimed).trim().toLowerCase();
  if (value !== user.email.toLowerCase() && value !== user.id) {
    throw forbidden('user_id does not match the logged-in user');
  }
}

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

export const authPlugin = fp(async (app, opts: { ctx: AppContext }) => {
  // Resolves through the session cache of this database handle (modules/accounts/session-cache.ts):
  // a hit costs a hash and two Map operations instead of a join on the main thread (~1 ms of CPU);
  // the accounts repositories drop entries on every write that ends a session or changes its user.
  const repo = new SessionsRepository(opts.ctx.db);
  app.decorateRequest('user', undefined);
  const authenticate = async (request: FastifyRequest) => {
    const token = bearerToken(request);
    if (!token) throw unauthorized('Not logged in');
    const user = await repo.resolve(token, 'session');
    if (!user) throw unauthorized('Session expired or invalid. Please log in again.');
    request.user = user;
  };
  app.decorate('authenticate', authenticate);
  const routeTable: RouteEntry[] = [];
  app.decorate('routeTable', routeTable);

  // Every route that authenticates does it first (401 before any 400), and says so in the OpenAPI
  // document: one rule for all routes instead of one per route.
  app.addHook('onRoute', (route: RouteOptions) => {
    const isAuth = (h: unknown) => h === authenticate;
    const pre = asArray(route.preHandler);
    const onRequest = asArray(route.onRequest);
    const needsSession = pre.some(isAuth) || onRequest.some(isAuth);
    for (const method of asArray(route.method)) {
      routeTable.push({ method, url: route.url, authenticated: needsSession });
    }
    if (!needsSession) return;
    route.preHandler = pre.filter((h) => !isAuth(h));
    route.onRequest = [authenticate, ...onRequest.filter((h) => !isAuth(h))];
    route.schema = { ...route.schema, security: BEARER_SECURITY };
    route.config = { ...route.config, authenticated: true };
  });

  // The spec's calls carry user_id in query or body: checked for every authenticated call, on the
  // parsed values and before schema validation (a 403 names the problem, not the schema).
  // Callback style, as the other hooks every request runs: an async hook costs a promise and a turn of
  // the microtask queue per request (issue 18).
  app.addHook('preValidation', (request, _reply, done) => {
    if (!request.user) return done();
    try {
      for (const src of [request.query, request.body]) {
        if (src && typeof src === 'object' && !Array.isArray(src)) {
          const s = src as Record<string, unknown>;
          assertSameUser(request, s.user_id);
          assertSameUser(request, s.user);
        }
      }
    } catch (err) {
      return done(err as Error);
    }
    done();
  });
});
