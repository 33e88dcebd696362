import { z } from 'zod';
import { textField } from './common';

/**
 * The account calls of spec part 1 §7 (paths and field names as the spec writes them).
 * Bodies are checked loosely for shape here; the server gives the clear rule messages
 * (password length, common passwords, code format) itself.
 */

export const LANGUAGES = ['en', 'es'] as const;
export const languageSchema = z.enum(LANGUAGES);
export type Language = z.infer<typeof languageSchema>;

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

const email = textField('email')
  .trim()
  .toLowerCase()
  .max(254, 'email is too long')
  .pipe(z.email({ message: 'must be a valid email address' }));
/** Any string; the server applies the password rules with its own messages. */
const password = textField('password').max(1024, 'password is too long');
/** A 6-digit code (email code or TOTP); spaces are tolerated and removed. */
export const sixDigitCode = textField('code')
  .transform((s) => s.replace(/\s+/g, ''))
  .pipe(z.string().regex(/^\d{6}$/, 'must be 6 digits'));

/**
 * Sign-up step 1. `password` (optional, the spec sends only the email) is checked against the password
 * rules before any code is mailed, so a weak one is refused at once (issue 37 point 18); it is not stored.
 */
export const enviarCodigoBody = z.object({
  email,
  language: languageSchema.optional(),
  password: password.optional(),
});
export const enviarCodigoResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  registrationOpen: z.boolean(),
});

export const registroBody = z.object({
  email,
  password,
  codigo: sixDigitCode,
  language: languageSchema.optional(),
});
export const successMessageResponse = z.object({ success: z.literal(true), message: z.string() });

export const loginBody = z.object({
  email: textField('email').trim().toLowerCase().min(1).max(254),
  password,
});
export const loginResponse = z.union([
  z.object({ success: z.literal(true), token: z.string() }),
  z.object({
    success: z.literal(true),
    requires2FA: z.literal(true),
    tempToken: z.string(),
    message: z.string(),
  }),
]);

export const codeBody = z.object({ code: sixDigitCode });
/** disable_2fa: the spec sends no payload; a code is needed only while 2FA is on (docs/accounts.md). */
export const disable2faBody = z.object({ code: sixDigitCode.optional() });
export const DISABLE_2FA_CODE_NEEDED =
  'Enter the current 6-digit code from your authenticator app to turn off Two-Factor Authentication.';
export const verify2faResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  token: z.string().optional(),
});

export const meUser = z.object({
  id: z.string(),
  email: z.string(),
  has2FA: z.boolean(),
  language: languageSchema,
  isSupport: z.boolean(),
  /** Opens /spot and /futuros: a support account, or every user with TRADING_SCREENS=all. */
  canTrade: z.boolean(),
  canOpenLogoArea: z.boolean(),
});
export type MeUser = z.infer<typeof meUser>;
export const meResponse = z.object({ loggedIn: z.boolean(), user: meUser.nullable() });
export type MeResponse = z.infer<typeof meResponse>;

export const check2faResponse = z.object({ success: z.literal(true), has2FA: z.boolean() });
export const generate2faResponse = z.object({
  success: z.literal(true),
  /** PNG data URL of the otpauth URI. */
  qr: z.string(),
  /** Base32 key for manual entry. */
  secret: z.string(),
  otpauth_url: z.string(),
});
export type Generate2faResponse = z.infer<typeof generate2faResponse>;

export const cambiarPasswordBody = z.object({
  nueva_password: password,
  email_code: sixDigitCode,
  /** Required when 2FA is on; ignored otherwise. */
  twofa_code: z.string().max(20).optional().nullable(),
});

export const languageBody = z.object({ language: languageSchema });

export const publicConfigResponse = z.object({ registrationOpen: z.boolean() });
export type PublicConfig = z.infer<typeof publicConfigResponse>;

/** Body-less POST calls still accept `{}` or `{ user_id }` (checked against the session). */
export const emptyBody = z.object({ user_id: z.string().max(320).optional() }).optional();

/**
 * POST /api/reauth (issue 37 point 8; docs/accounts.md, "Re-authentication"): confirms the session's
 * user again — the password, and a current TOTP code when 2FA is on. For 5 minutes after it (or after
 * the login) the session may delete the account, turn 2FA on or off and rotate a webhook
 * secret; without it those calls answer 403 with `error_code: 'reauth_required'`.
 */
export const reauthBody = z.object({ password, code: sixDigitCode.optional() });
export const REAUTH_REQUIRED_CODE = 'reauth_required';

/** One open session of the user (GET /api/sessions). */
export const openSession = z.object({
  id: z.string(),
  /** ISO times */
  created_at: z.string(),
  last_seen_at: z.string(),
  /** The client address and user agent at login, when stored (sessions from before 2026-12 have none). */
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  /** The session making this call ("this device"). */
  current: z.boolean(),
});
export type OpenSession = z.infer<typeof openSession>;
export const sessionsResponse = z.object({ success: z.literal(true), sessions: z.array(openSession) });
export type SessionsResponse = z.infer<typeof sessionsResponse>;
/** POST /api/sessions/end-others: every other session of the user ends; `ended` says how many. */
export const endOtherSessionsResponse = z.object({ success: z.literal(true), ended: z.number().int() });
