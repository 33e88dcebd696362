import type { MouseEvent } from 'react';
import type { SessionUser } from '../../shared/session/session';

/** Links that need login (spec part 1 §2): Bots, Staking, Loans, Settings. */
export const GATED_PATHS = ['/bot-dca', '/earnings-pools', '/LoansLiquidity', '/settings'] as const;
/** Links that open only for the support account; everyone else sees 'Platform in Development'. */
export const SUPPORT_PATHS = ['/spot', '/futuros', '/wallet'] as const;

export const LOGIN_TOAST_MS = 3000;

// Who may open the support-only and trading screens: shared, since the Spot and Futures pages ask it too.
export { canTrade, isSupport } from '../../shared/session/access';

/**
 * A login-gated link does nothing for an absent user and shows the 3-second toast. Returns true when
 * the navigation was stopped.
 */
export function stopIfLoggedOut(
  e: MouseEvent<HTMLElement>,
  user: SessionUser | null | undefined,
  message: string,
): boolean {
  if (user) return false;
  e.preventDefault();
  // Through import(): the toasts' package stays out of the first script (app/providers.tsx).
  void import('@mantine/notifications').then(({ notifications }) =>
    notifications.show({ message, color: 'yellow', autoClose: LOGIN_TOAST_MS }),
  );
  return true;
}
