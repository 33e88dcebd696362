import { useDeferredValue, type ReactNode } from 'react';
import { Navigate } from 'react-router';
import { useSession } from './session';

/**
 * Route guard (spec part 1 §2): while GET /api/me runs, the cached user is trusted; an absent user is
 * sent to `redirectTo` (/spot for protected routes, / for settings). A user who arrives while the
 * guard is on screen (the start-up check's answer) lets the page through in a deferred render, which
 * React does in slices, yielding to the browser, instead of inside the answer's own render, one long
 * task (issue 39: `/bot-dca`'s blocking time on a phone). A guard mounted with a user shows the page at
 * once, and a user who leaves is sent away at once.
 */
export function RequireAuth({
  children,
  redirectTo = '/spot',
}: {
  children: ReactNode;
  redirectTo?: string;
}) {
  const { user, checking } = useSession();
  const through = useDeferredValue(user !== null);
  if (!user && checking) return null;
  if (!user) return <Navigate to={redirectTo} replace />;
  if (!through) return null;
  return <>{children}</>;
}
