import type { Generate2faResponse, SessionsResponse } from '@bytx/contract';
import { api, ApiError } from '../../../shared/api/client';

export const check2fa = () => api<{ success: boolean; has2FA: boolean }>('/api/check_2fa');
export const generate2fa = () => api<Generate2faResponse>('/api/generate_2fa', { method: 'POST', body: {} });
export const enable2fa = (code: string) =>
  api<{ success: boolean; message?: string }>('/api/verify_2fa', { method: 'POST', body: { code } });
/** Without a code only right after a password-and-code confirmation (/api/reauth), which spent it. */
export const disable2fa = (code?: string) =>
  api<{ success: boolean }>('/api/disable_2fa', {
    method: 'POST',
    body: code === undefined ? {} : { code },
  });
export const listSessions = () => api<SessionsResponse>('/api/sessions');
export const endOtherSessions = () =>
  api<{ success: boolean; ended: number }>('/api/sessions/end-others', { method: 'POST', body: {} });
export const sendPasswordCode = () =>
  api<{ success: boolean }>('/api/enviar_codigo_cambio_password', { method: 'POST', body: {} });
export const changePassword = (nueva_password: string, email_code: string, twofa_code: string) =>
  api<{ success: boolean; error?: string }>('/api/cambiar_password', {
    method: 'POST',
    body: { nueva_password, email_code, twofa_code },
  });
export const deleteAccount = () =>
  api<{ success: boolean; error?: string }>('/api/delete_account', { method: 'DELETE' });
export const storeLanguage = (language: 'en' | 'es') =>
  api('/api/language', { method: 'POST', body: { language } }).catch(() => undefined);

/** The server's own message of a refused call, or null (network failure, no message). */
export function serverError(err: unknown): string | null {
  if (!(err instanceof ApiError)) return null;
  const body = (err.body ?? {}) as { message?: unknown; error?: unknown };
  if (typeof body.error === 'string' && body.error) return body.error;
  if (typeof body.message === 'string' && body.message) return body.message;
  return null;
}
