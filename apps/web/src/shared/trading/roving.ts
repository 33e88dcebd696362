import type { KeyboardEvent } from 'react';

const KEYS = new Set(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End']);

/**
 * Arrow-key focus inside a long list, so that it is one tab stop (the item with tabIndex 0) instead
 * of dozens: the items are the container's `[data-roving]` elements, laid out in rows of `cols`
 * (the pair list: star, pair; the order book: one per row). Up / Down move by row, Left / Right
 * within a row, Home / End to the first / last row.
 */
export function rovingKeyDown(e: KeyboardEvent<HTMLElement>, cols = 1) {
  if (!KEYS.has(e.key)) return;
  const items = Array.from(e.currentTarget.querySelectorAll<HTMLElement>('[data-roving]'));
  const i = items.indexOf(document.activeElement as HTMLElement);
  if (i < 0) return;
  const col = i % cols;
  let j = i;
  if (e.key === 'ArrowUp') j = i - cols;
  else if (e.key === 'ArrowDown') j = i + cols;
  else if (e.key === 'ArrowLeft') j = col > 0 ? i - 1 : i;
  else if (e.key === 'ArrowRight') j = col < cols - 1 ? i + 1 : i;
  else if (e.key === 'Home') j = col;
  else j = Math.floor((items.length - 1) / cols) * cols + col;
  e.preventDefault();
  const next = items[Math.min(Math.max(j, 0), items.length - 1)];
  if (j >= 0 && j < items.length && next) next.focus();
}
