import { EXCHANGES } from '@bytx/contract';

export const fmtDate = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');
export const fmt = (n: number | null | undefined, d = 8) =>
  typeof n === 'number' && Number.isFinite(n) ? Number(n.toFixed(d)).toString() : '—';
export const pnlColor = (n: number) => (n >= 0 ? 'green' : 'red');

/** Decimal commas become dots (spec part 2 §5). */
export const commaToDot = (v: string) => v.replace(/,/g, '.');

/** Up to `max` page numbers around the current page (spec: at most 7 page buttons). */
export function pageWindow(page: number, pages: number, max = 7): number[] {
  const n = Math.min(max, pages);
  let start = Math.max(1, page - Math.floor(n / 2));
  start = Math.min(start, Math.max(1, pages - n + 1));
  return Array.from({ length: n }, (_, i) => start + i);
}

export const exchangeName = (key: string) => EXCHANGES.find((e) => e.key === key)?.name ?? key;

/** The spec's 0.5 % floor for Take Profit and Separation. */
export const pctOk = (v: string) => {
  const n = Number(commaToDot(v));
  return v.trim() !== '' && Number.isFinite(n) && n >= 0.5;
};
