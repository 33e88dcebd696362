/** Spec part 2 §9: 8 decimals in the rows, 2 in the totals; green at or above zero, red below. */
export const fix8 = (n: number) => (Number.isFinite(n) ? n.toFixed(8) : '—');
export const fix2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '—');
export const signColor = (n: number) => (n >= 0 ? 'green' : 'red');
