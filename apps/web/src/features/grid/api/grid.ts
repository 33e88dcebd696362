import {
  GRID_DEFAULTS,
  GRID_EXCHANGES,
  GRID_MARKET_TYPES,
  GRID_POSITIONS,
  GRID_PROFIT_CURRENCIES,
  type CandlesResponse,
  type GridBotDetail,
  type GridBotView,
  type GridHistoryView,
  type GridMarketType,
  type GridNivelesResponse,
  type GridPosition,
  type GridProfitCurrency,
} from '@bytx/contract';
import { api, ApiError } from '../../../shared/api/client';
import { botsApi } from '../../../shared/bots/api';

export { GRID_EXCHANGES, GRID_MARKET_TYPES, GRID_POSITIONS };
export type { GridBotDetail, GridBotView, GridHistoryView, GridMarketType, GridPosition };
export const PROFIT_CURRENCIES = GRID_PROFIT_CURRENCIES;
export type ProfitCurrency = GridProfitCurrency;

/** Spec part 2 §9: a picked pair fills high = price + 5 %, low = price − 5 %, step 0.5 %. */
export const GRID_DEFAULT_RANGE_PCT = GRID_DEFAULTS.rangePct;
export const GRID_DEFAULT_STEP_PCT = GRID_DEFAULTS.stepPct;
/** Active bots are polled every 5 s (spec part 2 §9). */
export const GRID_POLL_MS = 5_000;

export interface GridStartInput {
  user: string;
  exchange: string;
  pair: string;
  marketType: GridMarketType;
  highPrice: number;
  lowPrice: number;
  amountPerLevel: number;
  stepPercentage: number;
  profitCurrency: ProfitCurrency;
  position: GridPosition;
  leverage: number;
}

/** What POST /api/gridbot/start answers (`id` and `bot` on success). */
export interface GridStartAnswer {
  ok: boolean;
  error?: string;
  message?: string;
  id?: string;
  bot?: GridBotView;
}

/** The active grid row as the page needs it (the list's answer carries more, see GridBotView). */
export type GridBotRow = Pick<GridBotView, 'id' | 'symbol' | 'market_type' | 'pnl_quote'> &
  Partial<Omit<GridBotView, 'id' | 'symbol' | 'market_type' | 'pnl_quote'>>;

/**
 * The venue symbol of the user's pair for a market type (docs/bots/derivatives.md): Spot and Margin trade the spot symbol, Perpetual the linear swap `BASE/QUOTE:QUOTE`,
 * Inverse the coin-margined swap `BASE/USD:BASE`.
 */
export function venueSymbol(pair: string, marketType: string): string {
  const [base = '', quote = ''] = pair.split(':')[0]!.split('/');
  if (!base || !quote) return pair;
  switch (marketType.toLowerCase()) {
    case 'perpetual':
      return `${base}/${quote}:${quote}`;
    case 'inverse':
      return `${base}/USD:${base}`;
    default:
      return `${base}/${quote}`;
  }
}

/** The quote currency of a pair or venue symbol (`BTC/USDT:USDT` → USDT). */
export const quoteOf = (symbol: string) => symbol.split(':')[0]!.split('/')[1] ?? '';

/** A price rounded for an input: 2 decimals from 1000 up, 4 from 1, else 8 significant-ish. */
export function roundPrice(n: number): number {
  const abs = Math.abs(n);
  const d = abs >= 1000 ? 2 : abs >= 1 ? 4 : 8;
  return Number(n.toFixed(d));
}

/** high = price + 5 %, low = price − 5 %, step 0.5 % (as the inputs show them). */
export function defaultRange(price: number) {
  return {
    high: String(roundPrice(price * (1 + GRID_DEFAULT_RANGE_PCT / 100))),
    low: String(roundPrice(price * (1 - GRID_DEFAULT_RANGE_PCT / 100))),
    step: String(GRID_DEFAULT_STEP_PCT),
  };
}

/** What the settings panel holds when 'Start Grid Bot' is pressed. */
export interface GridForm {
  email: string | null | undefined;
  exchange: string;
  pair: string;
  high: string;
  low: string;
  amount: string;
  step: string;
  profitCurrency: string;
  connected: Record<string, boolean>;
}

/** The keys of `grid.validation.*`, one per rule of spec part 2 §5 "Grid start". */
export type GridValidationKey =
  | 'noSession'
  | 'noExchange'
  | 'noPair'
  | 'incomplete'
  | 'lowNotBelowHigh'
  | 'stepNotPositive'
  | 'notConnected';

const num = (s: string) => Number(s.replace(/,/g, '.'));

/** The grid start's checks in the spec's order; the first failing rule, or null when all pass. */
export function validateGridStart(f: GridForm): GridValidationKey | null {
  if (!f.email) return 'noSession';
  if (!f.exchange) return 'noExchange';
  if (!f.pair.trim()) return 'noPair';
  if ([f.high, f.low, f.amount, f.step, f.profitCurrency].some((v) => v.trim() === '')) return 'incomplete';
  if (!(num(f.low) < num(f.high))) return 'lowNotBelowHigh';
  if (!(num(f.step) > 0)) return 'stepNotPositive';
  if (!f.connected[f.exchange]) return 'notConnected';
  return null;
}

/** The grid page's calls (spec part 2 §7 and docs/bots/grid.md). */
export const gridApi = {
  connections: botsApi.connections,
  /** The user's pairs (`BASE/QUOTE`); venue-only symbols such as swaps (`…:USDT`) are left out. */
  pairs: botsApi.pairs,
  price: async (exchange: string, symbol: string, user: string) =>
    (await api<{ price: number }>('/api/precio', { query: { symbol, exchange, user } })).price,
  candles: async (exchange: string, pair: string, marketType: string) => {
    const symbol = venueSymbol(pair, marketType);
    const get = (s: string) =>
      api<CandlesResponse>('/api/market/candles', {
        query: { exchange, symbol: s, timeframe: '1m', limit: 300 },
      });
    try {
      return await get(symbol);
    } catch (err) {
      // A venue without the derivatives market of the pair still charts the pair itself.
      if (symbol !== pair && err instanceof ApiError) return get(pair);
      throw err;
    }
  },
  levels: (body: {
    exchange: string;
    pair: string;
    price: number;
    highPrice: number;
    lowPrice: number;
    stepPercentage: number;
    marketType: string;
  }) => api<GridNivelesResponse>('/api/gridbot/niveles', { body }),
  start: (body: GridStartInput) => api<GridStartAnswer>('/api/gridbot/start', { body }),
  active: (user_id: string) =>
    api<{ ok: boolean; bots: GridBotRow[] }>('/api/gridbot/activos', { body: { user_id } }),
  detail: (id: string) => api<{ ok: boolean; bot: GridBotDetail }>(`/api/gridbot/${encodeURIComponent(id)}`),
  stop: (grid_id: string, vender: boolean) =>
    api<{ ok: boolean; error?: string }>('/api/gridbot/detener', { body: { grid_id, vender } }),
  history: (user_id: string) =>
    api<{ ok: boolean; history: GridHistoryView[]; error?: string }>('/api/gridbot/historial', {
      body: { user_id },
    }),
  setLeverage: (user_id: string, exchange: string, symbol: string, leverage: number) =>
    api<{ success: boolean }>('/api/set_leverage', { body: { user_id, exchange, symbol, leverage } }),
};
