/** Token figures: up to `decimals` decimals, thousands separated. */
export const fmtTokens = (v: number | string | null | undefined, decimals = 4) => {
  const n = Number(v);
  if (v === null || v === undefined || !Number.isFinite(n)) return '-';
  return n.toLocaleString('en-US', { maximumFractionDigits: decimals });
};

/** A per-second rate: enough significant digits to see it move. */
export const fmtRate = (v: number | string | null | undefined) => {
  const n = Number(v);
  if (v === null || v === undefined || !Number.isFinite(n)) return '-';
  if (n === 0) return '0';
  return Math.abs(n) < 1
    ? n.toLocaleString('en-US', { maximumSignificantDigits: 4, maximumFractionDigits: 18 })
    : n.toLocaleString('en-US', { maximumFractionDigits: 6 });
};

export const fmtPercent = (v: number | string | null | undefined) => {
  const n = Number(v);
  return v === null || v === undefined || !Number.isFinite(n)
    ? '-'
    : `${n.toLocaleString('en-US', { maximumFractionDigits: 2 })} %`;
};
