import type { ReactNode } from 'react';
import { Navigate } from 'react-router';
import { useSession } from './session';

/**
 * Route guard (spec part 1 §2): while GET /api/me runs, the cached user is trusted; an absent user is
 * sent to `redirectTo` (/spot for protected routes, / for settings).
 */
export function RequireAuth({
  children,
  redirectTo = '/spot',
}: {
  children: ReactNode;
  redirectTo?: string;
}) {
  const { user, checking } = useSession();
  if (!user && checking) return null;
  if (!user) return <Navigate to={redirectTo} replace />;
  return <>{children}</>;
}
