import type {
  ConectarExchangeBody,
  ConectarExchangeResponse,
  EstadoConexionResponse,
  ExchangeConnectionsResponse,
} from '@bytx/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../shared/api/client';
import { userIdOf, useSession } from '../../../shared/session/session';

export const exchangesKeys = {
  all: ['exchanges'] as const,
  status: (user: string) => ['exchanges', 'status', user] as const,
  connections: (user: string) => ['exchanges', 'connections', user] as const,
};

export const fetchConnectionStatus = (user_id: string) =>
  api<EstadoConexionResponse>('/api/estado_conexion', { method: 'POST', body: { user_id } });
export const fetchConnections = () => api<ExchangeConnectionsResponse>('/api/exchanges/connections');
export const connectExchange = (body: ConectarExchangeBody) =>
  api<ConectarExchangeResponse>('/api/conectar_exchange', { method: 'POST', body });
export const removeExchange = (exchange: string, user_id: string) =>
  api<{ success: boolean; message?: string }>('/api/eliminar_exchange', {
    method: 'POST',
    body: { exchange, user_id },
  });

/** exchange key -> connected (paper or live), for all 20 keys. */
export function useConnectionStatus() {
  const { user } = useSession();
  const uid = userIdOf(user);
  return useQuery({
    queryKey: exchangesKeys.status(uid),
    queryFn: async () => (await fetchConnectionStatus(uid)).conexiones,
    enabled: !!user,
  });
}

export function useConnections() {
  const { user } = useSession();
  return useQuery({
    queryKey: exchangesKeys.connections(userIdOf(user)),
    queryFn: async () => (await fetchConnections()).connections,
    enabled: !!user,
  });
}

/** After a connect or a removal every screen reading connections, balances or venues reloads. */
function useRefreshAll() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries();
}

export function useConnectExchange() {
  const refresh = useRefreshAll();
  return useMutation({ mutationFn: connectExchange, onSuccess: refresh });
}

export function useRemoveExchange() {
  const { user } = useSession();
  const refresh = useRefreshAll();
  return useMutation({
    mutationFn: (exchange: string) => removeExchange(exchange, userIdOf(user)),
    onSuccess: refresh,
  });
}
