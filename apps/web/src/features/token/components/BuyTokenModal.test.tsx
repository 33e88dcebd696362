import type { ChainInfo } from '@bytx/contract';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { FAKE_ADDRESSES, fakeChain } from '../../../shared/onchain/testing/fakeChain';
import { resetWalletState } from '../../../shared/onchain/wallet';
import { estimatedTokens, first120, isNetworkError, isValidAmount } from '../config';
import { BuyTokenModal } from './BuyTokenModal';

const OWNER = '0x1111111111111111111111111111111111111111';
const BUYER = '0x2222222222222222222222222222222222222222';
const USER = { id: 'u1', email: 'buyer@example.com' };

const CHAIN: ChainInfo = {
  success: true,
  mode: 'embedded',
  chainId: 42161,
  rpcUrl: 'http://localhost/api/chain/rpc',
  explorerUrl: null,
  addresses: FAKE_ADDRESSES,
  owner: OWNER,
  faucet: true,
  confirmations: 2,
  ready: true,
};

const usdt = (n: number) => BigInt(n) * 10n ** 6n;

function install(opts: Parameters<typeof fakeChain>[0]) {
  const chain = fakeChain(opts);
  vi.stubGlobal('ethereum', chain.provider);
  return chain;
}

function open(opts: { chain?: ChainInfo; user?: typeof USER | null; faucet?: () => Response } = {}) {
  return renderApp(<BuyTokenModal opened onClose={() => undefined} />, {
    user: opts.user ?? null,
    responses: {
      '/api/chain': () => json(opts.chain ?? CHAIN),
      '/api/chain/faucet': opts.faucet ?? (() => json({ success: true, message: 'ok' })),
    },
  });
}

describe('token amount rules', () => {
  it('accepts only numbers above 0 with at most the stablecoin 6 decimals', () => {
    expect(isValidAmount('10')).toBe(true);
    expect(isValidAmount('0.5')).toBe(true);
    expect(isValidAmount('.5')).toBe(true);
    expect(isValidAmount('1.123456')).toBe(true);
    for (const bad of ['', '0', '0.0', '-1', 'abc', '1e3', '1,5', ' ', '1.1234567'])
      expect(isValidAmount(bad)).toBe(false);
  });

  it('estimates tokens at 0.002 USDT each and cuts messages at 120 characters', () => {
    expect(estimatedTokens(1)).toBe(500);
    expect(estimatedTokens(0.3)).toBe(150);
    expect(estimatedTokens(0)).toBe(0);
    expect(first120('x'.repeat(200))).toHaveLength(120);
  });
});

describe('BuyTokenModal', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
    resetWalletState();
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('shows the fixed price and both payment methods, and validates the amount before the wallet', async () => {
    const user = userEvent.setup();
    open();
    expect(await screen.findByText('Estimated price: 0.002 USDT per BYTX')).toBeTruthy();
    expect(screen.getByText('USDT')).toBeTruthy();
    await user.click(screen.getByText('USDC'));
    expect(screen.getByLabelText('Amount (USDC)')).toBeTruthy();
    await user.click(screen.getByTestId('token-buy'));
    expect(screen.getByTestId('token-error').textContent).toBe('Enter a valid amount');
    await user.type(screen.getByTestId('token-amount'), '10');
    expect(screen.getByTestId('token-estimate').textContent).toContain('5,000 BYTX');
    // A valid amount without a browser wallet.
    await user.click(screen.getByTestId('token-buy'));
    expect(screen.getByTestId('token-error').textContent).toBe('MetaMask not detected');
    expect(screen.getByTestId('token-swap').getAttribute('href')).toMatch(/arbitrum/);
  });

  it("says 'MetaMask not detected' on connect without a browser wallet", async () => {
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByTestId('token-connect'));
    expect(screen.getByTestId('token-error').textContent).toBe('MetaMask not detected');
  });

  it('buys with USDC: approve → wait → buy → wait, each step linked, then the balance', async () => {
    const user = userEvent.setup();
    const chain = install({ account: BUYER, usdc: usdt(1000) });
    open();
    await user.click(await screen.findByTestId('token-connect'));
    expect((await screen.findByTestId('token-disconnect')).textContent).toBe('Disconnect 0x2222…2222');
    expect(await screen.findByTestId('token-balances')).toBeTruthy();
    expect(screen.getByTestId('token-balances').textContent).toBe(
      'Your wallet: 0 BYTX · 0 USDT · 1,000 USDC',
    );
    expect(screen.queryByTestId('token-withdraw')).toBeNull();

    await user.click(screen.getByText('USDC'));
    await user.type(screen.getByTestId('token-amount'), '10');
    await user.click(screen.getByTestId('token-buy'));
    const success = await screen.findByTestId('token-success', {}, { timeout: 10_000 });
    expect(success.textContent).toBe('Purchase complete: 5,000 BYTX are in your wallet.');

    expect(chain.sent.map((s) => `${s.contract}.${s.functionName}`)).toEqual([
      'usdc.approve',
      'sale.buyTokensWith',
    ]);
    expect(chain.sent[0]!.args).toEqual([FAKE_ADDRESSES.sale, usdt(10)]);
    expect(chain.sent[1]!.args).toEqual([FAKE_ADDRESSES.usdc, usdt(10)]);
    for (const [i, key] of (['approve', 'buy'] as const).entries()) {
      const step = screen.getByTestId(`token-steps-${key}`);
      expect(step.getAttribute('data-status')).toBe('done');
      const link = within(step).getByTestId(`token-steps-${key}-link`);
      expect(link.getAttribute('href')).toBe(`/chain/tx/${chain.sent[i]!.hash}`);
    }
    await waitFor(() =>
      expect(screen.getByTestId('token-balances').textContent).toBe(
        'Your wallet: 5,000 BYTX · 0 USDT · 990 USDC',
      ),
    );
  });

  it("shows 'Purchase error: ' with the contract's error, and the failed step", async () => {
    const user = userEvent.setup();
    install({ account: BUYER, usdt: usdt(1000), revert: { buyTokensWith: 'SoldOut' } });
    open();
    await user.click(await screen.findByTestId('token-connect'));
    await user.type(screen.getByTestId('token-amount'), '5');
    await user.click(screen.getByTestId('token-buy'));
    const error = await screen.findByTestId('token-error', {}, { timeout: 10_000 });
    expect(error.textContent).toBe('Purchase error: Execution reverted: SoldOut()');
    expect(screen.getByTestId('token-steps-approve').getAttribute('data-status')).toBe('done');
    expect(screen.getByTestId('token-steps-buy').getAttribute('data-status')).toBe('error');
  });

  it('says when the wallet rejects the transaction', async () => {
    const user = userEvent.setup();
    install({ account: BUYER, usdt: usdt(1000), rejectSends: true });
    open();
    await user.click(await screen.findByTestId('token-connect'));
    await user.type(screen.getByTestId('token-amount'), '5');
    await user.click(screen.getByTestId('token-buy'));
    const error = await screen.findByTestId('token-error', {}, { timeout: 10_000 });
    expect(error.textContent).toBe('Purchase error: User rejected the request.');
    expect(screen.getByTestId('token-steps-approve').getAttribute('data-status')).toBe('error');
  });

  it("warns off the platform's chain and switches, adding the chain with the proxy RPC when unknown", async () => {
    const user = userEvent.setup();
    const chain = install({ account: BUYER, chainId: 1, knownChains: [1] });
    open();
    await user.click(await screen.findByTestId('token-connect'));
    expect((await screen.findByTestId('token-network-text')).textContent).toBe(
      'Please connect to Arbitrum One network',
    );
    // Buying waits for the right network.
    await user.type(screen.getByTestId('token-amount'), '5');
    await user.click(screen.getByTestId('token-buy'));
    expect(chain.sent).toHaveLength(0);

    await user.click(screen.getByTestId('token-switch-network'));
    await waitFor(() => expect(screen.queryByTestId('token-network')).toBeNull());
    expect(chain.state.chainId).toBe(42161);
    expect(chain.methods.filter((m) => m.startsWith('wallet_'))).toEqual([
      'wallet_switchEthereumChain',
      'wallet_addEthereumChain',
      'wallet_switchEthereumChain',
    ]);
  });

  it('shows Withdraw USDT only to the sale owner, who takes the whole USDT balance', async () => {
    const user = userEvent.setup();
    const chain = install({ account: OWNER, saleUsdt: usdt(250) });
    open();
    await user.click(await screen.findByTestId('token-connect'));
    await user.click(await screen.findByTestId('token-withdraw'));
    expect((await screen.findByTestId('token-success', {}, { timeout: 10_000 })).textContent).toBe(
      'Withdrawn: 250 USDT sent to your wallet.',
    );
    expect(chain.sent.map((s) => s.functionName)).toEqual(['withdrawUSDT']);
    expect(chain.sent[0]!.args).toEqual([OWNER, usdt(250)]);
    await user.click(screen.getByTestId('token-disconnect'));
    expect(screen.queryByTestId('token-withdraw')).toBeNull();
  });

  it('prefixes the withdrawal error with a cross', async () => {
    const user = userEvent.setup();
    install({ account: OWNER, saleUsdt: 0n });
    open();
    await user.click(await screen.findByTestId('token-connect'));
    await user.click(await screen.findByTestId('token-withdraw'));
    expect((await screen.findByTestId('token-error')).textContent).toBe(
      '❌ Withdrawal error: The sale holds no USDT to withdraw.',
    );
  });

  it('gives test USDT from the faucet to a logged-in user on the embedded chain', async () => {
    const user = userEvent.setup();
    install({ account: BUYER });
    const { fetchMock } = open({ user: USER });
    await user.click(await screen.findByTestId('token-connect'));
    await user.click(await screen.findByTestId('token-faucet'));
    expect((await screen.findByTestId('token-success')).textContent).toBe(
      'Test funds sent: 1,000 USDT, 1,000 USDC and 1 ETH for gas.',
    );
    const call = fetchMock.mock.calls.find(([u]) =>
      (u as URL | string).toString().includes('/api/chain/faucet'),
    );
    expect(JSON.parse(call![1]!.body as string)).toEqual({ address: BUYER });
  });

  it("shows the faucet's refusal as the server writes it", async () => {
    const user = userEvent.setup();
    install({ account: BUYER });
    open({
      user: USER,
      faucet: () =>
        json({ success: false, message: 'The faucet gives test tokens once every 10 minutes.' }, 429),
    });
    await user.click(await screen.findByTestId('token-connect'));
    await user.click(await screen.findByTestId('token-faucet'));
    expect((await screen.findByTestId('token-error')).textContent).toBe(
      'The faucet gives test tokens once every 10 minutes.',
    );
  });

  it('asks a visitor to log in for test USDT, and links transactions to a real explorer', async () => {
    const user = userEvent.setup();
    install({ account: BUYER, usdt: usdt(100) });
    open({ chain: { ...CHAIN, mode: 'rpc', faucet: false, explorerUrl: 'https://arbiscan.io' } });
    await user.click(await screen.findByTestId('token-connect'));
    expect(screen.queryByTestId('token-faucet')).toBeNull();
    await user.type(screen.getByTestId('token-amount'), '1');
    await user.click(screen.getByTestId('token-buy'));
    await screen.findByTestId('token-success', {}, { timeout: 10_000 });
    expect(screen.getByTestId('token-steps-buy-link').getAttribute('href')).toMatch(
      /^https:\/\/arbiscan\.io\/tx\/0x[0-9a-f]{64}$/,
    );

    resetWalletState();
  });

  it('says so when the server has no chain', async () => {
    const user = userEvent.setup();
    install({ account: BUYER });
    open({ chain: { ...CHAIN, mode: 'off', addresses: null, owner: null, faucet: false, rpcUrl: null } });
    await screen.findByTestId('token-connect');
    await user.type(screen.getByTestId('token-amount'), '1');
    await user.click(screen.getByTestId('token-buy'));
    await waitFor(() =>
      expect(screen.getByTestId('token-error').textContent).toBe(
        "The token's chain is not configured on this server.",
      ),
    );
  });

  it('speaks Spanish', async () => {
    await i18n.changeLanguage('es');
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByTestId('token-buy'));
    expect(screen.getByTestId('token-error').textContent).toBe('Introduce una cantidad válida');
    await user.click(screen.getByTestId('token-connect'));
    expect(screen.getByTestId('token-error').textContent).toBe('MetaMask no detectado');
    await i18n.changeLanguage('en');
  });

  /** The wallet's node cannot be reached: reads and sends fail as MetaMask reports a failed fetch. */
  function offline(chain: ReturnType<typeof install>) {
    const real = chain.provider.request.bind(chain.provider);
    chain.provider.request = async (args: { method: string; params?: unknown }) => {
      if (['eth_call', 'eth_estimateGas', 'eth_sendTransaction', 'eth_blockNumber'].includes(args.method)) {
        // MetaMask's shape: a plain object with a code, the fetch failure inside.
        throw Object.assign(new Error('Internal JSON-RPC error.'), {
          code: -32603,
          data: { originalError: { message: 'Failed to fetch' } },
        });
      }
      return real(args as never);
    };
  }

  it("says 'could not detect network' when the provider's network fails (spec §8, NETWORK_ERROR)", async () => {
    const user = userEvent.setup();
    offline(install({ account: BUYER, usdt: usdt(1000) }));
    open();
    await user.click(await screen.findByTestId('token-connect'));
    expect((await screen.findByTestId('token-network-error')).textContent).toBe('could not detect network');
    await user.type(screen.getByTestId('token-amount'), '5');
    await user.click(screen.getByTestId('token-buy'));
    const error = await screen.findByTestId('token-error', {}, { timeout: 10_000 });
    expect(error.textContent).toBe('Purchase error: could not detect network');
  });

  it("says 'could not detect network' in Spanish too, and for the owner's withdrawal", async () => {
    await i18n.changeLanguage('es');
    try {
      const user = userEvent.setup();
      offline(install({ account: OWNER, saleUsdt: usdt(5) }));
      open();
      await user.click(await screen.findByTestId('token-connect'));
      expect((await screen.findByTestId('token-network-error')).textContent).toBe(
        'no se pudo detectar la red',
      );
      await user.click(await screen.findByTestId('token-withdraw'));
      const error = await screen.findByTestId('token-error', {}, { timeout: 10_000 });
      expect(error.textContent).toBe('❌ Error de retiro: no se pudo detectar la red');
    } finally {
      await i18n.changeLanguage('en');
    }
  });

  it('tells a network failure from a refusal or a revert', () => {
    expect(isNetworkError({ code: 'NETWORK_ERROR', message: 'x' })).toBe(true);
    expect(isNetworkError(new TypeError('Failed to fetch'))).toBe(true);
    expect(isNetworkError({ code: -32603, message: 'The chain did not answer.' })).toBe(true);
    expect(isNetworkError(Object.assign(new Error('outer'), { cause: { name: 'HttpRequestError' } }))).toBe(
      true,
    );
    expect(isNetworkError({ code: 4001, message: 'User rejected the request.' })).toBe(false);
    expect(isNetworkError(new Error('Execution reverted: SoldOut()'))).toBe(false);
    expect(isNetworkError(null)).toBe(false);
  });
});
