import type { BotEventView, ClosedBotView, DcaBotView, PendingOrderView } from '@bytx/contract';
import { api } from '../../../shared/api/client';
import { botsApi, type StartInputBase, type StopMode } from '../../../shared/bots/api';

export { commaToDot, pageWindow } from '../../../shared/bots/format';
export type { MinCostAnswer } from '../../../shared/bots/api';

export interface StartBotInput extends StartInputBase {
  leverage?: number;
  direction?: 'LONG' | 'SHORT';
}

/** The Grid Bot DCA calls (the ones every bot screen makes come from `botsApi`). */
export const dcaApi = {
  ...botsApi,
  activeBots: (user_id: string) =>
    api<{ success: boolean; bots: DcaBotView[] }>('/api/bots_activos_dca', { query: { user_id } }),
  closedBots: () => api<{ success: boolean; historial: ClosedBotView[] }>('/api/historial'),
  start: (input: StartBotInput) =>
    api<{ success: boolean; message: string; bot?: DcaBotView }>('/api/start_bot_dca', { body: input }),
  stop: (user_id: string, exchange: string, symbol: string, mode: StopMode) =>
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
  events: (id: string) => api<{ success: boolean; events: BotEventView[] }>(`/api/bots/${id}/events`),
  setLeverage: (user_id: string, exchange: string, symbol: string, leverage: number) =>
    api<{ success: boolean }>('/api/set_leverage', { body: { user_id, exchange, symbol, leverage } }),
};
