import { useCallback, useSyncExternalStore } from 'react';
import type { ChainInfo, Eip1193Provider, Hex } from './types';

/** The browser wallet (MetaMask and the like), if the page has one. */
export const browserWallet = (): Eip1193Provider | undefined =>
  typeof window === 'undefined' ? undefined : (window as unknown as { ethereum?: Eip1193Provider }).ethereum;

/** No `window.ethereum`: the screens say 'MetaMask not detected'. */
export class WalletMissingError extends Error {
  constructor() {
    super('MetaMask not detected');
    this.name = 'WalletMissingError';
  }
}

export const ARBITRUM_ONE = 42161;
export const toHexChainId = (id: number) => `0x${id.toString(16)}`;

const firstAccount = (v: unknown): Hex | null =>
  Array.isArray(v) && typeof v[0] === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v[0]) ? (v[0] as Hex) : null;

const parseChainId = (v: unknown): number | null => {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return null;
  const n = v.startsWith('0x') ? parseInt(v, 16) : Number(v);
  return Number.isFinite(n) ? n : null;
};

/** The chain's display name for the wallet ("Add network" dialog). */
export function chainName(info: Pick<ChainInfo, 'chainId' | 'mode'>): string {
  if (info.mode === 'embedded') return `BYTX local chain (${info.chainId})`;
  return info.chainId === ARBITRUM_ONE ? 'Arbitrum One' : `Chain ${info.chainId}`;
}

const errorCode = (err: unknown): number | undefined => {
  const e = err as { code?: unknown; data?: { originalError?: { code?: unknown } } } | null;
  if (typeof e?.code === 'number') return e.code;
  const inner = e?.data?.originalError?.code;
  return typeof inner === 'number' ? inner : undefined;
};

/**
 * Moves the wallet to the platform's chain: `wallet_switchEthereumChain`, and when the wallet does not
 * know the chain (EIP-3326 code 4902) `wallet_addEthereumChain` with the server's RPC URL (the embedded
 * chain's proxy `/api/chain/rpc`), then the switch again.
 */
export async function switchWalletChain(
  eth: Eip1193Provider,
  info: Pick<ChainInfo, 'chainId' | 'mode' | 'rpcUrl' | 'explorerUrl'>,
): Promise<void> {
  const chainId = toHexChainId(info.chainId);
  try {
    await eth.request({ method: 'wallet_switchEthereumChain', params: [{ chainId }] });
    return;
  } catch (err) {
    const unknownChain =
      errorCode(err) === 4902 ||
      /unrecognized chain|unknown chain|4902/i.test(String((err as Error)?.message));
    if (!unknownChain) throw err;
  }
  await eth.request({
    method: 'wallet_addEthereumChain',
    params: [
      {
        chainId,
        chainName: chainName(info),
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: info.rpcUrl ? [info.rpcUrl] : [],
        ...(info.explorerUrl ? { blockExplorerUrls: [info.explorerUrl] } : {}),
      },
    ],
  });
  await eth.request({ method: 'wallet_switchEthereumChain', params: [{ chainId }] });
}

interface WalletState {
  account: Hex | null;
  chainId: number | null;
}

/**
 * The connected browser wallet, one for the whole page: connecting in the token modal also connects
 * the earnings page and the plans. Kept in memory only (a reload asks the wallet again).
 */
let state: WalletState = { account: null, chainId: null };
const listeners = new Set<() => void>();
const emit = (next: Partial<WalletState>) => {
  state = { ...state, ...next };
  for (const l of listeners) l();
};
const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};
const snapshot = () => state;

/**
 * The wallet whose `accountsChanged` / `chainChanged` the state follows. Subscribed when a connection
 * is asked for, not in a component's effect: an effect runs after the paint that shows the connected
 * wallet, so an account switch in that gap was lost and the page kept showing the old account.
 * Events while no account is connected are ignored (a disconnect is not undone by the wallet).
 */
let followed: { eth: Eip1193Provider; stop: () => void } | null = null;
function follow(eth: Eip1193Provider) {
  if (followed?.eth === eth) return;
  followed?.stop();
  followed = null;
  if (!eth.on) return;
  const onAccounts = (...args: unknown[]) => {
    if (state.account === null) return;
    const account = firstAccount(args[0]);
    emit(account ? { account } : { account: null, chainId: null });
  };
  const onChain = (...args: unknown[]) => {
    if (state.account !== null) emit({ chainId: parseChainId(args[0]) });
  };
  eth.on('accountsChanged', onAccounts);
  eth.on('chainChanged', onChain);
  followed = {
    eth,
    stop: () => {
      eth.removeListener?.('accountsChanged', onAccounts);
      eth.removeListener?.('chainChanged', onChain);
    },
  };
}

/** For tests: forget the connected wallet (and stop following its events). */
export const resetWalletState = () => {
  followed?.stop();
  followed = null;
  emit({ account: null, chainId: null });
};

/** Asks the wallet for its account and chain (opens its connect prompt). */
export async function connectWallet(): Promise<WalletState> {
  const eth = browserWallet();
  if (!eth) throw new WalletMissingError();
  follow(eth);
  const account = firstAccount(await eth.request({ method: 'eth_requestAccounts' }));
  if (!account) throw new Error('The wallet gave no account.');
  const chainId = parseChainId(await eth.request({ method: 'eth_chainId' }).catch(() => null));
  emit({ account, chainId });
  return { account, chainId };
}

export interface BrowserWallet extends WalletState {
  /** The page has a browser wallet. */
  available: boolean;
  /** Connected, but on another chain than `expectedChainId`. */
  wrongChain: boolean;
  connect: () => Promise<WalletState>;
  disconnect: () => void;
  /** Switches (or adds, then switches) the wallet to the platform's chain. */
  switchChain: (info: Pick<ChainInfo, 'chainId' | 'mode' | 'rpcUrl' | 'explorerUrl'>) => Promise<void>;
}

/** The page's browser wallet, following its account and chain changes. */
export function useBrowserWallet(expectedChainId: number | null | undefined): BrowserWallet {
  const current = useSyncExternalStore(subscribe, snapshot, snapshot);

  const disconnect = useCallback(() => emit({ account: null, chainId: null }), []);
  const switchChain = useCallback(async (info: Parameters<BrowserWallet['switchChain']>[0]) => {
    const eth = browserWallet();
    if (!eth) throw new WalletMissingError();
    await switchWalletChain(eth, info);
    emit({ chainId: parseChainId(await eth.request({ method: 'eth_chainId' })) });
  }, []);

  return {
    ...current,
    available: !!browserWallet(),
    wrongChain:
      current.account !== null &&
      expectedChainId !== null &&
      expectedChainId !== undefined &&
      current.chainId !== expectedChainId,
    connect: connectWallet,
    disconnect,
    switchChain,
  };
}
