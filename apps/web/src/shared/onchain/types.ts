import type { ChainInfo } from '@bytx/contract';

export type { ChainInfo };

/** A 0x-prefixed hex string (addresses, hashes, calldata). */
export type Hex = `0x${string}`;

/** The contracts of the platform token (GET /api/chain `addresses`). */
export interface ChainAddresses {
  token: Hex;
  sale: Hex;
  pool: Hex;
  plans: Hex;
  usdt: Hex;
  usdc: Hex;
}

/** A chain with contracts and an RPC URL: every on-chain action needs one. */
export type LiveChain = Omit<ChainInfo, 'addresses' | 'rpcUrl'> & {
  addresses: ChainAddresses;
  rpcUrl: string;
};

/** The chain is on and its contracts are deployed. */
export const isLive = (info: ChainInfo | null | undefined): info is ChainInfo & LiveChain =>
  !!info && info.mode !== 'off' && !!info.addresses && !!info.rpcUrl;

/** The EIP-1193 provider a browser wallet (MetaMask and the like) injects as `window.ethereum`. */
export interface Eip1193Provider {
  request: (args: { method: string; params?: unknown[] | Record<string, unknown> }) => Promise<unknown>;
  on?: (event: string, listener: (...args: unknown[]) => void) => void;
  removeListener?: (event: string, listener: (...args: unknown[]) => void) => void;
}
