import type { Language, PublicConfig } from '@bytx/contract';
import { api, ApiError } from '../../../shared/api/client';

export type LoginAnswer = {
  success?: boolean;
  token?: string;
  requires2FA?: boolean;
  tempToken?: string;
  message?: string;
};

export const loginCall = (email: string, password: string) =>
  api<LoginAnswer>('/api/login', { method: 'POST', body: { email, password }, token: null });

/** Login step 2: the temporary token is the bearer (spec part 1 §7). */
export const verifyLogin2fa = (tempToken: string, code: string) =>
  api<{ success?: boolean; token?: string; message?: string }>('/api/verify_2fa', {
    method: 'POST',
    body: { code },
    token: tempToken,
  });

/** Step 1 sends the chosen password too: the server checks its rules before mailing a code. */
export const sendSignupCode = (email: string, language: Language, password?: string) =>
  api<{ success?: boolean; message?: string }>('/api/enviar_codigo', {
    method: 'POST',
    body: password === undefined ? { email, language } : { email, language, password },
    token: null,
  });

export const registerCall = (email: string, password: string, codigo: string, language: Language) =>
  api<{ success?: boolean; message?: string }>('/api/registro', {
    method: 'POST',
    body: { email, password, codigo, language },
    token: null,
  });

export const fetchPublicConfig = () => api<PublicConfig>('/api/config', { token: null });

/** Tells the server the UI language so mails come in it; failures do not matter to the user. */
export const storeLanguage = (language: Language) =>
  api('/api/language', { method: 'POST', body: { language } }).catch(() => undefined);

/** The server's own message of a refused call, or null (network failure, no message). */
export function serverMessage(err: unknown): string | null {
  if (!(err instanceof ApiError)) return null;
  const body = (err.body ?? {}) as { message?: unknown; error?: unknown };
  if (typeof body.message === 'string' && body.message) return body.message;
  if (typeof body.error === 'string' && body.error) return body.error;
  return null;
}
