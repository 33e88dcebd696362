import type { PendingOrderView } from '@bytx/contract';
import { api, ApiError } from '../api/client';

/**
 * The actions on one pending order (spec part 2 §2, §5, §7, §8), shared by the global pending-orders
 * page and the per-bot pending-orders dialog of both bot screens. Every call carries the user id.
 */
export const pendingActionsApi = {
  addFunds: (user_id: string, id: string, amount_quote: number) =>
    api<{ success: boolean; row?: PendingOrderView; error?: string }>('/api/dca/pending_orders/add_funds', {
      body: { user_id, id, amount_quote },
    }),
  sell: (user_id: string, id: string) =>
    api<{ success: boolean; row?: PendingOrderView; message?: string; error?: string }>(
      '/api/dca/pending_orders/sell',
      { body: { user_id, id } },
    ),
  /** 'deleted', or 'gone' when the server no longer knows the order (404: already deleted). */
  remove: async (user_id: string, id: string): Promise<'deleted' | 'gone'> => {
    try {
      const res = await api<{ success: boolean; message?: string; error?: string }>(
        `/api/dca/pending_orders/${encodeURIComponent(id)}`,
        { method: 'DELETE', query: { user_id } },
      );
      if (res && res.success === false) throw new Error(res.error ?? 'Error');
      return 'deleted';
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return 'gone';
      throw err;
    }
  },
  toggleAutoFund: (user_id: string, id: string, enabled: boolean) =>
    api<{ success: boolean; enabled?: boolean; error?: string }>('/api/pending/auto_fund/toggle', {
      body: { user_id, id, enabled },
    }),
};

/** Add funds: digits only, at most 4, above 0 (§5). The amount, or null when the text is not one. */
export function parseFundsAmount(raw: string): number | null {
  const text = raw.trim();
  if (!/^\d{1,4}$/.test(text)) return null;
  const n = Number(text);
  return n > 0 ? n : null;
}

/** Completed orders cannot be sold, funded or deleted; a busy one waits for its action in flight. */
export const canAct = (o: Pick<PendingOrderView, 'status' | 'busy'>) => o.status === 'open' && !o.busy;
