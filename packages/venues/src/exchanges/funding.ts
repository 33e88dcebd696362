/**
 * When funding is charged next, for exchanges whose funding reply does not say (issue 38 point 6):
 * ccxt then leaves `fundingTimestamp` and `nextFundingTimestamp` empty and the venue would answer 0.
 * Such an exchange charges on a fixed UTC grid, so the next funding time is the first grid point after
 * the reply's time. One rule per exchange (ccxt id), with its source.
 */
export interface FundingSchedule {
  /** The grid step when the product does not state its own (ms). */
  defaultIntervalMs: number;
  /** The product's own interval, read from the ccxt market's `info` (ms), when it states one. */
  intervalOf?: (info: Record<string, unknown>) => number | undefined;
  /** Where the rule comes from. */
  source: string;
}

const HOUR_MS = 3_600_000;

export const FUNDING_SCHEDULES: Readonly<Record<string, FundingSchedule>> = {
  // Phemex's ticker (GET /md/v2/ticker/24hr: fundingRateRr, predFundingRateRr) has no funding time.
  // Phemex charges every 8 h at 00:00, 08:00 and 16:00 UTC by default; a product whose interval was
  // changed (announcements, e.g. 8 h → 4 h or 1 h) states it in its product entry as fundingInterval,
  // in seconds (GET /public/products, perpProductsV2: "fundingInterval": 28800), which ccxt keeps in
  // the market's info. Grid points are multiples of the interval from 00:00 UTC.
  phemex: {
    defaultIntervalMs: 8 * HOUR_MS,
    intervalOf: (info) => {
      const s = Number(info.fundingInterval);
      if (!Number.isInteger(s) || s <= 0) return undefined;
      // Seconds (v2 list: 28800); the v1 list gives hours (8) in the same field.
      if (s >= 3600 && s % 3600 === 0) return s * 1000;
      return s <= 24 ? s * HOUR_MS : undefined;
    },
    source:
      'https://phemex.com/announcements/phemex-to-adjust-the-funding-interval-for-pippinusdt-fartcoin-futures (8 h default, per-product changes); https://github.com/phemex/phemex-api-docs/blob/master/Public-Hedged-Perpetual-API.md (fundingRateRr, no funding time); ccxt phemex.js fetchMarkets (fundingInterval 28800)',
  },
};

/**
 * The first funding time strictly after `ts` (ms) on the exchange's grid, or null when the exchange
 * has no rule here (the caller keeps what ccxt said).
 */
export function scheduledNextFunding(
  ccxtId: string,
  info: Record<string, unknown> | undefined,
  ts: number,
): number | null {
  const rule = FUNDING_SCHEDULES[ccxtId];
  if (!rule || !Number.isFinite(ts) || ts <= 0) return null;
  const step = (info && rule.intervalOf?.(info)) ?? rule.defaultIntervalMs;
  return Math.floor(ts / step) * step + step;
}
