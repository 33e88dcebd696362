import type { FastifyReply, FastifyRequest } from 'fastify';
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
    /** preHandler: 401 unless a valid session bearer token is sent. */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  }
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

export const authPlugin = fp(async (app, opts: { ctx: AppContext }) => {
  const repo = new SessionsRepository(opts.ctx.db);
  app.decorateRequest('user', undefined);
  app.decorate('authenticate', async (request: FastifyRequest) => {
    const token = bearerToken(request);
    if (!token) throw unauthorized('Not logged in');
    const user = await repo.resolve(token, 'session');
    if (!user) throw unauthorized('Session expired or invalid. Please log in again.');
    request.user = user;
    // Checked for every authenticated call: the spec's calls carry user_id in query or body.
    const q = request.query as Record<string, unknown> | undefined;
    const b = request.body as Record<string, unknown> | undefined;
    for (const src of [q, b]) {
      if (src && typeof src === 'object') {
        assertSameUser(request, src.user_id);
        assertSameUser(request, src.user);
      }
    }
  });
});
