import type { BotEventView, ClosedBotView, DcaBotView, DcaTradeView, PendingOrderView } from '@bytx/contract';
import { api } from '../../../shared/api/client';

export interface StartBotInput {
  symbol: string;
  amount: string;
  tp: string;
  separacion: string;
  os: string;
  exchange: string;
  user_id: string;
  apartado: string;
  leverage?: number;
  direction?: 'LONG' | 'SHORT';
}

export interface MinCostAnswer {
  success: boolean;
  min_cost: number;
  min_amount: number;
  price: number;
  error?: string;
}

export const dcaApi = {
  activeBots: (user_id: string) =>
    api<{ success: boolean; bots: DcaBotView[] }>('/api/bots_activos_dca', { query: { user_id } }),
  closedBots: () => api<{ success: boolean; historial: ClosedBotView[] }>('/api/historial'),
  connections: (user_id: string) =>
    api<{ conexiones: Record<string, boolean> }>('/api/estado_conexion', { body: { user_id } }),
  pairs: async (exchange: string): Promise<string[]> => {
    const res = await api<unknown>('/api/market/pairs', { query: { exchange } });
    const list = Array.isArray(res) ? res : ((res as { pairs?: unknown[] }).pairs ?? []);
    return list
      .map((p) => (typeof p === 'string' ? p : ((p as { symbol?: string }).symbol ?? '')))
      .filter((s) => s.length > 0);
  },
  minCost: (user_id: string, exchange: string, symbol: string) =>
    api<MinCostAnswer>('/api/min_cost', { body: { user_id, exchange, symbol } }),
  start: (input: StartBotInput) =>
    api<{ success: boolean; message: string; bot?: DcaBotView }>('/api/start_bot_dca', { body: input }),
  stop: (user_id: string, exchange: string, symbol: string, mode: 'close_market' | 'cancel_only') =>
    api<{ success: boolean; message?: string; error?: string }>('/api/stop_bot_dca', {
      body: { user_id, exchange, symbol, mode },
    }),
  updateSl: (user_id: string, exchange: string, symbol: string, sl: number | null) =>
    api<{ success: boolean }>('/api/update_sl', { body: { user_id, exchange, symbol, sl } }),
  updateTpPlus: (user_id: string, exchange: string, symbol: string, tp_plus: number | null) =>
    api<{ success: boolean }>('/api/update_tp_plus', { body: { user_id, exchange, symbol, tp_plus } }),
  raToggle: (user_id: string, exchange: string, symbol: string, enabled: boolean) =>
    api<{ success: boolean; error?: string }>('/api/dca/ra/toggle', {
      body: { user_id, exchange, symbol, enabled },
    }),
  relocate: (user_id: string, exchange: string, symbol: string) =>
    api<{ success: boolean; error?: string; message?: string }>('/api/dca/relocate', {
      body: { user_id, exchange, symbol },
    }),
  pendingOrders: (user_id: string, exchange: string, symbol: string, page: number) =>
    api<{ success: boolean; orders: PendingOrderView[]; page: number; pages: number }>(
      '/api/dca/pending_orders',
      { query: { user_id, exchange, symbol, page, per_page: 6 } },
    ),
  history: (bot_id: string, page: number) =>
    api<{ success: boolean; historial: DcaTradeView[]; total_pnl: number; pages: number }>(
      '/api/dca/history',
      { query: { bot_id, page, per_page: 25 } },
    ),
  events: (id: string) => api<{ success: boolean; events: BotEventView[] }>(`/api/bots/${id}/events`),
  setLeverage: (user_id: string, exchange: string, symbol: string, leverage: number) =>
    api<{ success: boolean }>('/api/set_leverage', { body: { user_id, exchange, symbol, leverage } }),
  saveApartado: (user_id: string, apartado: string) =>
    api<{ success: boolean }>('/api/apartado_usuario', { body: { user_id, apartado } }),
  apartado: () => api<{ success: boolean; apartado: string }>('/api/apartado_usuario'),
  prices: (user_id: string) =>
    api<{ exchange: string; symbol: string; price: number }[]>('/api/precios_actuales', {
      body: { user_id },
    }),
};

/** Decimal commas become dots (spec part 2 §5). */
export const commaToDot = (v: string) => v.replace(/,/g, '.');

/** Up to `max` page numbers around the current page (spec: at most 7 page buttons). */
export function pageWindow(page: number, pages: number, max = 7): number[] {
  const n = Math.min(max, pages);
  let start = Math.max(1, page - Math.floor(n / 2));
  start = Math.min(start, Math.max(1, pages - n + 1));
  return Array.from({ length: n }, (_, i) => start + i);
}
