import {
  PENDING_FETCH_SIZE,
  PENDING_MESSAGES,
  type DrawdownRecord,
  type PendingOrderView,
} from '@bytx/contract';
import { api } from '../../../shared/api/client';

/** The list's counts: open lots of active bots, sales of the last 7 days and their net PnL. */
export interface PendingSummary {
  open: number;
  completed: number;
  completed_pnl: number;
}

interface PendingListAnswer {
  success: boolean;
  orders?: PendingOrderView[];
  rows?: PendingOrderView[];
  page?: number;
  pages?: number;
  total?: number;
  summary?: Partial<PendingSummary>;
  error?: string;
}

/** The page loops over the list's pages, at most this many (200 a page: 10,000 orders). */
export const MAX_FETCH_PAGES = 50;
/** The drawdown refresh takes at most 5,000 ids a call (the contract's limit). */
const REFRESH_CHUNK = 5000;

export interface PendingList {
  orders: PendingOrderView[];
  summary: PendingSummary;
}

const summaryOf = (orders: PendingOrderView[], s: Partial<PendingSummary> | undefined): PendingSummary => {
  const completed = orders.filter((o) => o.status === 'completed');
  return {
    open: typeof s?.open === 'number' ? s.open : orders.length - completed.length,
    completed: typeof s?.completed === 'number' ? s.completed : completed.length,
    completed_pnl:
      typeof s?.completed_pnl === 'number'
        ? s.completed_pnl
        : completed.reduce((sum, o) => sum + (o.result ?? 0), 0),
  };
};

/** The calls of the global pending-orders page (spec part 2 §2, §7); the actions are shared. */
export const pendingApi = {
  /** Every pending order of the user (open and completed), 200 a call, looping over the pages. */
  listAll: async (user_id: string): Promise<PendingList> => {
    const byId = new Map<string, PendingOrderView>();
    let summary: Partial<PendingSummary> | undefined;
    let pages = 1;
    for (let page = 1; page <= Math.min(pages, MAX_FETCH_PAGES); page++) {
      const r = await api<PendingListAnswer>('/api/dca/pending_orders', {
        query: { user_id, page, per_page: PENDING_FETCH_SIZE, status: 'all' },
      });
      if (r.success === false) throw new Error(r.error ?? PENDING_MESSAGES.loadFailed);
      const rows = r.orders ?? r.rows ?? [];
      for (const o of rows) byId.set(o.id, o);
      if (page === 1) summary = r.summary;
      pages = typeof r.pages === 'number' && r.pages > 0 ? r.pages : 1;
      if (rows.length === 0) break;
    }
    const orders = [...byId.values()];
    return { orders, summary: summaryOf(orders, summary) };
  },
  refreshDrawdowns: (user_id: string, ids: string[]) =>
    api<{ success: boolean; by_id?: Record<string, DrawdownRecord>; error?: string }>(
      '/api/pending/drawdowns/refresh',
      { body: { user_id, ids } },
    ),
  drawdowns: (user_id: string) =>
    api<{ success: boolean; by_id?: Record<string, DrawdownRecord>; error?: string }>(
      '/api/pending/drawdowns',
      { query: { user_id } },
    ),
  /** Refreshes the drawdowns of the given orders, then reads every drawdown record of the user. */
  syncDrawdowns: async (user_id: string, ids: string[]): Promise<Record<string, DrawdownRecord>> => {
    for (let i = 0; i < ids.length; i += REFRESH_CHUNK) {
      const r = await pendingApi.refreshDrawdowns(user_id, ids.slice(i, i + REFRESH_CHUNK));
      if (r.success === false) throw new Error(r.error ?? 'Error');
    }
    const r = await pendingApi.drawdowns(user_id);
    if (r.success === false) throw new Error(r.error ?? 'Error');
    return r.by_id ?? {};
  },
};
