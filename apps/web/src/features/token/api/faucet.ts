import type { FaucetResponse } from '@bytx/contract';
import { useMutation } from '@tanstack/react-query';
import { api } from '../../../shared/api/client';

/** POST /api/chain/faucet (embedded chain only): test USDT, USDC and ETH to the connected address. */
export function useFaucet() {
  return useMutation({
    mutationFn: (address: string) =>
      api<FaucetResponse>('/api/chain/faucet', { method: 'POST', body: { address } }),
  });
}
