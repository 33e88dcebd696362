import { TICKER_ASSETS, type TickerResponse } from '@bytx/contract';
import type { MarketHub } from '../../context';

/**
 * Prices of the ticker assets in the shape of a CoinGecko-style simple price endpoint:
 * asset id -> { usd, usd_24h_change }. Assets without data are left out (the bar shows a dash).
 */
export interface TickerPriceProvider {
  prices(ids: readonly string[]): Promise<TickerResponse>;
}

const PAIR_OF: Record<string, string> = Object.fromEntries(
  TICKER_ASSETS.map((a) => [a.id, `${a.symbol.slice(0, -4)}/USDT`]),
);

/** From an exchange's USDT pairs through the hub (the simulated market's Binance by default). */
export class HubTickerProvider implements TickerPriceProvider {
  constructor(
    private readonly hub: MarketHub,
    private readonly exchange = 'binance',
  ) {}

  async prices(ids: readonly string[]): Promise<TickerResponse> {
    const out: TickerResponse = {};
    await Promise.all(
      ids.map(async (id) => {
        const pair = PAIR_OF[id];
        if (!pair) return;
        try {
          const t = await this.hub.ticker(this.exchange, pair);
          out[id] = {
            usd: t.last,
            usd_24h_change: t.percentage === null ? null : Number(t.percentage.toFixed(4)),
          };
        } catch {
          // Left out: the bar shows a dash for it.
        }
      }),
    );
    return out;
  }
}

export interface CoinGeckoOptions {
  baseUrl?: string;
  /** Cache lifetime (the bar polls every 10 s; one upstream call serves everyone). */
  ttlMs?: number;
  fetch?: typeof fetch;
  /** Used when the provider fails and nothing is cached yet. */
  fallback?: TickerPriceProvider;
}

/** CoinGecko's `/simple/price` (MARKET_DATA=live), cached, keeping the last good prices on failure. */
export class CoinGeckoTickerProvider implements TickerPriceProvider {
  private last: TickerResponse = {};
  private expires = 0;
  private pending: Promise<TickerResponse> | null = null;
  private readonly baseUrl: string;
  private readonly ttlMs: number;
  private readonly fetchFn: typeof fetch;

  constructor(private readonly opts: CoinGeckoOptions = {}) {
    this.baseUrl = opts.baseUrl ?? 'https://api.coingecko.com/api/v3';
    this.ttlMs = opts.ttlMs ?? 10_000;
    this.fetchFn = opts.fetch ?? fetch;
  }

  async prices(ids: readonly string[]): Promise<TickerResponse> {
    const all = await this.refresh();
    return Object.fromEntries(ids.filter((id) => all[id]).map((id) => [id, all[id]!]));
  }

  private refresh(): Promise<TickerResponse> {
    if (Date.now() < this.expires) return Promise.resolve(this.last);
    this.pending ??= this.load().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async load(): Promise<TickerResponse> {
    const ids = TICKER_ASSETS.map((a) => a.id).join(',');
    const url = `${this.baseUrl}/simple/price?ids=${ids}&vs_currencies=usd&include_24hr_change=true`;
    try {
      const res = await this.fetchFn(url, { signal: AbortSignal.timeout(8_000) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const body = (await res.json()) as Record<string, { usd?: unknown; usd_24h_change?: unknown }>;
      const next: TickerResponse = {};
      for (const [id, v] of Object.entries(body)) {
        if (typeof v.usd !== 'number') continue;
        next[id] = {
          usd: v.usd,
          usd_24h_change: typeof v.usd_24h_change === 'number' ? v.usd_24h_change : null,
        };
      }
      this.last = { ...this.last, ...next };
      this.expires = Date.now() + this.ttlMs;
    } catch {
      // Keep the previous prices; retry on the next call after a short pause.
      this.expires = Date.now() + Math.min(this.ttlMs, 5_000);
      if (Object.keys(this.last).length === 0 && this.opts.fallback) {
        return this.opts.fallback.prices(TICKER_ASSETS.map((a) => a.id));
      }
    }
    return this.last;
  }
}
