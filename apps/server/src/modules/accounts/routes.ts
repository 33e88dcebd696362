import {
  cambiarPasswordBody,
  check2faResponse,
  codeBody,
  disable2faBody,
  emptyBody,
  endOtherSessionsResponse,
  enviarCodigoBody,
  enviarCodigoResponse,
  generate2faResponse,
  languageBody,
  loginBody,
  loginResponse,
  meResponse,
  type MeResponse,
  publicConfigResponse,
  reauthBody,
  registroBody,
  sessionsResponse,
  successMessageResponse,
  verify2faResponse,
} from '@bytx/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context';
import { tableCache } from '../../db/table-cache';
import { HttpError, tooManyRequests, unauthorized } from '../../lib/errors';
import { serializeAs } from '../../lib/serialize';
import { bearerToken, currentUser } from '../../plugins/auth';
import { LOGIN_LANE } from '../../plugins/load-shedding';
import { AccountsService, CODE_SENT_MESSAGE } from './accounts.service';
import { addressKey, FailedLoginThrottle } from './login-throttle';
import { assertRecentAuth, requireRecentAuth } from './reauth';
import { SESSION_IDLE_MS, type OpenSession, type SessionClient } from './sessions.repository';

/** Window of LOGIN_FAILURES_PER_ADDRESS (failed logins from one address across all emails). */
const LOGIN_FAILURE_WINDOW_MS = 15 * 60_000;
/** How often old login-backoff rows and ended sessions are deleted (ms, 1 hour). */
const PURGE_EVERY_MS = 3600_000;

const TAGS = ['accounts'];
const bearer = [{ bearer: [] }];

/** Per-IP limits; code sends are also limited per email in the service (docs/accounts.md). */
const limits = {
  login: {
    max: 10,
    timeWindow: '5 minutes',
    hook: 'preValidation' as const,
    keyGenerator: (req: FastifyRequest) => {
      const email = (req.body as { email?: unknown } | undefined)?.email;
      // IPv6 counted per /64 (login-throttle.ts): one host usually holds a whole /64.
      return `${addressKey(req.ip)}|${typeof email === 'string' ? email.trim().toLowerCase() : ''}`;
    },
  },
  codeSend: { max: 20, timeWindow: '10 minutes' },
  codeCheck: { max: 30, timeWindow: '10 minutes' },
  twofa: { max: 20, timeWindow: '5 minutes' },
  reauth: { max: 20, timeWindow: '5 minutes' },
};

/** The client of a request, stored with the session it opens (the settings' session list). */
const clientOf = (request: FastifyRequest): SessionClient => {
  const ua = request.headers['user-agent'];
  return { ip: request.ip, userAgent: typeof ua === 'string' ? ua : undefined };
};

export const accountsRoutes: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  const service = new AccountsService(ctx);
  /**
   * GET /api/sessions' rows per user, kept until the next write to the sessions table (a login, a
   * logout, the once-a-minute last_seen_at) or a user's deletion (db/table-cache.ts), and until the
   * first of them expires or goes idle: the list read on every call was the whole of its cost.
   */
  /** The answers serialized, per kept list and session (a list dropped takes its answers with it). */
  const sessionBodies = new WeakMap<OpenSession[], Map<string, string>>();
  const openSessions = tableCache<OpenSession[]>(ctx, /\bsessions\b|\bdelete\s+from\s+"?users\b/i, {
    until: (rows) =>
      Math.min(...rows.map((r) => Math.min(r.expiresAt.getTime(), r.lastSeenAt.getTime() + SESSION_IDLE_MS))),
  });
  const failedLogins = new FailedLoginThrottle(
    ctx.config.LOGIN_FAILURES_PER_ADDRESS,
    LOGIN_FAILURE_WINDOW_MS,
  );
  // Backoff rows of emails with no failure for 24 hours, and ended sessions, are of no use: removed
  // hourly (a spray of unknown emails leaves one row each). Best effort; unref'd so it never holds the process.
  const purge = setInterval(() => {
    void Promise.all([service.backoff.purgeOld(), service.sessions.purgeExpired()]).catch((err: unknown) =>
      ctx.log.warn({ err: (err as Error).message }, 'accounts purge failed'),
    );
  }, PURGE_EVERY_MS);
  purge.unref();
  app.addHook('onClose', async () => clearInterval(purge));

  app.get(
    '/api/config',
    {
      schema: {
        tags: TAGS,
        summary: 'Public settings the app needs before login',
        response: { 200: publicConfigResponse },
      },
    },
    async () => ({ registrationOpen: ctx.config.REGISTRATION_OPEN }),
  );

  app.post(
    '/api/enviar_codigo',
    {
      config: { rateLimit: limits.codeSend },
      schema: {
        tags: TAGS,
        summary: 'Sign-up step 1: mail a 6-digit code (same answer whether or not the email has an account)',
        body: enviarCodigoBody,
        response: { 200: enviarCodigoResponse },
      },
    },
    async (request) => {
      await service.sendSignupCode(request.body.email, request.body.language, request.body.password);
      return { success: true as const, message: CODE_SENT_MESSAGE, registrationOpen: true };
    },
  );

  app.post(
    '/api/registro',
    {
      config: { rateLimit: limits.codeCheck },
      schema: {
        tags: TAGS,
        summary: 'Sign-up step 2: create the account with the mailed code',
        body: registroBody,
        response: { 200: successMessageResponse },
      },
    },
    async (request) => {
      const { email, password, codigo, language } = request.body;
      await service.register(email, password, codigo, language);
      return { success: true as const, message: 'Account created. You can sign in now.' };
    },
  );

  app.post(
    '/api/login',
    {
      config: { rateLimit: limits.login, shed: LOGIN_LANE },
      schema: {
        tags: TAGS,
        summary: 'Log in: a session token, or a temporary token for the 2FA step',
        body: loginBody,
        response: { 200: loginResponse },
      },
    },
    async (request, reply) => {
      const address = addressKey(request.ip);
      const wait = failedLogins.retryAfter(address);
      if (wait > 0) {
        reply.header('retry-after', String(wait));
        throw tooManyRequests(`Too many requests. Please try again in ${wait} seconds.`);
      }
      try {
        return await service.login(request.body.email, request.body.password, clientOf(request));
      } catch (err) {
        if (err instanceof HttpError && err.statusCode === 401) failedLogins.fail(address);
        throw err;
      }
    },
  );

  app.post(
    '/api/verify_2fa',
    {
      config: { rateLimit: limits.twofa },
      schema: {
        tags: TAGS,
        summary:
          'With the 2FA temporary token (login): answers the session token. With a session token (settings): turns 2FA on.',
        security: bearer,
        body: codeBody,
        response: { 200: verify2faResponse },
      },
    },
    async (request) => {
      const token = bearerToken(request);
      if (!token) throw unauthorized('Not logged in');
      const pending = await service.sessions.resolve(token, 'pending_2fa');
      if (pending) {
        const sessionToken = await service.completeLogin(pending, request.body.code, clientOf(request));
        return { success: true as const, message: 'Logged in', token: sessionToken };
      }
      const user = await service.sessions.resolve(token, 'session');
      if (!user) throw unauthorized('Session expired or invalid. Please log in again.');
      // Turning 2FA on needs a recent authentication (reauth.ts) and ends the other sessions.
      await assertRecentAuth(ctx.db, user.sessionId);
      await service.enable2fa(user, request.body.code);
      return {
        success: true as const,
        message: 'Two-Factor Authentication has been successfully activated.',
      };
    },
  );

  app.get(
    '/api/me',
    {
      config: { shed: false },
      schema: {
        tags: TAGS,
        summary: 'The session user (loggedIn false with no or an invalid token)',
        security: bearer,
        response: { 200: meResponse },
      },
    },
    async (request, reply) => {
      const token = bearerToken(request);
      const user = token ? await service.sessions.resolve(token, 'session') : null;
      const body: MeResponse = user
        ? { loggedIn: true, user: await service.me(user) }
        : { loggedIn: false, user: null };
      // Every page load and every dashboard asks this. The zod response encode was about a sixth of
      // its CPU (docs/performance.md); the body is built from its schema's own types (MeResponse, MeUser
      // with exactly its fields), so it is sent serialized as is.
      return (reply as FastifyReply).type('application/json; charset=utf-8').send(JSON.stringify(body));
    },
  );

  app.post(
    '/api/logout',
    {
      onRequest: app.authenticate,
      schema: { tags: TAGS, summary: 'Revoke this session', security: bearer, body: emptyBody },
    },
    async (request) => {
      await service.logout(currentUser(request));
      return { success: true };
    },
  );

  app.post(
    '/api/language',
    {
      onRequest: app.authenticate,
      schema: {
        tags: TAGS,
        summary: "Store the user's language (used for mails)",
        security: bearer,
        body: languageBody,
      },
    },
    async (request) => {
      await service.setLanguage(currentUser(request), request.body.language);
      return { success: true, language: request.body.language };
    },
  );

  app.get(
    '/api/check_2fa',
    {
      onRequest: app.authenticate,
      schema: { tags: TAGS, summary: 'Is 2FA on?', security: bearer, response: { 200: check2faResponse } },
    },
    async (request) => ({
      success: true as const,
      has2FA: await service.twofa.isEnabledShown(currentUser(request).id),
    }),
  );

  app.post(
    '/api/generate_2fa',
    {
      onRequest: app.authenticate,
      // Asked before the QR is shown, so the user confirms the password before scanning, not after.
      preHandler: requireRecentAuth(ctx),
      schema: {
        tags: TAGS,
        summary: 'A new TOTP secret (QR PNG data URL, base32 secret, otpauth URI), pending until verified',
        security: bearer,
        body: emptyBody,
        response: { 200: generate2faResponse },
      },
    },
    async (request) => {
      const user = currentUser(request);
      const g = await service.twofa.generate(user.id, user.email);
      ctx.log.info({ event: 'account.2fa_generated', userId: user.id }, '2fa_generated');
      return { success: true as const, qr: g.qr, secret: g.secret, otpauth_url: g.otpauthUrl };
    },
  );

  app.post(
    '/api/disable_2fa',
    {
      onRequest: app.authenticate,
      preHandler: requireRecentAuth(ctx),
      config: { rateLimit: limits.twofa },
      schema: {
        tags: TAGS,
        summary:
          'Turn 2FA off (needs a recent authentication, and a current code unless POST /api/reauth checked one in the last 5 minutes; without 2FA nothing to do)',
        security: bearer,
        body: disable2faBody,
        response: { 200: successMessageResponse },
      },
    },
    async (request) => {
      const user = currentUser(request);
      if (!(await service.twofa.isEnabled(user.id))) {
        return { success: true as const, message: 'Two-Factor Authentication is already off.' };
      }
      // Without a code only right after a POST /api/reauth that checked one (accounts.service.ts).
      await service.disable2fa(user, request.body.code);
      return { success: true as const, message: 'Two-Factor Authentication disabled.' };
    },
  );

  app.post(
    '/api/enviar_codigo_cambio_password',
    {
      onRequest: app.authenticate,
      config: { rateLimit: limits.codeSend },
      schema: {
        tags: TAGS,
        summary: 'Mail a 6-digit code for a password change',
        security: bearer,
        body: emptyBody,
        response: { 200: successMessageResponse },
      },
    },
    async (request) => {
      await service.sendPasswordChangeCode(currentUser(request));
      return { success: true as const, message: 'Verification code sent to your email' };
    },
  );

  app.post(
    '/api/cambiar_password',
    {
      onRequest: app.authenticate,
      config: { rateLimit: limits.codeCheck },
      schema: {
        tags: TAGS,
        summary: 'Change the password (mailed code, and a TOTP code when 2FA is on); other sessions end',
        security: bearer,
        body: cambiarPasswordBody,
        response: { 200: successMessageResponse },
      },
    },
    async (request) => {
      const { nueva_password, email_code, twofa_code } = request.body;
      await service.changePassword(currentUser(request), nueva_password, email_code, twofa_code);
      return { success: true as const, message: 'Your password has been changed successfully' };
    },
  );

  app.delete(
    '/api/delete_account',
    {
      onRequest: app.authenticate,
      preHandler: requireRecentAuth(ctx),
      schema: {
        tags: TAGS,
        summary:
          'Delete the account and everything that belongs to it (needs a recent authentication: login or POST /api/reauth in the last 5 minutes)',
        security: bearer,
        response: { 200: successMessageResponse },
      },
    },
    async (request) => {
      await service.deleteAccount(currentUser(request));
      return { success: true as const, message: 'Your account has been deleted.' };
    },
  );

  app.post(
    '/api/reauth',
    {
      onRequest: app.authenticate,
      config: { rateLimit: limits.reauth },
      schema: {
        tags: TAGS,
        summary:
          'Confirm the password (and a TOTP code when 2FA is on): for 5 minutes the session may delete the account, turn 2FA on or off and reveal or rotate a webhook secret',
        security: bearer,
        body: reauthBody,
        response: { 200: successMessageResponse },
      },
    },
    async (request) => {
      await service.reauthenticate(currentUser(request), request.body.password, request.body.code);
      return { success: true as const, message: 'Password confirmed.' };
    },
  );

  app.get(
    '/api/sessions',
    {
      onRequest: app.authenticate,
      schema: {
        tags: TAGS,
        summary: "The user's open sessions (created, last seen, address and user agent at login, this one)",
        security: bearer,
        response: { 200: sessionsResponse },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      const rows = await openSessions.get(user.id, () => service.sessions.listForUser(user.id));
      // Serialized once per kept list and session (the schema's encode was most of a call's cost).
      let bySession = sessionBodies.get(rows);
      if (!bySession) sessionBodies.set(rows, (bySession = new Map<string, string>()));
      let body = bySession.get(user.sessionId);
      if (body === undefined) {
        body = serializeAs(sessionsResponse, {
          success: true as const,
          sessions: rows.map((r) => ({
            id: r.id,
            created_at: r.createdAt.toISOString(),
            last_seen_at: r.lastSeenAt.toISOString(),
            ip: r.ip,
            user_agent: r.userAgent,
            current: r.id === user.sessionId,
          })),
        });
        bySession.set(user.sessionId, body);
      }
      return (reply as FastifyReply).type('application/json; charset=utf-8').send(body);
    },
  );

  app.post(
    '/api/sessions/end-others',
    {
      onRequest: app.authenticate,
      schema: {
        tags: TAGS,
        summary: 'End every other session of the user (this one stays)',
        security: bearer,
        body: emptyBody,
        response: { 200: endOtherSessionsResponse },
      },
    },
    async (request) => {
      const user = currentUser(request);
      const ended = await service.sessions.revokeAllForUser(user.id, user.sessionId);
      ctx.log.info({ event: 'account.sessions_ended', userId: user.id, ended }, 'sessions_ended');
      return { success: true as const, ended };
    },
  );
};
