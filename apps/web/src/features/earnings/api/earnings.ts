import {
  EARNINGS_LIMITS,
  EARNINGS_MESSAGES,
  type EarningsHistoryResponse,
  type EarningsNonceResponse,
  type EarningsResponse,
  type EarningsWalletResponse,
  type PoolStateResponse,
} from '@bytx/contract';
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, ApiError } from '../../../shared/api/client';
import { userIdOf, useSession } from '../../../shared/session/session';

export type { EarningsHistoryResponse, EarningsResponse, PoolStateResponse };
export type EarningsHistoryPoint = EarningsHistoryResponse['points'][number];

/** The spec's switch question (§8): the answer to it is the same call with `force`. */
export const SWITCH_MESSAGE = EARNINGS_MESSAGES.differentWallet;
/** The generic text of a failed lookup (§8). */
export const GENERIC_MESSAGE = EARNINGS_MESSAGES.connectError;

/** A refused lookup: the server's message, and whether `force` would switch to it. */
export class EarningsError extends Error {
  constructor(
    message: string,
    readonly canSwitch: boolean,
    /** The server's refusal code (`signature_required`: sign the link message, then ask again). */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'EarningsError';
  }
}

const REFRESH_MS = EARNINGS_LIMITS.earningsRefreshMs;
const POOL_REFRESH_MS = EARNINGS_LIMITS.poolStateRefreshMs;

export const earningsKeys = {
  earnings: (user: string, address: string | null) => ['earnings', 'stats', user, address] as const,
  pool: ['earnings', 'pool'] as const,
  history: (user: string) => ['earnings', 'history', user] as const,
  wallet: (user: string) => ['earnings', 'wallet', user] as const,
};

/** The proof that links a new address (issue 37): the server's nonce and the wallet's signature of its message. */
export interface WalletProof {
  nonce: string;
  signature: string;
}

/** POST /api/earnings; a refusal (success false, or a 4xx/5xx) throws EarningsError with the server's text. */
export async function fetchEarnings(
  address: string,
  force = false,
  proof?: WalletProof,
): Promise<EarningsResponse> {
  let res: EarningsResponse;
  try {
    res = await api<EarningsResponse>('/api/earnings', {
      method: 'POST',
      body: { address, ...(force ? { force: true } : {}), ...(proof ?? {}) },
    });
  } catch (err) {
    if (err instanceof ApiError) {
      const b = err.body as { message?: unknown; error?: unknown; code?: unknown } | undefined;
      const msg =
        typeof b?.message === 'string' && b.message
          ? b.message
          : typeof b?.error === 'string' && b.error
            ? b.error
            : err.status >= 500
              ? GENERIC_MESSAGE
              : err.message;
      const code = typeof b?.code === 'string' ? b.code : undefined;
      throw new EarningsError(msg, code === 'wallet_different' || isSwitch(msg), code);
    }
    throw new EarningsError(GENERIC_MESSAGE, false);
  }
  const answer = res as EarningsResponse | { success: false; message?: string; code?: string };
  if (!answer.success) {
    const msg = answer.message || GENERIC_MESSAGE;
    throw new EarningsError(msg, answer.code === 'wallet_different' || isSwitch(msg));
  }
  return answer;
}

const isSwitch = (message: string) => message === SWITCH_MESSAGE;

/** The connected wallet's figures, asked again every 10 s (spec §7). */
export function useEarnings(address: string | null) {
  const { user } = useSession();
  return useQuery({
    queryKey: earningsKeys.earnings(userIdOf(user), address),
    queryFn: () => fetchEarnings(address!),
    enabled: !!user && !!address,
    // The answer of Connect and consult is put in the cache: no second call right after it.
    staleTime: REFRESH_MS / 2,
    refetchInterval: REFRESH_MS,
    retry: false,
  });
}

/** Connect and consult: the first lookup of an address (with `force` after the switch question). */
export function useConnectEarnings() {
  return useMutation({
    mutationFn: ({ address, force, proof }: { address: string; force?: boolean; proof?: WalletProof }) =>
      fetchEarnings(address, force, proof),
  });
}

/** POST /api/earnings/nonce: the EIP-4361 message the wallet signs to link `address` (single use, 10 min). */
export async function fetchLinkMessage(address: string): Promise<EarningsNonceResponse> {
  try {
    return await api<EarningsNonceResponse>('/api/earnings/nonce', { method: 'POST', body: { address } });
  } catch (err) {
    const b = err instanceof ApiError ? (err.body as { message?: unknown } | undefined) : undefined;
    throw new EarningsError(typeof b?.message === 'string' && b.message ? b.message : GENERIC_MESSAGE, false);
  }
}

/** POST /api/delete_wallet (no payload). */
export function useDeleteWallet() {
  return useMutation({
    mutationFn: () => api<{ success: boolean }>('/api/delete_wallet', { method: 'POST' }),
  });
}

/** GET /api/pool_state, every 10 min (spec §9). */
export function usePoolState() {
  return useQuery({
    queryKey: earningsKeys.pool,
    queryFn: () => api<PoolStateResponse>('/api/pool_state'),
    refetchInterval: POOL_REFRESH_MS,
  });
}

/** GET /api/earnings/history: the pool's size and the user's rewards over time, for the chart. */
export function useEarningsHistory() {
  const { user } = useSession();
  return useQuery({
    queryKey: earningsKeys.history(userIdOf(user)),
    queryFn: () => api<EarningsHistoryResponse>('/api/earnings/history'),
    enabled: !!user,
    refetchInterval: 60_000,
  });
}

/** GET /api/earnings/wallet: the wallet linked to this user, so a reload keeps the page connected. */
export function useLinkedWallet() {
  const { user } = useSession();
  return useQuery({
    queryKey: earningsKeys.wallet(userIdOf(user)),
    queryFn: () => api<EarningsWalletResponse>('/api/earnings/wallet'),
    enabled: !!user,
    staleTime: Infinity,
    retry: false,
  });
}
