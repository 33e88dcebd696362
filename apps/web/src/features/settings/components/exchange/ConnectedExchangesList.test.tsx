import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { json, renderApp } from '../../../../../test/renderApp';
import i18n from '../../../../shared/i18n/index';
import { ConnectedExchangesList } from './ConnectedExchangesList';

const user = { id: 'u1', email: 'me@example.com' };

/** Issue 38 point 9: what the last re-check of a live key found is shown on its connection, en and es. */
const connections = () =>
  json({
    success: true,
    connections: [
      {
        exchange: 'binance',
        name: 'Binance',
        mode: 'live',
        createdAt: '2025-01-01T00:00:00.000Z',
        key_problem: 'can_withdraw',
        key_checked_at: '2025-01-02T00:00:00.000Z',
      },
      {
        exchange: 'bybit',
        name: 'Bybit',
        mode: 'live',
        createdAt: '2025-01-01T00:00:00.000Z',
        key_problem: 'revoked',
        key_checked_at: '2025-01-02T00:00:00.000Z',
      },
      {
        exchange: 'okx',
        name: 'OKX',
        mode: 'live',
        createdAt: '2025-01-01T00:00:00.000Z',
        key_problem: null,
        key_checked_at: '2025-01-02T00:00:00.000Z',
      },
      { exchange: 'kraken', name: 'Kraken', mode: 'paper', createdAt: '2025-01-01T00:00:00.000Z' },
    ],
  });

describe('ConnectedExchangesList: a re-checked key', () => {
  afterEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('shows a key that can withdraw or was refused, in English', async () => {
    await i18n.changeLanguage('en');
    renderApp(<ConnectedExchangesList />, { user, responses: { '/api/exchanges/connections': connections } });
    expect((await screen.findByTestId('exchange-key-problem-binance')).textContent).toBe('Key can withdraw');
    expect(screen.getByTestId('exchange-key-notice-binance').textContent).toBe(
      'This Binance API key can now withdraw funds: its bots are paused. Create a trade-only key (withdrawals disabled) and connect it again.',
    );
    expect(screen.getByTestId('exchange-key-problem-bybit').textContent).toBe('Key refused');
    expect(screen.getByTestId('exchange-key-notice-bybit').textContent).toMatch(
      /^Bybit refused this API key/,
    );
    // A good key and a paper account show nothing.
    expect(screen.queryByTestId('exchange-key-problem-okx')).toBeNull();
    expect(screen.queryByTestId('exchange-key-problem-kraken')).toBeNull();
  });

  it('shows the same in Spanish', async () => {
    await i18n.changeLanguage('es');
    renderApp(<ConnectedExchangesList />, { user, responses: { '/api/exchanges/connections': connections } });
    expect((await screen.findByTestId('exchange-key-problem-binance')).textContent).toBe('Clave con retiros');
    expect(screen.getByTestId('exchange-key-notice-binance').textContent).toBe(
      'Esta API key de Binance ahora puede retirar fondos: sus bots están en pausa. Crea una clave solo de trading (sin retiros) y vuelve a conectarla.',
    );
    expect(screen.getByTestId('exchange-key-problem-bybit').textContent).toBe('Clave rechazada');
  });
});
