/**
 * Account helpers for browser and API tests: read mailed codes from the outbox, register and log in.
 *
 * The server writes every mail as an `.eml` file into its outbox folder before it answers the call
 * that sent it (docs/accounts.md), so a code is readable as soon as `/api/enviar_codigo` returns.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';

interface ParsedMail {
  file: string;
  mtimeMs: number;
  to: string;
  subject: string;
  text: string;
}

function unfoldHeaders(head: string): Map<string, string> {
  const headers = new Map<string, string>();
  const lines = head
    .replace(/\r\n/g, '\n')
    .replace(/\n[ \t]+/g, ' ')
    .split('\n');
  for (const line of lines) {
    const i = line.indexOf(':');
    if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  return headers;
}

function decodeBody(body: string, encoding: string | undefined): string {
  const enc = (encoding ?? '').toLowerCase();
  if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (enc === 'quoted-printable') {
    const joined = body.replace(/=\r?\n/g, '');
    const bytes: number[] = [];
    for (let i = 0; i < joined.length; i++) {
      const ch = joined[i];
      const hex = joined.slice(i + 1, i + 3);
      if (ch === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
        bytes.push(parseInt(hex, 16));
        i += 2;
      } else {
        bytes.push(...Buffer.from(ch ?? '', 'utf8'));
      }
    }
    return Buffer.from(bytes).toString('utf8');
  }
  return body;
}

/** The text of a MIME entity: its decoded body, or the text/plain parts of a multipart one. */
function textOf(entity: string): string {
  const split = entity.search(/\r?\n\r?\n/);
  const head = split < 0 ? entity : entity.slice(0, split);
  const body = split < 0 ? '' : entity.slice(split).replace(/^\r?\n\r?\n/, '');
  const headers = unfoldHeaders(head);
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    return body
      .split(`--${boundary}`)
      .slice(1)
      .filter((part) => !part.startsWith('--'))
      .map((part) => textOf(part.replace(/^\r?\n/, '')))
      .join('\n');
  }
  if (!/^text\/plain/i.test(type)) return '';
  return decodeBody(body, headers.get('content-transfer-encoding'));
}

/** RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`) as plain text. */
export function decodeHeader(value: string): string {
  return value
    .replace(/(\?=)\s+(=\?)/g, '$1$2')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_m, _charset: string, enc: string, text: string) =>
      enc.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeBody(text.replace(/_/g, ' '), 'quoted-printable'),
    );
}

function parseMail(file: string): ParsedMail {
  const raw = fs.readFileSync(file, 'utf8');
  const split = raw.search(/\r?\n\r?\n/);
  const headers = unfoldHeaders(split < 0 ? raw : raw.slice(0, split));
  return {
    file,
    mtimeMs: fs.statSync(file).mtimeMs,
    to: (headers.get('to') ?? '').toLowerCase(),
    subject: decodeHeader(headers.get('subject') ?? ''),
    text: textOf(raw),
  };
}

/** Every mail to `email` in the outbox, newest first. */
export function mailsTo(outboxDir: string, email: string): ParsedMail[] {
  if (!fs.existsSync(outboxDir)) return [];
  const want = email.trim().toLowerCase();
  return fs
    .readdirSync(outboxDir)
    .filter((f) => f.endsWith('.eml'))
    .map((f) => parseMail(path.join(outboxDir, f)))
    .filter((m) => m.to.includes(want))
    .sort((a, b) => b.mtimeMs - a.mtimeMs || b.file.localeCompare(a.file));
}

/**
 * The 6-digit code of the newest mail to `email` that carries one (waits up to `timeoutMs` for it).
 * File names start with a zero-padded timestamp and counter, so the newest file sorts last.
 */
export async function readLatestCode(outboxDir: string, email: string, timeoutMs = 5000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const mail of mailsTo(outboxDir, email)) {
      const code = /(?<!\d)(\d{6})(?!\d)/.exec(mail.text)?.[1];
      if (code) return code;
    }
    if (Date.now() > deadline) throw new Error(`no mail with a code to ${email} in ${outboxDir}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function postJson(url: string, body: unknown, token?: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`POST ${url} -> ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

/** Signs up through the API: asks for a code, reads it from the outbox, creates the account. */
export async function registerViaApi(
  baseUrl: string,
  outboxDir: string,
  email: string,
  password: string,
): Promise<void> {
  await postJson(`${baseUrl}/api/enviar_codigo`, { email });
  const codigo = await readLatestCode(outboxDir, email);
  const res = await postJson(`${baseUrl}/api/registro`, { email, password, codigo });
  if (res.success !== true) throw new Error(`registration failed: ${JSON.stringify(res)}`);
}

/** Logs in through the API and returns the session token (accounts without 2FA only). */
export async function loginViaApi(baseUrl: string, email: string, password: string): Promise<string> {
  const res = await postJson(`${baseUrl}/api/login`, { email, password });
  if (res.requires2FA) throw new Error(`${email} has 2FA on: loginViaApi cannot pass the code step`);
  if (res.success !== true || typeof res.token !== 'string') {
    throw new Error(`login failed: ${JSON.stringify(res)}`);
  }
  return res.token;
}

/** Logs in through the API, puts the token where the app keeps it (localStorage 'token') and reloads. */
export async function loginInBrowser(
  page: Page,
  baseUrl: string,
  email: string,
  password: string,
): Promise<string> {
  const token = await loginViaApi(baseUrl, email, password);
  if (!page.url().startsWith(baseUrl)) await page.goto(`${baseUrl}/`);
  await page.evaluate((t) => {
    const storage = (
      globalThis as unknown as {
        localStorage: { setItem(k: string, v: string): void; removeItem(k: string): void };
      }
    ).localStorage;
    storage.setItem('token', t);
    storage.removeItem('user');
  }, token);
  await page.reload();
  return token;
}
