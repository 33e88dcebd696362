import { generateSync } from 'otplib';
import { readLatestCode } from '../../../e2e/helpers/accounts';
import type { TestApp } from './helpers';

export const GOOD_PASSWORD = 'violet-harbor-73';

let ipCounter = 0;
/** A distinct client address, so per-IP limits of one test do not spill into another. */
export const nextIp = () => `10.1.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export async function post(t: TestApp, url: string, payload: unknown, token?: string, ip = nextIp()) {
  return t.app.inject({
    method: 'POST',
    url,
    payload: payload as Record<string, unknown>,
    headers: token ? bearer(token) : {},
    remoteAddress: ip,
  });
}

export async function signUp(t: TestApp, email: string, password = GOOD_PASSWORD): Promise<void> {
  const ip = nextIp();
  const sent = await post(t, '/api/enviar_codigo', { email }, undefined, ip);
  if (sent.statusCode !== 200) throw new Error(`enviar_codigo ${sent.statusCode} ${sent.body}`);
  const codigo = await readLatestCode(t.ctx.config.mailOutboxDir, email);
  const res = await post(t, '/api/registro', { email, password, codigo }, undefined, ip);
  if (res.statusCode !== 200) throw new Error(`registro ${res.statusCode} ${res.body}`);
}

export async function logIn(t: TestApp, email: string, password = GOOD_PASSWORD): Promise<string> {
  const res = await post(t, '/api/login', { email, password });
  const body = res.json<{ token?: string }>();
  if (res.statusCode !== 200 || !body.token) throw new Error(`login ${res.statusCode} ${res.body}`);
  return body.token;
}

/** The TOTP code of `secret` at `offsetSteps` steps from now (-1, 0 or +1 are accepted). */
export const totp = (secret: string, offsetSteps = 0) =>
  generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSteps * 30 });

export async function enable2fa(t: TestApp, token: string): Promise<string> {
  const gen = await post(t, '/api/generate_2fa', {}, token);
  const { secret } = gen.json<{ secret: string }>();
  const res = await post(t, '/api/verify_2fa', { code: totp(secret, -1) }, token);
  if (res.statusCode !== 200) throw new Error(`verify_2fa ${res.statusCode} ${res.body}`);
  return secret;
}

export const uniqueEmail = (tag = 'u') =>
  `${tag}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.com`;

/** Logs in a user with 2FA on: the password, then the code of `offsetSteps` (each step is accepted once). */
export async function logInWith2fa(
  t: TestApp,
  email: string,
  secret: string,
  offsetSteps = 0,
  password = GOOD_PASSWORD,
): Promise<string> {
  const first = await post(t, '/api/login', { email, password });
  const { tempToken } = first.json<{ tempToken?: string }>();
  if (first.statusCode !== 200 || !tempToken) throw new Error(`login ${first.statusCode} ${first.body}`);
  const res = await post(t, '/api/verify_2fa', { code: totp(secret, offsetSteps) }, tempToken);
  const { token } = res.json<{ token?: string }>();
  if (res.statusCode !== 200 || !token) throw new Error(`verify_2fa ${res.statusCode} ${res.body}`);
  return token;
}

/** Confirms the password (and a code when given) for the session: POST /api/reauth. */
export async function reauth(t: TestApp, token: string, password = GOOD_PASSWORD, code?: string) {
  return post(t, '/api/reauth', code === undefined ? { password } : { password, code }, token);
}

/** Makes a session's login and reauth older than the 5-minute window (issue 37 point 8). */
export async function ageSession(t: TestApp, minutes = 6): Promise<void> {
  await t.ctx.database.sql.query(
    `UPDATE sessions SET created_at = created_at - interval '${minutes} minutes', reauth_at = reauth_at - interval '${minutes} minutes'`,
  );
}
