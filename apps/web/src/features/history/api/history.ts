import {
  HISTORY_CSV_COLUMNS,
  HISTORY_MESSAGES,
  type AllHistoryResponse,
  type GlobalHistoryRow,
  type HistoryAggregates,
  type HistoryDeleteAllResponse,
  type HistoryDeleteResponse,
} from '@bytx/contract';
import { api } from '../../../shared/api/client';

/** The global history calls (spec part 2 §7; docs/bots/history.md). */
export const historyApi = {
  page: async (user_id: string, page: number, per_page: number) =>
    okOrThrow(await api<AllHistoryResponse>('/api/dca/all_history', { query: { user_id, page, per_page } })),
  /** Everything the panels and the chart show, computed by the server in one call (one row asked). */
  aggregates: async (user_id: string): Promise<HistoryAggregates> => {
    const r = okOrThrow(
      await api<AllHistoryResponse>('/api/dca/all_history', {
        query: { user_id, page: 1, per_page: 1, aggregates: 1 },
      }),
    );
    if (!r.aggregates) throw new Error(HISTORY_MESSAGES.loadFailed);
    return r.aggregates;
  },
  deleteOne: (user_id: string, id: number) =>
    api<HistoryDeleteResponse>(`/api/dca/history/${id}`, { method: 'DELETE', query: { user_id } }),
  deleteAll: (user_id: string) =>
    api<HistoryDeleteAllResponse>('/api/dca/history/delete_all', { method: 'DELETE', query: { user_id } }),
};

/** An answer with `success: false` is a failure with the server's text, else the spec's (§8). */
function okOrThrow<T extends { success: boolean; error?: string }>(r: T): T {
  if (!r.success) throw new Error(r.error || HISTORY_MESSAGES.loadFailed);
  return r;
}

/**
 * A USD price from the server: a finite number, or null when it has none. Anything else is the spec's
 * 'Precio inválido' (§8): logged, and the quote counts as unpriced (0).
 */
export function validPrice(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  try {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(HISTORY_MESSAGES.badPrice);
    return v;
  } catch (err) {
    console.error(err);
    return null;
  }
}

/** One CSV cell: quoted when it holds a comma, quote or line break; text that a spreadsheet would run is defused. */
function cell(v: string | number): string {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  const text = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The current page as CSV (spec §9 columns, in order), full precision, times in ISO 8601 UTC. */
export function historyCsv(rows: GlobalHistoryRow[]): string {
  const lines = [HISTORY_CSV_COLUMNS.join(',')];
  for (const r of rows) lines.push(HISTORY_CSV_COLUMNS.map((c) => cell(r[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** The export's file name names the page: historial-global-pagina-3.csv. */
export const csvFileName = (page: number) => `historial-global-pagina-${page}.csv`;

/** Starts the browser's download of `text` as `name`. */
export function downloadText(name: string, text: string, type = 'text/csv;charset=utf-8') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
