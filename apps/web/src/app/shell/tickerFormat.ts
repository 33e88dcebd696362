/** One asset's price data as GET /api/ticker answers it (spec part 1 §3). */
export interface TickerQuote {
  usd?: number | null;
  usd_24h_change?: number | null;
}
export type TickerPrices = Record<string, TickerQuote | undefined>;

export const DASH = '-';
export const TICKER_REFRESH_MS = 10_000;
export const TICKER_SCROLL_STEP = 200;

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * `toLocaleString('en-US', …)`'s format, made once: `toLocaleString` with options builds a new
 * Intl.NumberFormat on every call, and the bar's 16 prices took about 140 ms of the first page's main
 * thread that way (Chromium, busy 2-core machine; issue 39).
 */
let priceFormat: Intl.NumberFormat | null = null;

/** Price with at most 4 decimals (spec part 1 §9); missing data is a dash. */
export function formatPrice(usd: number | null | undefined): string {
  if (!isNum(usd)) return DASH;
  priceFormat ??= new Intl.NumberFormat('en-US', { minimumFractionDigits: 0, maximumFractionDigits: 4 });
  return `$${priceFormat.format(usd)}`;
}

export interface ChangeDisplay {
  text: string;
  /** 'down' (red, down marker) for a negative change, otherwise 'up' (green, up marker); null when missing. */
  direction: 'up' | 'down' | null;
}

/** 24-hour change with 2 decimals: negative red with a down marker, otherwise green with an up marker. */
export function formatChange(change: number | null | undefined): ChangeDisplay {
  if (!isNum(change)) return { text: DASH, direction: null };
  const down = change < 0;
  return { text: `${down ? '▼' : '▲'} ${change.toFixed(2)}%`, direction: down ? 'down' : 'up' };
}

/** A response is kept only where it is a map of objects; anything else counts as a failure. */
export function parseTickerResponse(body: unknown): TickerPrices {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('Malformed ticker response');
  const out: TickerPrices = {};
  for (const [id, v] of Object.entries(body as Record<string, unknown>)) {
    if (v && typeof v === 'object') {
      const q = v as Record<string, unknown>;
      out[id] = {
        usd: isNum(q.usd) ? q.usd : null,
        usd_24h_change: isNum(q.usd_24h_change) ? q.usd_24h_change : null,
      };
    }
  }
  return out;
}
