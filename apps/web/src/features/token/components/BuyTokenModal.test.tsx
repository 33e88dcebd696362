import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { estimatedTokens, isValidAmount } from '../config';
import { BuyTokenModal } from './BuyTokenModal';

const OWNER = '0x1111111111111111111111111111111111111111';
const OTHER = '0x2222222222222222222222222222222222222222';

function fakeWallet(account: string, chainId = '0xa4b1') {
  const request = vi.fn(async ({ method }: { method: string }) => {
    if (method === 'eth_requestAccounts') return [account];
    if (method === 'eth_chainId') return chainId;
    throw new Error(`unexpected ${method}`);
  });
  vi.stubGlobal('ethereum', { request, on: vi.fn(), removeListener: vi.fn() });
  return request;
}

describe('token amount rules', () => {
  it('accepts only numbers above 0', () => {
    expect(isValidAmount('10')).toBe(true);
    expect(isValidAmount('0.5')).toBe(true);
    expect(isValidAmount('.5')).toBe(true);
    for (const bad of ['', '0', '0.0', '-1', 'abc', '1e3', '1,5', ' '])
      expect(isValidAmount(bad)).toBe(false);
  });

  it('estimates tokens at 0.002 USDT each', () => {
    expect(estimatedTokens(1)).toBe(500);
    expect(estimatedTokens(0.3)).toBe(150);
    expect(estimatedTokens(0)).toBe(0);
  });
});

describe('BuyTokenModal', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('shows the fixed price and both payment methods, and validates the amount', async () => {
    const user = userEvent.setup();
    renderApp(<BuyTokenModal opened onClose={() => undefined} ownerAddress={OWNER} />);
    expect(await screen.findByText('Estimated price: 0.002 USDT per BYTX')).toBeTruthy();
    expect(screen.getByText('USDT')).toBeTruthy();
    await user.click(screen.getByText('USDC'));
    expect(screen.getByLabelText('Amount (USDC)')).toBeTruthy();
    await user.click(screen.getByTestId('token-buy'));
    expect(screen.getByTestId('token-error').textContent).toBe('Enter a valid amount');
    await user.type(screen.getByTestId('token-amount'), '10');
    expect(screen.getByTestId('token-estimate').textContent).toContain('5000 BYTX');
    await user.click(screen.getByTestId('token-buy'));
    expect(screen.queryByTestId('token-error')).toBeNull();
    expect(screen.getByTestId('token-notice').textContent).toMatch(/coming release/);
    expect(screen.getByTestId('token-swap').getAttribute('href')).toMatch(/arbitrum/);
  });

  it("says 'MetaMask not detected' without a browser wallet", async () => {
    const user = userEvent.setup();
    renderApp(<BuyTokenModal opened onClose={() => undefined} ownerAddress={OWNER} />);
    await user.click(await screen.findByTestId('token-connect'));
    expect(screen.getByTestId('token-error').textContent).toBe('MetaMask not detected');
  });

  it('shows Withdraw USDT only to the contract owner, and disconnects', async () => {
    const user = userEvent.setup();
    fakeWallet(OWNER.toUpperCase().replace('0X', '0x'));
    renderApp(<BuyTokenModal opened onClose={() => undefined} ownerAddress={OWNER} />);
    await user.click(await screen.findByTestId('token-connect'));
    expect(await screen.findByTestId('token-withdraw')).toBeTruthy();
    await user.click(screen.getByTestId('token-disconnect'));
    expect(screen.queryByTestId('token-withdraw')).toBeNull();
    expect(screen.getByTestId('token-connect')).toBeTruthy();
  });

  it('hides Withdraw USDT from other wallets and warns off Arbitrum One', async () => {
    const user = userEvent.setup();
    fakeWallet(OTHER, '0x1');
    renderApp(<BuyTokenModal opened onClose={() => undefined} ownerAddress={OWNER} />);
    await user.click(await screen.findByTestId('token-connect'));
    await waitFor(() => expect(screen.getByTestId('token-disconnect')).toBeTruthy());
    expect(screen.queryByTestId('token-withdraw')).toBeNull();
    expect(screen.getByTestId('token-error').textContent).toBe('Please connect to Arbitrum One network');
  });
});
