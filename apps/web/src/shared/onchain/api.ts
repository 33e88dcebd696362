import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { ChainInfo } from './types';

export const chainKeys = {
  info: ['chain', 'info'] as const,
};

/** GET /api/chain (no login needed): the chain the token lives on, read once per page life. */
export function useChainInfo(enabled = true) {
  return useQuery({
    queryKey: chainKeys.info,
    queryFn: () => api<ChainInfo>('/api/chain'),
    staleTime: 5 * 60_000,
    retry: 1,
    enabled,
  });
}

/**
 * Where a transaction is shown: the configured explorer (`{explorerUrl}/tx/{hash}`, a new tab), or
 * the local chain's own view `/chain/tx/{hash}` when the chain has no public explorer (embedded).
 */
export function txLink(info: Pick<ChainInfo, 'explorerUrl'> | null | undefined, hash: string) {
  const base = info?.explorerUrl?.replace(/\/+$/, '');
  return base
    ? { href: `${base}/tx/${hash}`, external: true }
    : { href: `/chain/tx/${hash}`, external: false };
}

/** An address or token page on the configured explorer; null on a chain without one. */
export function explorerAddressUrl(
  info: Pick<ChainInfo, 'explorerUrl'> | null | undefined,
  address: string,
  kind: 'address' | 'token' = 'address',
): string | null {
  const base = info?.explorerUrl?.replace(/\/+$/, '');
  return base ? `${base}/${kind}/${address}` : null;
}

export const shortHash = (h: string) => (h.length > 14 ? `${h.slice(0, 8)}…${h.slice(-6)}` : h);
export const shortAddress = (a: string) => (a.length > 12 ? `${a.slice(0, 6)}…${a.slice(-4)}` : a);
export const sameAddress = (a: string | null | undefined, b: string | null | undefined) =>
  !!a && !!b && a.toLowerCase() === b.toLowerCase();
