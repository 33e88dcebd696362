import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, ApiError, readAnswer, STORAGE, takeEarlyAnswer } from '../api/client';

export interface SessionUser {
  id: string;
  email: string;
  has2FA?: boolean;
  isSupport?: boolean;
  /** Opens /spot and /futuros (a support account, or everyone with TRADING_SCREENS=all). */
  canTrade?: boolean;
  canOpenLogoArea?: boolean;
  language?: string;
  [key: string]: unknown;
}

interface MeResponse {
  loggedIn: boolean;
  user?: SessionUser | null;
}

export interface Session {
  user: SessionUser | null;
  /** True while the stored token is being verified with GET /api/me. */
  checking: boolean;
  /** Stores a token, loads its user and returns it (null when the server refuses it). */
  signIn: (token: string) => Promise<SessionUser | null>;
  /** Clears token and user (and tells the server when a session exists). */
  logout: () => Promise<void>;
  refresh: () => Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

function readCachedUser(): SessionUser | null {
  try {
    const raw = localStorage.getItem(STORAGE.user);
    return raw ? (JSON.parse(raw) as SessionUser) : null;
  } catch {
    return null;
  }
}

function cacheUser(user: SessionUser | null) {
  if (user) localStorage.setItem(STORAGE.user, JSON.stringify(user));
  else localStorage.removeItem(STORAGE.user);
}

/**
 * GET /api/me asked for at start-up (`prefetchSession`, main.tsx), before React's first render: the
 * provider's first check takes it instead of asking again after that render (issue 39: a logged-in
 * page waits for it).
 */
let earlyMe: Promise<MeResponse> | null = null;
/** What the first check's answer waits for besides it (the URL's page, preloaded by main.tsx). */
let earlyAfter: Promise<unknown> | null = null;

/**
 * Starts the session check now when a token is stored; the provider's first check uses its answer,
 * applied once `after` (the URL's page download) has settled too: the guard then lets a page through
 * that renders at once. A page that suspended instead would show the loader first, and React holds a
 * Suspense boundary's content back until 300 ms after its fallback showed.
 */
export function prefetchSession(after: Promise<unknown> | null = null): void {
  const token = localStorage.getItem(STORAGE.token);
  if (!token) return;
  // Asked for already by index.html's hints script, with this token, when the page opened.
  const asked = takeEarlyAnswer('/api/me', token);
  earlyMe = asked ? asked.then((res) => readAnswer<MeResponse>(res)) : api<MeResponse>('/api/me');
  earlyAfter = after;
  // Handled by the check that takes it; this only keeps an early failure from being "unhandled".
  earlyMe.catch(() => undefined);
}

/** The identifier the spec's bot calls carry: the email, else the id, else 'anonimo'. */
export const userIdOf = (user: Pick<SessionUser, 'email' | 'id'> | null | undefined) =>
  user?.email || user?.id || 'anonimo';

/**
 * The session state machine of spec part 1 §4: the cached user is shown at once; with no stored
 * token the user is cleared; otherwise GET /api/me decides (loggedIn false clears both); a network
 * failure is logged and the cached user stays; then checking ends.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<SessionUser | null>(() => readCachedUser());
  const [checking, setChecking] = useState(true);

  const verify = useCallback(async (): Promise<SessionUser | null> => {
    const token = localStorage.getItem(STORAGE.token);
    // The start-up request, once, and only for the check that follows it (the token it was sent with).
    const early = earlyMe;
    const after = earlyAfter;
    earlyMe = null;
    earlyAfter = null;
    if (!token) {
      setUser(null);
      cacheUser(null);
      return null;
    }
    try {
      const me = await (early ?? api<MeResponse>('/api/me'));
      if (after) await after.catch(() => undefined);
      if (me.loggedIn && me.user) {
        setUser(me.user);
        cacheUser(me.user);
        return me.user;
      }
      setUser(null);
      cacheUser(null);
      localStorage.removeItem(STORAGE.token);
      return null;
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) {
        // An invalid token clears the stored login.
        setUser(null);
        cacheUser(null);
        localStorage.removeItem(STORAGE.token);
        return null;
      }
      console.error('Failed to verify session', err);
      return readCachedUser();
    }
  }, []);

  useEffect(() => {
    let live = true;
    void verify().finally(() => {
      if (live) setChecking(false);
    });
    return () => {
      live = false;
    };
  }, [verify]);

  const signIn = useCallback(
    async (token: string) => {
      localStorage.setItem(STORAGE.token, token);
      return verify();
    },
    [verify],
  );

  const logout = useCallback(async () => {
    const token = localStorage.getItem(STORAGE.token);
    localStorage.removeItem(STORAGE.token);
    cacheUser(null);
    setUser(null);
    if (token) {
      await api('/api/logout', { method: 'POST', body: {}, token }).catch(() => undefined);
    }
  }, []);

  const refresh = useCallback(async () => {
    await verify();
  }, [verify]);

  const value = useMemo(
    () => ({ user, checking, signIn, logout, refresh }),
    [user, checking, signIn, logout, refresh],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const ctx = useContext(SessionContext);
  if (!ctx) throw new Error('useSession outside SessionProvider');
  return ctx;
}
