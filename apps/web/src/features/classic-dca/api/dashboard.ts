import type {
  BotEventView,
  CandlesResponse,
  ClassicBotView,
  PendingOrderView,
  VncView,
} from '@bytx/contract';
import { api } from '../../../shared/api/client';
import { botsApi, type ClosedBotRow, type StartInputBase, type StopMode } from '../../../shared/bots/api';

export { commaToDot, pageWindow } from '../../../shared/bots/format';
export type { MinCostAnswer, StopMode } from '../../../shared/bots/api';

export interface StartClassicInput extends StartInputBase {
  r: boolean;
  r_os: boolean;
  trend_filter: boolean;
  smart_averaging: boolean;
  tp_vnc: number;
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

export interface ClosedClassicBot extends ClosedBotRow {
  r?: boolean;
  r_os?: boolean;
}

export type BotUpdate =
  { sl: number | null } | { tp_plus: number | null } | { r: boolean } | { r_os: boolean };

/** The calls of the classic DCA dashboard (spec part 2 §7, spot-bot screen); the shared ones from `botsApi`. */
export const dashboardApi = {
  ...botsApi,
  activeBots: (user_id: string) =>
    api<{ success: boolean; bots: ClassicBotView[] }>('/api/bots_activos', { query: { user_id } }),
  closedBots: () =>
    api<{ success: boolean; historial: ClosedClassicBot[] }>('/api/historial', {
      query: { kind: 'classic-dca' },
    }),
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
  candles: (exchange: string, symbol: string) =>
    api<CandlesResponse>('/api/market/candles', {
      query: { exchange, symbol, timeframe: '1m', limit: 60 },
    }),
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
