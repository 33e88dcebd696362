import { translateServerMessage } from '../serverMessages/translate';

/** Local storage keys of spec part 1 §3. */
export const STORAGE = {
  token: 'token',
  user: 'user',
  orderType: 'orderType',
  tpSlValues: 'tpSlValues',
  lastPair: 'lastPair',
  lang: 'lang',
} as const;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ApiOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined | null>;
  /** Bearer token to send instead of the stored session token (the 2FA temporary token). */
  token?: string | null;
  signal?: AbortSignal;
}

export const getToken = () => localStorage.getItem(STORAGE.token);

/**
 * Calls our own server (browsers never call third parties). A non-2xx answer throws ApiError with
 * the server's message (`error` or `message`), which the spec's screens show as is.
 */
export async function api<T>(path: string, opts: ApiOptions = {}): Promise<T> {
  const url = new URL(path, window.location.origin);
  for (const [k, v] of Object.entries(opts.query ?? {})) {
    if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
  }
  const token = opts.token === undefined ? getToken() : opts.token;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(url, {
    method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: opts.signal,
  });
  return readAnswer<T>(res);
}

declare global {
  interface Window {
    /**
     * GET calls index.html's hints script made before the first script had downloaded (apps/web/
     * vite.config.ts `routeHints`), as `api` makes them, with the token stored then: by path.
     */
    __bytxEarly?: { token: string | null; answers: Record<string, Promise<Response> | undefined> };
  }
}

/**
 * The answer to GET `path` the hints script asked for, once, if it asked with `token` (the one stored
 * now); otherwise null, and the caller asks itself. Read it with `readAnswer`.
 */
export function takeEarlyAnswer(path: string, token: string | null): Promise<Response> | null {
  const early = typeof window === 'undefined' ? undefined : window.__bytxEarly;
  const answer = early?.answers[path];
  if (!early || !answer) return null;
  delete early.answers[path];
  return early.token === token ? answer : null;
}

/** An answer of our server as `api` returns it: its JSON body, or ApiError for a non-2xx status. */
export async function readAnswer<T>(res: Response): Promise<T> {
  const text = await res.text();
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  if (!res.ok) {
    const b = (body ?? {}) as { error?: unknown; message?: unknown };
    const message =
      typeof b.error === 'string'
        ? b.error
        : typeof b.message === 'string'
          ? b.message
          : `HTTP ${res.status}`;
    throw new ApiError(res.status, message, body);
  }
  return body as T;
}

/**
 * An error as the user reads it: a server refusal in the user's language (shared/serverMessages), any
 * other error's own message, or `fallback`.
 */
export const errorMessage = (err: unknown, fallback = 'Error') =>
  err instanceof Error && err.message ? translateServerMessage(err.message) : fallback;
