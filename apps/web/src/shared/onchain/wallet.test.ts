import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeChain } from './testing/fakeChain';
import { connectWallet, resetWalletState, useBrowserWallet } from './wallet';

const BUYER = '0x2222222222222222222222222222222222222222' as const;
const OWNER = '0x1111111111111111111111111111111111111111' as const;

function install(account: `0x${string}` = BUYER) {
  const chain = fakeChain({ account });
  vi.stubGlobal('ethereum', chain.provider);
  return chain;
}

describe('the browser wallet state', () => {
  beforeEach(() => resetWalletState());
  afterEach(() => {
    resetWalletState();
    vi.unstubAllGlobals();
  });

  it('follows an account switch that comes before any component has rendered the connection', async () => {
    const chain = install();
    await connectWallet();
    // The wallet switches accounts at once; no React effect has run yet.
    chain.emit('accountsChanged', [OWNER]);
    const { result } = renderHook(() => useBrowserWallet(42161));
    expect(result.current.account).toBe(OWNER);
  });

  it('follows the chain, and forgets the wallet when it reports no account', async () => {
    const chain = install();
    const { result } = renderHook(() => useBrowserWallet(42161));
    await act(() => connectWallet());
    expect(result.current).toMatchObject({ account: BUYER, chainId: 42161, wrongChain: false });
    act(() => chain.emit('chainChanged', '0x1'));
    expect(result.current).toMatchObject({ chainId: 1, wrongChain: true });
    act(() => chain.emit('accountsChanged', []));
    expect(result.current).toMatchObject({ account: null, chainId: null });
  });

  it('is not reconnected by the wallet after the user disconnected', async () => {
    const chain = install();
    const { result } = renderHook(() => useBrowserWallet(42161));
    await act(() => connectWallet());
    act(() => result.current.disconnect());
    act(() => chain.emit('accountsChanged', [OWNER]));
    act(() => chain.emit('chainChanged', '0x1'));
    expect(result.current).toMatchObject({ account: null, chainId: null });
  });

  it('follows only the wallet it connected last (a page whose wallet object was replaced)', async () => {
    const first = install();
    await connectWallet();
    vi.unstubAllGlobals();
    const second = install(OWNER);
    const { result } = renderHook(() => useBrowserWallet(42161));
    await act(() => connectWallet());
    expect(result.current.account).toBe(OWNER);
    act(() => first.emit('accountsChanged', [BUYER]));
    expect(result.current.account).toBe(OWNER);
    act(() => second.emit('accountsChanged', [BUYER]));
    expect(result.current.account).toBe(BUYER);
  });
});
