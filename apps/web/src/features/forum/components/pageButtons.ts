export type PageButton = number | 'gap-high' | 'gap-low';

/**
 * The page buttons, numbered in reading order, 1 first (issue 40 point 7: they read "2 1" when the spec's
 * "numbered descending" was followed; page 1 still holds the newest posts). Up to 9 pages every number
 * is shown; beyond that the first, the last and the two either side of the current page, with gaps.
 */
export function pageButtons(pages: number, current: number): PageButton[] {
  const total = Math.max(1, Math.floor(pages));
  if (total <= 9) return Array.from({ length: total }, (_, i) => i + 1);
  const keep = new Set<number>([1, total]);
  for (let p = current - 2; p <= current + 2; p++) if (p >= 1 && p <= total) keep.add(p);
  const sorted = [...keep].sort((a, b) => a - b);
  const out: PageButton[] = [];
  sorted.forEach((p, i) => {
    const prev = sorted[i - 1];
    if (prev !== undefined && p - prev > 1) out.push(out.includes('gap-low') ? 'gap-high' : 'gap-low');
    out.push(p);
  });
  return out;
}

/** Posts per screen page: the server's pages of 50 (the spec's) are shown 10 at a time. */
export const VIEW_PAGE_SIZE = 10;

/** Which server page holds screen page `view`, and where in it that screen page starts. */
export function serverSlice(view: number, serverPageSize: number, viewSize = VIEW_PAGE_SIZE) {
  const first = (Math.max(1, Math.floor(view)) - 1) * viewSize;
  const size = Math.max(1, serverPageSize);
  return { page: Math.floor(first / size) + 1, offset: first % size };
}

/** Screen pages for `total` posts (at least 1). */
export const viewPages = (total: number, viewSize = VIEW_PAGE_SIZE) =>
  Math.max(1, Math.ceil(Math.max(0, total) / viewSize));
