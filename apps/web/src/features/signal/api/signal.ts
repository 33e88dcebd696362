import {
  SIGNAL_LIMITS,
  SIGNAL_MESSAGES,
  SIGNAL_REASONS,
  SIGNAL_STATUSES,
  signalTemplate,
  type SignalBotView,
  type SignalCreateResponse,
  type SignalListResponse,
  type SignalLogResponse,
  type SignalOrder,
  type SignalReason,
  type SignalRow,
  type SignalSecretResponse,
  type SignalStatus,
  type SignalStopResponse,
} from '@bytx/contract';
import { api } from '../../../shared/api/client';
import { botsApi } from '../../../shared/bots/api';

export { SIGNAL_LIMITS, SIGNAL_MESSAGES, SIGNAL_REASONS, SIGNAL_STATUSES, signalTemplate };
export type { SignalBotView, SignalOrder, SignalReason, SignalRow, SignalStatus };

/** The bot list and the open signal log are polled every 5 s (spec part 2 §9: active bots 5 s). */
export const SIGNAL_POLL_MS = 5_000;

/** What the create form holds when 'Create' is pressed. */
export interface SignalForm {
  exchange: string;
  symbol: string;
  amount: string;
  maxPosition: string;
  connected: Record<string, boolean>;
}

/** A failed create check: the `signal.messages.*` key and its placeholders. */
export interface SignalValidation {
  key: 'noExchange' | 'noSymbol' | 'badAmount' | 'badMaxPosition' | 'amountOverMax' | 'notConnected';
  params?: Record<string, string | number>;
}

/** Decimal commas become dots; an empty or non-numeric text is NaN. */
export const parseNumber = (v: string) =>
  v.trim() === '' ? Number.NaN : Number(v.trim().replace(/,/g, '.'));

/** The create checks in the server's order, with its texts; null when all pass. */
export function validateSignalCreate(f: SignalForm): SignalValidation | null {
  if (!f.exchange) return { key: 'noExchange' };
  if (!f.symbol.trim()) return { key: 'noSymbol' };
  const amount = parseNumber(f.amount);
  if (!Number.isFinite(amount) || !(amount > 0)) return { key: 'badAmount' };
  const max = parseNumber(f.maxPosition);
  if (!Number.isFinite(max) || !(max > 0)) return { key: 'badMaxPosition' };
  if (amount > max) return { key: 'amountOverMax', params: { amount, max } };
  if (!f.connected[f.exchange]) return { key: 'notConnected' };
  return null;
}

const botPath = (id: string) => `/api/signalbot/bots/${encodeURIComponent(id)}`;

/** The signal bot's calls (issue 15 §2; docs/bots/signal.md). */
export const signalApi = {
  connections: botsApi.connections,
  pairs: botsApi.pairs,
  list: () => api<SignalListResponse>('/api/signalbot/bots'),
  create: (body: { exchange: string; symbol: string; amount: number; max_position: number }) =>
    api<SignalCreateResponse>('/api/signalbot/bots', { body }),
  stop: (id: string, keep_assets: boolean) =>
    api<SignalStopResponse>(`${botPath(id)}/stop`, { body: { keep_assets } }),
  /** The new secret is answered this once (no call reads a secret back). */
  rotateSecret: (id: string) => api<SignalSecretResponse>(`${botPath(id)}/secret`, { method: 'POST' }),
  signals: (id: string, page: number, per_page = SIGNAL_LIMITS.perPage) =>
    api<SignalLogResponse>(`${botPath(id)}/signals`, { query: { page, per_page } }),
};
