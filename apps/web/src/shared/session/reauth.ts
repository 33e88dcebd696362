import { REAUTH_REQUIRED_CODE } from '@bytx/contract';
import { api, ApiError } from '../api/client';

/**
 * Re-authentication (docs/accounts.md, "Re-authentication"): calls that cannot be undone answer 403
 * with `error_code: 'reauth_required'` unless the session logged in or confirmed the password in the
 * last 5 minutes; the app then asks for the password (and a code with 2FA on) and retries.
 */
export const reauthCall = (password: string, code?: string) =>
  api<{ success: boolean; message?: string }>('/api/reauth', {
    method: 'POST',
    body: code === undefined ? { password } : { password, code },
  });

/** The `error_code` of a refused call's body, or null. */
export function errorCode(err: unknown): string | null {
  if (!(err instanceof ApiError)) return null;
  const code = (err.body as { error_code?: unknown } | undefined)?.error_code;
  return typeof code === 'string' ? code : null;
}

export const isReauthRequired = (err: unknown) =>
  err instanceof ApiError && err.status === 403 && errorCode(err) === REAUTH_REQUIRED_CODE;

/** The password rules the server names by `error_code` (translated under session.passwordRules). */
export const PASSWORD_RULE_CODES = [
  'password_length',
  'password_spaces',
  'password_common',
  'password_email',
] as const;
export type PasswordRuleCode = (typeof PASSWORD_RULE_CODES)[number];

export function passwordRule(err: unknown): PasswordRuleCode | null {
  const code = errorCode(err);
  return (PASSWORD_RULE_CODES as readonly string[]).includes(code ?? '') ? (code as PasswordRuleCode) : null;
}
