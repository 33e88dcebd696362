import type {
  AddressMapResponse,
  AddressResponse,
  DerivativesWalletResponse,
  ExchangeConnectionsResponse,
  WalletResetResponse,
  WalletResponse,
} from '@bytx/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../shared/api/client';
import { userIdOf, useSession } from '../../../shared/session/session';

export const walletKeys = {
  balances: (user: string, exchange: string | null) => ['wallet', 'balances', user, exchange] as const,
  addresses: (user: string, exchange: string | null) => ['wallet', 'addresses', user, exchange] as const,
  connections: (user: string) => ['wallet', 'connections', user] as const,
  derivatives: (user: string, exchange: string | null) => ['wallet', 'derivatives', user, exchange] as const,
};

/** Balances of the chosen connection (null: the server's default choice). */
export function useBalances(exchange: string | null) {
  const { user } = useSession();
  const uid = userIdOf(user);
  return useQuery({
    queryKey: walletKeys.balances(uid, exchange),
    queryFn: () =>
      api<WalletResponse>('/api/wallet', { query: { user_id: uid, exchange: exchange ?? undefined } }),
    enabled: !!user,
    refetchInterval: 15_000,
  });
}

/** The derivatives wallet and open positions of the chosen connection (marks move: polled). */
export function useDerivatives(exchange: string | null) {
  const { user } = useSession();
  const uid = userIdOf(user);
  return useQuery({
    queryKey: walletKeys.derivatives(uid, exchange),
    queryFn: () =>
      api<DerivativesWalletResponse>('/api/wallet/derivatives', {
        query: { user_id: uid, exchange: exchange ?? undefined },
      }),
    enabled: !!user,
    refetchInterval: 15_000,
  });
}

export function useAddresses(exchange: string | null) {
  const { user } = useSession();
  return useQuery({
    queryKey: walletKeys.addresses(userIdOf(user), exchange),
    queryFn: () => api<AddressMapResponse>('/api/address', { query: { exchange: exchange ?? undefined } }),
    enabled: !!user,
  });
}

export function useWalletConnections() {
  const { user } = useSession();
  return useQuery({
    queryKey: walletKeys.connections(userIdOf(user)),
    queryFn: async () => (await api<ExchangeConnectionsResponse>('/api/exchanges/connections')).connections,
    enabled: !!user,
  });
}

/** Generate New Address: the answer is written into the address map at once. */
export function useGenerateAddress(exchange: string | null) {
  const { user } = useSession();
  const queryClient = useQueryClient();
  const key = walletKeys.addresses(userIdOf(user), exchange);
  return useMutation({
    mutationFn: (symbol: string) =>
      api<AddressResponse>('/api/address', {
        method: 'POST',
        body: { symbol, ...(exchange ? { exchange } : {}) },
      }),
    onSuccess: (res, symbol) => {
      queryClient.setQueryData<AddressMapResponse>(key, (old) => ({ ...(old ?? {}), [symbol]: res.address }));
    },
  });
}

/** Reset balances of a paper account (POST /api/wallet/reset); every wallet read is refreshed after. */
export function useResetPaper() {
  const { user } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (exchange: string) =>
      api<WalletResetResponse>('/api/wallet/reset', {
        method: 'POST',
        body: { exchange, user_id: userIdOf(user) },
      }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['wallet'] }),
  });
}
