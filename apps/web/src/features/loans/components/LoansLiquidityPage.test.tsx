import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { LoansLiquidityPage } from './LoansLiquidityPage';

describe('LoansLiquidityPage', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('shows the borrow summary values and makes no calls', async () => {
    const { requestedPaths } = renderApp(<LoansLiquidityPage />);
    expect(screen.getByTestId('loans-initial-ltv').textContent).toBe('70%');
    expect(screen.getByTestId('loans-margin-call').textContent).toBe('80%');
    expect(screen.getByTestId('loans-liquidation').textContent).toBe('90%');
    expect(screen.getByTestId('loans-hourly').textContent).toBe('0.0018%');
    expect(screen.getByTestId('loans-annual').textContent).toBe('15.94%');
    expect(screen.getByTestId('loans-remaining').textContent).toBe('1,600,000 USDT');
    await new Promise((r) => setTimeout(r, 50));
    // Only the session provider may call (it does not without a stored token).
    expect(requestedPaths().filter((p) => p !== '/api/me')).toEqual([]);
  });

  it('says it is a preview before any click, and formats its figures in Spanish', async () => {
    renderApp(<LoansLiquidityPage />);
    expect(screen.getByTestId('loans-preview').textContent).toContain('Loans and liquidity are not open yet');
    await i18n.changeLanguage('es');
    await waitFor(() => expect(screen.getByTestId('loans-preview').textContent).toContain('Vista previa'));
    expect(screen.getByTestId('loans-remaining').textContent).toBe('1.600.000 USDT');
    expect(screen.getByTestId('loans-hourly').textContent?.replace(/\s/g, ' ')).toBe('0,0018 %');
    expect(screen.getByTestId('loans-annual').textContent?.replace(/\s/g, ' ')).toBe('15,94 %');
  });

  it('lists the borrow assets and the six collaterals', async () => {
    const user = userEvent.setup();
    renderApp(<LoansLiquidityPage />);
    // Mantine keeps the closed dropdown in a hidden state while it animates: read the option texts.
    const optionTexts = async (label: string) => {
      const input = screen.getByRole('combobox', { name: label });
      await user.click(input);
      await waitFor(() => expect(input.getAttribute('aria-controls')).toBeTruthy());
      const listbox = document.getElementById(input.getAttribute('aria-controls')!)!;
      return within(listbox)
        .getAllByRole('option', { hidden: true })
        .map((o) => o.textContent);
    };
    expect(await optionTexts('Asset to borrow')).toEqual(['USDT', 'USDC']);
    await user.keyboard('{Escape}');
    expect(await optionTexts('Collateral')).toEqual(['BTC', 'ETH', 'BYTX', 'LTC', 'XRP', 'SOL']);
  });

  it('switches to the Liquidity tab and opens the Connect Wallet dialog with four providers', async () => {
    const user = userEvent.setup();
    renderApp(<LoansLiquidityPage />);
    await user.click(screen.getByTestId('loans-tab-liquidity'));
    expect(screen.getByTestId('loans-pool-apy').textContent).toBe('15%');
    expect(screen.getByTestId('loans-pool-size').textContent).toBe('1,234,567 USDT');
    expect(screen.queryByTestId('loans-summary')).toBeNull();
    await user.click(screen.getByTestId('loans-connect-wallet'));
    const dialog = await screen.findByRole('dialog');
    const names = within(dialog)
      .getAllByTestId('loans-wallet-provider')
      .map((b) => b.textContent);
    expect(names).toEqual(['MetaMask', 'WalletConnect', 'Coinbase Wallet', 'Trust Wallet']);
    await user.click(within(dialog).getByText('MetaMask'));
    expect(within(dialog).getByTestId('loans-wallet-notice').textContent).toMatch(/not available yet/);
  });
});
