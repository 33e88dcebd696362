import { notifications } from '@mantine/notifications';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../test/renderApp';
import i18n from '../../shared/i18n/index';
import { Header } from './Header';

const ticker = { '/api/ticker': () => json({}) };
const location = () => screen.getByTestId('location').textContent;

/**
 * Opens the trade menu once its part has replaced the stand-in (Deferred.tsx): a click that lands while
 * the two swap is split between them (Deferred.test.tsx covers a click on the stand-in).
 */
async function openTradeMenu(user: ReturnType<typeof userEvent.setup>) {
  // The header's parts come at the visitor's first interaction (wanted.ts): a key press here.
  await user.keyboard('{Shift}');
  await waitFor(() => expect(screen.getByTestId('nav-trade').getAttribute('aria-haspopup')).toBe('menu'));
  await user.click(screen.getByTestId('nav-trade'));
}

describe('Header', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    act(() => notifications.clean());
    vi.unstubAllGlobals();
  });

  it.each([
    ['nav-bots', 'Bots'],
    ['nav-staking', 'Staking'],
    ['nav-loans', 'Loans'],
    ['nav-settings', 'Settings'],
  ])('logged out: %s stays put and shows the login toast', async (testId) => {
    const user = userEvent.setup();
    const show = vi.spyOn(notifications, 'show');
    renderApp(<Header />, { responses: ticker });
    await user.click(screen.getByTestId(testId));
    expect(await screen.findByText('You must be logged in to access ...')).toBeTruthy();
    expect(show).toHaveBeenCalledWith(expect.objectContaining({ autoClose: 3000 }));
    expect(location()).toBe('/');
    show.mockRestore();
  });

  it('logged in: gated links navigate and Log out ends the session', async () => {
    const user = userEvent.setup();
    const { requestedPaths } = renderApp(<Header />, {
      user: { id: 'u1', email: 'ana@example.com' },
      responses: { ...ticker, '/api/logout': () => json({ success: true }) },
    });
    await user.click(screen.getByTestId('nav-bots'));
    expect(location()).toBe('/bot-dca');
    await user.click(screen.getByTestId('nav-settings'));
    expect(location()).toBe('/settings');
    expect(screen.queryByText('You must be logged in to access ...')).toBeNull();
    await user.click(screen.getByTestId('header-logout'));
    await waitFor(() => expect(location()).toBe('/'));
    expect(localStorage.getItem('token')).toBeNull();
    expect(requestedPaths()).toContain('/api/logout');
    await waitFor(() => expect(screen.queryByTestId('header-logout')).toBeNull());
  });

  it('Wallet, Spot and Futures open the development modal for everyone but support', async () => {
    const user = userEvent.setup();
    renderApp(<Header />, { user: { id: 'u1', email: 'ana@example.com' }, responses: ticker });
    await user.click(screen.getByTestId('nav-wallet'));
    const modal = await screen.findByRole('dialog');
    expect(within(modal).getByText('Platform in Development')).toBeTruthy();
    expect(location()).toBe('/');
    await user.click(within(modal).getByTestId('dev-modal-pools'));
    expect(location()).toBe('/earnings-pools');

    await openTradeMenu(user);
    await user.click(await screen.findByTestId('nav-futures'));
    expect(await screen.findByText('Platform in Development')).toBeTruthy();
    expect(location()).toBe('/earnings-pools');
  });

  it('the support account opens Spot and Wallet directly', async () => {
    const user = userEvent.setup();
    renderApp(<Header />, {
      user: { id: 's1', email: 'support@example.com', isSupport: true },
      responses: ticker,
    });
    await user.click(screen.getByTestId('nav-wallet'));
    expect(location()).toBe('/wallet');
    await openTradeMenu(user);
    await user.click(await screen.findByTestId('nav-spot'));
    expect(location()).toBe('/spot');
    expect(screen.queryByText('Platform in Development')).toBeNull();
  });

  it('TRADING_SCREENS=all (canTrade) opens Spot and Futures to any user, but not the Wallet', async () => {
    const user = userEvent.setup();
    renderApp(<Header />, {
      user: { id: 'u3', email: 'trader@example.com', isSupport: false, canTrade: true },
      responses: ticker,
    });
    await openTradeMenu(user);
    await user.click(await screen.findByTestId('nav-futures'));
    expect(location()).toBe('/futuros');
    expect(screen.queryByText('Platform in Development')).toBeNull();
    await user.click(screen.getByTestId('nav-wallet'));
    expect(await screen.findByText('Platform in Development')).toBeTruthy();
    expect(location()).toBe('/futuros');
  });

  it('open links navigate; the language switch changes texts and is remembered', async () => {
    const user = userEvent.setup();
    renderApp(<Header />, { responses: ticker });
    await user.click(screen.getByTestId('nav-forum'));
    expect(location()).toBe('/forum');
    await user.click(screen.getByTestId('nav-register'));
    expect(location()).toBe('/registro');
    await user.click(screen.getByTestId('nav-login'));
    expect(location()).toBe('/login');
    await user.click(screen.getByTestId('nav-home'));
    expect(location()).toBe('/');
    expect(screen.getByTestId('nav-loans').textContent).toBe('Loans');
    await user.click(screen.getByText('ES'));
    await waitFor(() => expect(screen.getByTestId('nav-loans').textContent).toBe('Préstamos'));
    expect(localStorage.getItem('lang')).toBe('es');
    await user.click(screen.getByTestId('nav-bots'));
    expect(await screen.findByText('Debes iniciar sesión para acceder ...')).toBeTruthy();
  });
});
