import type { PlanId, PlansResponse } from '@bytx/contract';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../shared/api/client';
import { userIdOf, useSession } from '../../../shared/session/session';

export type { PlanId, PlansResponse };

export const planKeys = { plans: (user: string) => ['settings', 'plans', user] as const };

/**
 * GET /api/plans: prices, this user's payment reference, the active plan and the payments waiting
 * for confirmations; asked again every 2 s while one waits (or while `watching`, right after a
 * payment until the server has seen it).
 */
export function usePlans(watching: boolean) {
  const { user } = useSession();
  return useQuery({
    queryKey: planKeys.plans(userIdOf(user)),
    queryFn: () => api<PlansResponse>('/api/plans'),
    enabled: !!user,
    retry: false,
    refetchInterval: (q) => (watching || (q.state.data?.pending.length ?? 0) > 0 ? 2_000 : false),
  });
}
