import { useQuery } from '@tanstack/react-query';
import type { ChainContext } from './actions';
import { loadChainActions } from './load';
import { isLive, type ChainInfo } from './types';
import { browserWallet, type BrowserWallet } from './wallet';

/** What every on-chain action needs, or null while the wallet is absent, off-chain or not connected. */
export function chainContext(info: ChainInfo | null | undefined, wallet: BrowserWallet): ChainContext | null {
  const provider = browserWallet();
  if (!provider || !isLive(info) || !wallet.account || wallet.wrongChain) return null;
  return { provider, info, account: wallet.account };
}

export const balanceKeys = {
  wallet: (account: string | null, chainId: number | null) =>
    ['chain', 'balances', account, chainId] as const,
};

/** The connected account's BYTX, USDT and USDC balances, read through the wallet (every 15 s). */
export function useWalletBalances(info: ChainInfo | null | undefined, wallet: BrowserWallet) {
  const ctx = chainContext(info, wallet);
  return useQuery({
    queryKey: balanceKeys.wallet(wallet.account, wallet.chainId),
    queryFn: async () => (await loadChainActions()).readBalances(ctx!),
    enabled: ctx !== null,
    refetchInterval: 15_000,
    retry: false,
  });
}
