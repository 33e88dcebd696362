export type PageButton = number | 'gap-high' | 'gap-low';

/**
 * The page buttons, numbered descending (spec part 1 §9: the highest page number first; page 1 holds
 * the newest posts). Up to 9 pages every number is shown; beyond that the highest, the lowest and the
 * two either side of the current page, with gaps between.
 */
export function pageButtons(pages: number, current: number): PageButton[] {
  const total = Math.max(1, Math.floor(pages));
  if (total <= 9) return Array.from({ length: total }, (_, i) => total - i);
  const keep = new Set<number>([total, 1]);
  for (let p = current - 2; p <= current + 2; p++) if (p >= 1 && p <= total) keep.add(p);
  const sorted = [...keep].sort((a, b) => b - a);
  const out: PageButton[] = [];
  sorted.forEach((p, i) => {
    const prev = sorted[i - 1];
    if (prev !== undefined && prev - p > 1) out.push(out.includes('gap-high') ? 'gap-low' : 'gap-high');
    out.push(p);
  });
  return out;
}
