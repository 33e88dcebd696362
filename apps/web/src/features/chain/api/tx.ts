import type { ChainTxResponse } from '@bytx/contract';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../shared/api/client';

export const isTxHash = (h: string) => /^0x[0-9a-fA-F]{64}$/.test(h);

/** GET /api/chain/tx/{hash}: the local chain's view of one transaction; asked again while it is pending. */
export function useChainTx(hash: string) {
  return useQuery({
    queryKey: ['chain', 'tx', hash.toLowerCase()],
    queryFn: () => api<ChainTxResponse>(`/api/chain/tx/${encodeURIComponent(hash)}`),
    enabled: isTxHash(hash),
    retry: false,
    refetchInterval: (q) => {
      const d = q.state.data;
      return !d || d.status === 'pending' || d.confirmations < 12 ? 3_000 : false;
    },
  });
}
