import { DISABLE_2FA_CODE_NEEDED, type MeUser } from '@bytx/contract';
import type { AppContext } from '../../context';
import { badRequest, forbidden, HttpError, tooManyRequests, unauthorized } from '../../lib/errors';
import { securityTemplates } from '../mail/account-security-templates';
import { Mailer, maskEmail } from '../mail/mailer';
import { mailLanguage, templates } from '../mail/templates';
import {
  CODE_SEND_WINDOW_MS,
  CODE_SENDS_PER_EMAIL,
  CodesRepository,
  newCode,
  type CodeCheck,
  type CodePurpose,
} from './codes.repository';
import {
  assertPasswordAllowed,
  burnPasswordCheck,
  hashPassword,
  needsRehash,
  verifyPassword,
} from './passwords';
import { LOGIN_BACKOFF_FREE_FAILURES, LoginBackoffRepository } from './login-backoff';
import { confirmedRecently, markReauthenticated } from './reauth';
import { canOpenLogoArea, canTrade, isSupportEmail } from './roles';
import { SessionsRepository, type SessionClient, type SessionUser } from './sessions.repository';
import { rotateSignalSecretsForUser } from '../bots/kinds/signal/secrets';
import { TwoFactorService } from './twofa.service';
import { UsersRepository } from './users.repository';

export const REGISTRATION_CLOSED_MESSAGE =
  'New registration is temporarily unavailable. The platform is in development.';
export const CODE_SENT_MESSAGE = 'If this email can be registered, a verification code has been sent to it.';
export const LOGIN_FAILED_MESSAGE = 'Invalid email or password.';
export const REAUTH_WRONG_PASSWORD_MESSAGE = 'The password is incorrect.';
export const TWOFA_CODE_NEEDED_MESSAGE =
  'Two-factor authentication is on: enter the 6-digit code from your authenticator app.';

/** 429 of the per-account backoff (login-backoff.ts), with Retry-After. */
const accountBackoff = (retryAfter: number) =>
  new HttpError(
    429,
    `Too many failed sign-in attempts for this account. Please try again in ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`,
    { retryAfter },
  );

const CODE_MESSAGES: Record<Exclude<CodeCheck, 'ok'>, string> = {
  missing: 'The verification code is invalid or has expired. Request a new code.',
  expired: 'The verification code has expired. Request a new code.',
  too_many_attempts: 'Too many wrong codes. Request a new code.',
  wrong: 'The verification code is incorrect.',
};

export type LoginResult =
  { success: true; token: string } | { success: true; requires2FA: true; tempToken: string; message: string };

/** Sign-up, login, password change, account deletion and the /api/me view (docs/accounts.md). */
export class AccountsService {
  readonly users: UsersRepository;
  readonly sessions: SessionsRepository;
  readonly codes: CodesRepository;
  readonly twofa: TwoFactorService;
  readonly mailer: Mailer;
  readonly backoff: LoginBackoffRepository;

  constructor(private readonly ctx: AppContext) {
    this.users = new UsersRepository(ctx.db);
    this.sessions = new SessionsRepository(ctx.db);
    // HMAC-SHA256('bytx/email-codes/v1') under the current master key, as before issue 37.
    this.codes = new CodesRepository(ctx.db, ctx.secretBox.deriveKey('bytx/email-codes/v1'));
    this.twofa = new TwoFactorService(ctx);
    this.mailer = new Mailer(ctx.config, ctx.log);
    this.backoff = new LoginBackoffRepository(ctx.db);
  }

  private audit(event: string, fields: Record<string, unknown> = {}) {
    this.ctx.log.info({ event: `account.${event}`, ...fields }, event);
  }

  private async assertSendAllowed(email: string, purpose: CodePurpose) {
    const since = new Date(Date.now() - CODE_SEND_WINDOW_MS);
    if ((await this.codes.sendsSince(email, purpose, since)) >= CODE_SENDS_PER_EMAIL) {
      this.audit('code_send_limited', { email: maskEmail(email), purpose });
      throw tooManyRequests(
        'Too many codes were requested for this email. Please wait an hour and try again.',
      );
    }
  }

  /**
   * Sign-up step 1. The answer is the same whether or not the email has an account (no account
   * enumeration); an existing account's owner gets a notice instead of a code.
   */
  async sendSignupCode(email: string, language: string | undefined, password?: string): Promise<void> {
    if (!this.ctx.config.REGISTRATION_OPEN) throw forbidden(REGISTRATION_CLOSED_MESSAGE);
    // The password of step 2, checked before a code is mailed (issue 37 point 18); never stored here.
    if (password !== undefined) assertPasswordAllowed(password, email);
    await this.assertSendAllowed(email, 'register');
    const existing = await this.users.byEmail(email);
    if (existing) {
      await this.codes.record(email, 'register', null, existing.id);
      await this.mailer.send(templates.signupExistingAccount(email, mailLanguage(existing.language)));
      this.audit('signup_code_existing', { userId: existing.id });
      return;
    }
    const code = newCode();
    await this.codes.record(email, 'register', code, null);
    await this.mailer.send(templates.signupCode(email, code, mailLanguage(language)));
    this.audit('signup_code_sent', { email: maskEmail(email) });
  }

  async register(email: string, password: string, codigo: string, language: string | undefined) {
    if (!this.ctx.config.REGISTRATION_OPEN) throw forbidden(REGISTRATION_CLOSED_MESSAGE);
    assertPasswordAllowed(password, email);
    const check = await this.codes.check(email, 'register', codigo, { consume: false });
    if (check.result !== 'ok' || !check.id) {
      this.audit('signup_code_refused', { email: maskEmail(email), reason: check.result });
      throw badRequest(CODE_MESSAGES[check.result === 'ok' ? 'missing' : check.result]);
    }
    const passwordHash = await hashPassword(password);
    if (!(await this.codes.consume(check.id))) throw badRequest(CODE_MESSAGES.missing);
    const user = await this.users.create(email, passwordHash, mailLanguage(language));
    // A code is only mailed for an email with no account, so this is a race between two sign-ups.
    if (!user) throw badRequest(CODE_MESSAGES.missing);
    this.audit('registered', { userId: user.id });
  }

  async login(email: string, password: string, client: SessionClient = {}): Promise<LoginResult> {
    // Counted before the password is checked (parallel guesses cannot pass a stale read); while the
    // email is blocked no password is checked at all, the right one included (login-backoff.ts).
    const reserved = await this.backoff.reserve(email);
    if (!reserved.ok) {
      this.audit('login_backoff', { email: maskEmail(email), retryAfter: reserved.retryAfterS });
      throw accountBackoff(reserved.retryAfterS);
    }
    const user = await this.users.byEmail(email);
    if (!user) {
      await burnPasswordCheck(password);
      this.audit('login_failed', { email: maskEmail(email), reason: 'unknown' });
      throw unauthorized(LOGIN_FAILED_MESSAGE);
    }
    // The 2FA flag is read while the password is checked (on the thread pool), not after it: one
    // database round trip less on the login's path. It is used only once the password is right.
    const twofaEnabled = this.twofa.isEnabled(user.id);
    twofaEnabled.catch(() => undefined); // A failed read surfaces below, where it is awaited.
    if (!(await verifyPassword(user.passwordHash, password))) {
      this.audit('login_failed', { userId: user.id, reason: 'password', failures: reserved.failures });
      if (reserved.failures >= LOGIN_BACKOFF_FREE_FAILURES) {
        await this.noticeFailures(user.email, reserved.failures, user.language);
      }
      throw unauthorized(LOGIN_FAILED_MESSAGE);
    }
    await this.backoff.succeeded(email);
    if (needsRehash(user.passwordHash)) await this.rehash(user.id, user.passwordHash, password);
    if (await twofaEnabled) {
      const tempToken = await this.sessions.create(user.id, 'pending_2fa', new Date(), client);
      this.audit('login_needs_2fa', { userId: user.id });
      return {
        success: true,
        requires2FA: true,
        tempToken,
        message: 'Enter the 6-digit code from your authenticator app.',
      };
    }
    const token = await this.sessions.create(user.id, 'session', new Date(), client);
    this.audit('login', { userId: user.id });
    return { success: true, token };
  }

  /** The owner is mailed about repeated failed logins once per window (login-backoff.ts); best effort. */
  private async noticeFailures(email: string, failures: number, language: string): Promise<void> {
    try {
      if (!(await this.backoff.claimNotice(email))) return;
      await this.mailer.send(securityTemplates.loginFailures(email, failures, mailLanguage(language)));
      this.audit('login_failures_notice', { email: maskEmail(email), failures });
    } catch (err) {
      this.ctx.log.warn({ err: (err as Error).message }, 'failed-login notice mail failed');
    }
  }

  /**
   * POST /api/reauth (reauth.ts): the password and, with 2FA on, a current code confirm the session's
   * user again. Wrong passwords count toward the account's login backoff, so a stolen session cannot
   * guess the password here without limit either.
   */
  async reauthenticate(user: SessionUser, password: string, code: string | undefined): Promise<void> {
    const has2FA = await this.twofa.isEnabled(user.id);
    if (has2FA && code === undefined) {
      throw badRequest(TWOFA_CODE_NEEDED_MESSAGE, { error_code: 'twofa_code_needed' });
    }
    const reserved = await this.backoff.reserve(user.email);
    if (!reserved.ok) throw accountBackoff(reserved.retryAfterS);
    const row = await this.users.byId(user.id);
    if (!row) throw unauthorized('Session expired or invalid. Please log in again.');
    if (!(await verifyPassword(row.passwordHash, password))) {
      this.audit('reauth_failed', { userId: user.id, failures: reserved.failures });
      if (reserved.failures >= LOGIN_BACKOFF_FREE_FAILURES) {
        await this.noticeFailures(row.email, reserved.failures, row.language);
      }
      throw badRequest(REAUTH_WRONG_PASSWORD_MESSAGE, { error_code: 'wrong_password' });
    }
    await this.backoff.succeeded(user.email);
    if (has2FA && code !== undefined) await this.twofa.verifyEnabled(user.id, code);
    await markReauthenticated(this.ctx.db, user.sessionId);
    this.audit('reauthenticated', { userId: user.id });
  }

  /** Turns 2FA on (settings) and ends every other session of the user, with a notice mail. */
  async enable2fa(user: SessionUser, code: string): Promise<void> {
    await this.twofa.enable(user.id, code);
    await this.afterTwofaChange(user, true);
  }

  /**
   * Turns 2FA off with a current code, or with none when the session confirmed the password and a
   * code through POST /api/reauth in the last 5 minutes (that reauth spent the code the user had;
   * asking for a second one would make them wait for the next 30 s step).
   */
  async disable2fa(user: SessionUser, code: string | undefined): Promise<void> {
    if (code !== undefined) await this.twofa.disable(user.id, code);
    else if (await confirmedRecently(this.ctx.db, user.sessionId)) await this.twofa.turnOff(user.id);
    else throw badRequest(DISABLE_2FA_CODE_NEEDED);
    await this.afterTwofaChange(user, false);
  }

  private async afterTwofaChange(user: SessionUser, enabled: boolean): Promise<void> {
    await this.sessions.revokeAllForUser(user.id, user.sessionId);
    this.audit(enabled ? '2fa_enabled' : '2fa_disabled', { userId: user.id, otherSessionsEnded: true });
    await this.mailer
      .send(securityTemplates.twofaChanged(user.email, enabled, mailLanguage(user.language)))
      .catch((err: unknown) => this.ctx.log.warn({ err: (err as Error).message }, 'notice mail failed'));
  }

  /**
   * A hash made with older parameters is rewritten with the current ones once its password has been
   * verified. Best effort: the login goes on if the write fails, and the next login tries again.
   */
  private async rehash(userId: string, oldHash: string, password: string): Promise<void> {
    try {
      if (await this.users.rehashPassword(userId, oldHash, await hashPassword(password))) {
        this.audit('password_rehashed', { userId });
      }
    } catch (err) {
      this.ctx.log.warn({ err, userId }, 'password rehash failed; the login goes on');
    }
  }

  /** Login step 2: the temporary token plus a TOTP code become a real session. */
  async completeLogin(pending: SessionUser, code: string, client: SessionClient = {}): Promise<string> {
    await this.twofa.verifyEnabled(pending.id, code);
    await this.sessions.revoke(pending.sessionId);
    const token = await this.sessions.create(pending.id, 'session', new Date(), client);
    this.audit('login', { userId: pending.id, with2FA: true });
    return token;
  }

  async logout(user: SessionUser): Promise<void> {
    await this.sessions.revoke(user.sessionId);
    this.audit('logout', { userId: user.id });
  }

  async me(user: SessionUser): Promise<MeUser> {
    return {
      id: user.id,
      email: user.email,
      // Cached (session-cache.ts): every page load asks /api/me; every 2FA write drops the flag.
      has2FA: await this.twofa.repo.isEnabledCached(user.id),
      language: mailLanguage(user.language),
      isSupport: isSupportEmail(this.ctx.config, user.email),
      canTrade: canTrade(this.ctx.config, user.email),
      canOpenLogoArea: canOpenLogoArea(this.ctx.config, user.email),
    };
  }

  async setLanguage(user: SessionUser, language: string): Promise<void> {
    await this.users.setLanguage(user.id, language);
    this.audit('language_set', { userId: user.id, language });
  }

  async sendPasswordChangeCode(user: SessionUser): Promise<void> {
    await this.assertSendAllowed(user.email, 'password_change');
    const code = newCode();
    await this.codes.record(user.email, 'password_change', code, user.id);
    await this.mailer.send(templates.passwordChangeCode(user.email, code, mailLanguage(user.language)));
    this.audit('password_code_sent', { userId: user.id });
  }

  /**
   * Needs the mailed code and, with 2FA on, a current TOTP code. Every check passes before anything
   * changes; then the password is replaced and every other session of the user is revoked.
   */
  async changePassword(
    user: SessionUser,
    newPassword: string,
    emailCode: string,
    twofaCode: string | null | undefined,
  ): Promise<void> {
    assertPasswordAllowed(newPassword, user.email);
    const has2FA = await this.twofa.isEnabled(user.id);
    const twofa = (twofaCode ?? '').replace(/\s+/g, '');
    if (has2FA && !/^\d{6}$/.test(twofa)) throw badRequest(TWOFA_CODE_NEEDED_MESSAGE);
    const check = await this.codes.check(user.email, 'password_change', emailCode, { consume: false });
    if (check.result !== 'ok' || !check.id) {
      this.audit('password_change_refused', { userId: user.id, reason: check.result });
      throw badRequest(CODE_MESSAGES[check.result === 'ok' ? 'missing' : check.result]);
    }
    if (has2FA) await this.twofa.verifyEnabled(user.id, twofa);
    const passwordHash = await hashPassword(newPassword);
    if (!(await this.codes.consume(check.id))) throw badRequest(CODE_MESSAGES.missing);
    await this.users.setPassword(user.id, passwordHash);
    await this.sessions.revokeAllForUser(user.id, user.sessionId);
    // Signal bots' webhook secrets are replaced too, with a notice (issue 37 point 9); never throws.
    await rotateSignalSecretsForUser(this.ctx, user);
    this.audit('password_changed', { userId: user.id });
    await this.mailer
      .send(templates.passwordChanged(user.email, mailLanguage(user.language)))
      .catch((err: unknown) => this.ctx.log.warn({ err: (err as Error).message }, 'notice mail failed'));
  }

  /**
   * Other modules' hooks run first (bots stopped, orders cancelled); a throwing hook aborts. Then the
   * user row goes in one transaction and every row that belongs to them cascades with it, sessions
   * included.
   */
  async deleteAccount(user: SessionUser): Promise<void> {
    for (const hook of this.ctx.hooks.beforeUserDelete) {
      try {
        await hook(user.id);
      } catch (err) {
        this.ctx.log.error({ err: (err as Error).message, userId: user.id }, 'account deletion hook failed');
        const message =
          err instanceof HttpError ? err.message : 'Your bots could not be stopped. Please try again.';
        throw new HttpError(err instanceof HttpError ? err.statusCode : 500, message);
      }
    }
    if (!(await this.users.delete(user.id)))
      throw unauthorized('Session expired or invalid. Please log in again.');
    this.audit('deleted', { userId: user.id });
    await this.mailer
      .send(templates.accountDeleted(user.email, mailLanguage(user.language)))
      .catch((err: unknown) => this.ctx.log.warn({ err: (err as Error).message }, 'notice mail failed'));
  }
}
