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
