import type {
  CandleTimeframe,
  CandlesResponse,
  DerivativesWalletResponse,
  ExchangeConnectionsResponse,
  GetLeverageResponse,
  OrderBookResponse,
  PairsResponse,
  SpotCancelResponse,
  SpotFavoritesResponse,
  SpotFill,
  SpotMarketResponse,
  SpotOrderPreview,
  SpotOrderResponse,
  SpotOrdersResponse,
  SpotOrderView,
} from '@bytx/contract';
import { SPOT } from '@bytx/contract';
import { api } from '../api/client';

export type {
  CandlesResponse,
  OrderBookResponse,
  SpotFill,
  SpotMarketResponse,
  SpotOrderPreview,
  SpotOrderView,
  SpotOrdersResponse,
};

/** What the panel sends to POST /api/spot/order (numbers already rounded by the rules). */
export interface OrderRequest {
  exchange: string;
  symbol: string;
  side: 'buy' | 'sell';
  type: 'limit' | 'market';
  price?: number;
  quantity: number;
  tp?: number | null;
  sl?: number | null;
  reduce_only?: boolean;
  dry_run?: boolean;
}

/** The orders panel and the chart's live candle are polled (ms). */
export const ORDERS_POLL_MS = 5_000;
export const CANDLES_POLL_MS = 5_000;
export const CANDLES_LIMIT = 300;

/** React Query keys; `refresh()` of the screen reloads market, orders, leverage and DCA line. */
export const tradingKeys = {
  all: ['trading'] as const,
  connections: ['trading', 'connections'] as const,
  pairs: (exchange: string) => ['trading', 'pairs', exchange] as const,
  favorites: ['trading', 'favorites'] as const,
  market: (exchange: string, symbol: string) => ['trading', 'market', exchange, symbol] as const,
  book: (exchange: string, symbol: string) => ['trading', 'book', exchange, symbol] as const,
  candles: (exchange: string, symbol: string, tf: CandleTimeframe) =>
    ['trading', 'candles', exchange, symbol, tf] as const,
  orders: (exchange: string, symbol: string) => ['trading', 'orders', exchange, symbol] as const,
  leverage: (exchange: string, pair: string) => ['trading', 'leverage', exchange, pair] as const,
  dca: (exchange: string, symbol: string) => ['trading', 'dca', exchange, symbol] as const,
};

/** The calls of the spot and futures screens (docs/trading.md). */
export const tradingApi = {
  connections: () => api<ExchangeConnectionsResponse>('/api/exchanges/connections'),
  pairs: async (exchange: string) =>
    (await api<PairsResponse>('/api/market/pairs', { query: { exchange } })).pairs,
  market: (exchange: string, symbol: string) =>
    api<SpotMarketResponse>('/api/spot/market', { query: { exchange, symbol } }),
  book: (exchange: string, symbol: string) =>
    api<OrderBookResponse>('/api/market/orderbook', {
      query: { exchange, symbol, limit: SPOT.bookDepth },
    }),
  candles: (exchange: string, symbol: string, timeframe: CandleTimeframe) =>
    api<CandlesResponse>('/api/market/candles', {
      query: { exchange, symbol, timeframe, limit: CANDLES_LIMIT },
    }),
  favorites: () => api<SpotFavoritesResponse>('/api/spot/favorites'),
  setFavorite: (symbol: string, favorite: boolean) =>
    api<SpotFavoritesResponse>('/api/spot/favorites', { body: { symbol, favorite } }),
  order: (body: OrderRequest) => api<SpotOrderResponse>('/api/spot/order', { body }),
  orders: (exchange: string, symbol: string) =>
    api<SpotOrdersResponse>('/api/spot/orders', { query: { exchange, symbol } }),
  cancel: (id: string) =>
    api<SpotCancelResponse>(`/api/spot/orders/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  /** The user's stored leverage of the pair (futures margin), keyed by the pair 'BTC/USDT'. */
  leverage: (exchange: string, pair: string) =>
    api<GetLeverageResponse>('/api/set_leverage', { query: { exchange, symbol: pair } }),
  /** Average entry of the user's active DCA bots on the pair (the chart's DCA line, spot). */
  dcas: (user_id: string, exchange: string, symbol: string) =>
    api<{ success: boolean; dcas: { exchange: string; symbol: string; dca: number | null }[] }>(
      '/api/dcas_actuales',
      { body: { user_id, bots: [{ exchange, symbol }] } },
    ),
  /** Open derivatives positions (the chart's DCA line on futures: the position's entry). */
  derivatives: (exchange: string) =>
    api<DerivativesWalletResponse>('/api/wallet/derivatives', { query: { exchange } }),
};
