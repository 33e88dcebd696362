import type {
  AddressMapResponse,
  AddressResponse,
  DerivativesWalletResponse,
  ExchangeConnectionsResponse,
  MarketTickerResponse,
  WalletResetResponse,
  WalletResponse,
} from '@bytx/contract';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
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

/** Coins worth one USDT each for the total (spec part 2 §9: the global history's stablecoins). */
export const USD_STABLES: readonly string[] = ['USDT', 'USDC', 'BUSD', 'USD'];

/**
 * The last USDT price of each held coin on the account's own exchange (GET /api/market/ticker
 * `COIN/USDT`): symbol -> price, null when that market does not answer (the coin cannot be valued),
 * undefined while it loads. Stablecoins are not asked. Only held coins: a few calls, not 26.
 */
export function useCoinPrices(
  exchange: string | null,
  coins: readonly string[],
): Record<string, number | null | undefined> {
  const asked = exchange ? coins.filter((c) => !USD_STABLES.includes(c)) : [];
  const results = useQueries({
    queries: asked.map((coin) => ({
      queryKey: ['wallet', 'price', exchange, coin] as const,
      queryFn: async () =>
        (
          await api<MarketTickerResponse>('/api/market/ticker', {
            query: { exchange: exchange ?? '', symbol: `${coin}/USDT` },
          })
        ).last,
      refetchInterval: 15_000,
      retry: false,
    })),
  });
  const out: Record<string, number | null | undefined> = {};
  asked.forEach((coin, i) => {
    const r = results[i];
    if (r?.data !== undefined) out[coin] = Number.isFinite(r.data) && r.data > 0 ? r.data : null;
    else out[coin] = r?.isError ? null : undefined;
  });
  return out;
}
