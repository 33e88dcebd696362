import type {
  BotEventView,
  CandlesResponse,
  ClassicBotView,
  DcaTradeView,
  PendingOrderView,
  VncView,
} from '@bytx/contract';
import { api } from '../../../shared/api/client';

export type StopMode = 'close_market' | 'cancel_only';

export interface StartClassicInput {
  symbol: string;
  amount: string;
  tp: string;
  separacion: string;
  os: string;
  exchange: string;
  user_id: string;
  r: boolean;
  r_os: boolean;
  apartado: string;
  trend_filter: boolean;
  smart_averaging: boolean;
  tp_vnc: number;
}

export interface MinCostAnswer {
  success: boolean;
  min_cost: number;
  min_amount: number;
  price: number;
  error?: string;
}

export interface BotRef {
  symbol: string;
  exchange: string;
}

export interface PnlEntry extends BotRef {
  kind?: string;
  pnl: number;
  ttr: number;
}

export interface ClosedClassicBot {
  id?: string;
  exchange: string;
  symbol: string;
  amount: number;
  tp: number;
  os: number;
  r?: boolean;
  r_os?: boolean;
  datetime_inicio: string | null;
  datetime_cierre: string | null;
  pnl: number;
}

export type BotUpdate =
  { sl: number | null } | { tp_plus: number | null } | { r: boolean } | { r_os: boolean };

/** The calls of the classic DCA dashboard (spec part 2 §7, spot-bot screen). */
export const dashboardApi = {
  activeBots: (user_id: string) =>
    api<{ success: boolean; bots: ClassicBotView[] }>('/api/bots_activos', { query: { user_id } }),
  closedBots: () =>
    api<{ success: boolean; historial: ClosedClassicBot[] }>('/api/historial', {
      query: { kind: 'classic_dca' },
    }),
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
  saveApartado: (user_id: string, apartado: string) =>
    api<{ success: boolean }>('/api/apartado_usuario', { body: { user_id, apartado } }),
  apartado: () => api<{ success: boolean; apartado: string }>('/api/apartado_usuario'),
  start: (input: StartClassicInput) =>
    api<{ success: boolean; message: string; bot?: ClassicBotView; error?: string }>('/api/start_bot', {
      body: input,
    }),
  stop: (user_id: string, exchange: string, symbol: string, mode: StopMode) =>
    api<{ success: boolean; message?: string; error?: string }>('/api/stop_bot', {
      body: { symbol, exchange, user_id, mode },
    }),
  update: (user_id: string, exchange: string, symbol: string, change: BotUpdate) =>
    api<{ success: boolean; error?: string }>('/api/actualizar_bot', {
      body: { user_id, symbol, exchange, ...change },
    }),
  updateTpVnc: (user_id: string, exchange: string, symbol: string, tp_vnc: number) =>
    api<{ success: boolean; tp_vnc: number }>('/api/update_tp_vnc', {
      body: { symbol, exchange, tp_vnc, user_id },
    }),
  addFunds: (user_id: string, exchange: string, symbol: string, amount: string) =>
    api<{ success: boolean; message?: string; error?: string }>('/api/anadir_fondos', {
      body: { symbol, exchange, amount, user_id },
    }),
  vncs: (user_id: string, bots?: BotRef[]) =>
    api<{ success: boolean; vncs: VncView[] }>('/api/vncs_actuales', {
      body: bots ? { user_id, bots } : { user_id },
    }),
  dcas: (user_id: string, bots: BotRef[]) =>
    api<{ success: boolean; dcas: { symbol: string; exchange: string; dca: number | null }[] }>(
      '/api/dcas_actuales',
      { body: { bots, user_id } },
    ),
  pnls: (user_id: string, bots: BotRef[]) =>
    api<{ success: boolean; pnls: PnlEntry[]; total_pnl: number }>('/api/pnls_actuales', {
      body: { bots, user_id },
    }),
  prices: (user_id: string) =>
    api<{ exchange: string; symbol: string; price: number }[]>('/api/precios_actuales', {
      body: { user_id },
    }),
  candles: (exchange: string, symbol: string) =>
    api<CandlesResponse>('/api/market/candles', {
      query: { exchange, symbol, timeframe: '1m', limit: 60 },
    }),
  history: (bot_id: string, page: number) =>
    api<{ success: boolean; historial: DcaTradeView[]; total_pnl: number; pages: number }>(
      '/api/dca/history',
      { query: { bot_id, page, per_page: 25 } },
    ),
  pendingOrders: async (user_id: string, bot_id: string, page: number) => {
    const r = await api<{
      success: boolean;
      orders?: PendingOrderView[];
      rows?: PendingOrderView[];
      page?: number;
      pages?: number;
    }>('/api/dca/pending_orders', { query: { user_id, bot_id, page, per_page: 6 } });
    return { orders: r.orders ?? r.rows ?? [], page: r.page ?? page, pages: r.pages ?? 1 };
  },
  events: (user_id: string, id: string) =>
    api<{ success: boolean; events: BotEventView[] }>(`/api/bots/${encodeURIComponent(id)}/events`, {
      query: { user_id, limit: 50 },
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

/** Seconds in trade as `1h 2m 3s` (hours and minutes only when non-zero). */
export function formatTtr(seconds: number): string {
  const s = Math.max(0, Math.floor(Number.isFinite(seconds) ? seconds : 0));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  if (h > 0) return `${h}h ${m}m ${r}s`;
  if (m > 0) return `${m}m ${r}s`;
  return `${r}s`;
}

export const pairKey = (b: BotRef) => `${b.exchange}|${b.symbol}`;
