import type { DcaTradeView } from '@bytx/contract';
import { api } from '../api/client';

export type StopMode = 'close_market' | 'cancel_only';

export interface MinCostAnswer {
  success: boolean;
  min_cost: number;
  min_amount: number;
  price: number;
  error?: string;
}

/** What every bot screen needs of a bot: the dialogs and the lists key on these. */
export interface BotIdentity {
  id: string;
  exchange: string;
  symbol: string;
}

/** The calls both bot screens (Grid Bot DCA and the classic DCA dashboard) make the same way. */
export const botsApi = {
  connections: (user_id: string) =>
    api<{ conexiones: Record<string, boolean> }>('/api/estado_conexion', { body: { user_id } }),
  pairs: async (exchange: string): Promise<string[]> => {
    const res = await api<unknown>('/api/market/pairs', { query: { exchange } });
    const list = Array.isArray(res) ? res : ((res as { pairs?: unknown[] }).pairs ?? []);
    // The user's pair is BASE/QUOTE; the market type picks the venue symbol, so the venue-only
    // derivatives symbols (`BTC/USDT:USDT`) are not offered.
    return list
      .map((p) => (typeof p === 'string' ? p : ((p as { symbol?: string }).symbol ?? '')))
      .filter((s) => s.length > 0 && !s.includes(':'));
  },
  minCost: (user_id: string, exchange: string, symbol: string) =>
    api<MinCostAnswer>('/api/min_cost', { body: { user_id, exchange, symbol } }),
  saveApartado: (user_id: string, apartado: string) =>
    api<{ success: boolean }>('/api/apartado_usuario', { body: { user_id, apartado } }),
  apartado: () => api<{ success: boolean; apartado: string }>('/api/apartado_usuario'),
  prices: (user_id: string) =>
    api<{ exchange: string; symbol: string; price: number }[]>('/api/precios_actuales', {
      body: { user_id },
    }),
  history: (bot_id: string, page: number) =>
    api<{ success: boolean; historial: DcaTradeView[]; total_pnl: number; pages: number }>(
      '/api/dca/history',
      { query: { bot_id, page, per_page: 25 } },
    ),
};

/** A closed bot as the footer's history lists it. */
export interface ClosedBotRow {
  id?: string;
  exchange: string;
  symbol: string;
  amount: number;
  tp: number;
  os: number;
  datetime_inicio: string | null;
  datetime_cierre: string | null;
  pnl: number;
}

/** The fields of the start form every bot screen sends. */
export interface StartInputBase {
  symbol: string;
  amount: string;
  tp: string;
  separacion: string;
  os: string;
  exchange: string;
  user_id: string;
  apartado: string;
}
