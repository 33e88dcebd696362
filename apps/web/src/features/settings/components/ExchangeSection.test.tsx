import { EXCHANGE_KEYS } from '@bytx/contract';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { ExchangeSection } from './ExchangeSection';

const user = { id: 'u1', email: 'me@example.com' };
const status = (connected: string[] = []) =>
  json({ conexiones: Object.fromEntries(EXCHANGE_KEYS.map((k) => [k, connected.includes(k)])) });

describe('ExchangeSection', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('shows the red badge and the alert for an unconnected exchange, green once connected', async () => {
    let connected: string[] = [];
    const { requestedPaths } = renderApp(<ExchangeSection />, {
      user,
      responses: {
        '/api/estado_conexion': () => status(connected),
        '/api/exchanges/connections': () =>
          json({
            success: true,
            connections: connected.map((exchange) => ({
              exchange,
              name: 'Binance',
              mode: 'paper',
              createdAt: '2025-01-01T00:00:00.000Z',
            })),
          }),
        '/api/conectar_exchange': () => {
          connected = ['binance'];
          return json({ success: true, exchange: 'binance', mode: 'paper' });
        },
      },
    });
    expect(await screen.findByText('❌ Not connected')).toBeTruthy();
    expect(screen.getByTestId('exchange-not-connected')).toBeTruthy();
    await userEvent.click(screen.getByText('Paper trading (no keys)'));
    await userEvent.click(screen.getByTestId('exchange-connect'));
    expect(await screen.findByText('✅ Connected')).toBeTruthy();
    expect(screen.queryByTestId('exchange-not-connected')).toBeNull();
    expect(await screen.findByTestId('exchange-row-binance')).toBeTruthy();
    expect(requestedPaths()).toContain('/api/conectar_exchange');
  });

  it('asks for both keys without calling the server', async () => {
    const { requestedPaths } = renderApp(<ExchangeSection />, {
      user,
      responses: { '/api/estado_conexion': () => status() },
    });
    await screen.findByText('❌ Not connected');
    await userEvent.type(screen.getByTestId('exchange-api-key'), 'only-a-key');
    await userEvent.click(screen.getByTestId('exchange-connect'));
    expect((await screen.findByTestId('exchange-note')).textContent).toBe(
      'Please complete API Key and API Secret before connecting.',
    );
    expect(requestedPaths()).not.toContain('/api/conectar_exchange');
  });

  it("shows the server's error, or the generic one, after a cross", async () => {
    let answer = () => json({ success: false, error: 'Binance refused these API keys.' }, 400);
    renderApp(<ExchangeSection />, {
      user,
      responses: {
        '/api/estado_conexion': () => status(),
        '/api/conectar_exchange': () => answer(),
      },
    });
    await screen.findByText('❌ Not connected');
    await userEvent.type(screen.getByTestId('exchange-api-key'), 'k');
    await userEvent.type(screen.getByTestId('exchange-api-secret'), 's');
    await userEvent.click(screen.getByTestId('exchange-connect'));
    await waitFor(() =>
      expect(screen.getByTestId('exchange-note').textContent).toBe('❌ Binance refused these API keys.'),
    );
    answer = () => new Response('oops', { status: 500 });
    await userEvent.click(screen.getByTestId('exchange-connect'));
    await waitFor(() =>
      expect(screen.getByTestId('exchange-note').textContent).toBe('❌ Could not connect to exchange.'),
    );
  });

  it('says when the exchange does not show whether the key can withdraw (issue 37 #12)', async () => {
    let check = 'unchecked';
    renderApp(<ExchangeSection />, {
      user,
      responses: {
        '/api/estado_conexion': () => status(),
        '/api/conectar_exchange': () =>
          json({ success: true, exchange: 'binance', mode: 'live', message: 'ok', withdraw_check: check }),
      },
    });
    await screen.findByText('❌ Not connected');
    await userEvent.type(screen.getByTestId('exchange-api-key'), 'k');
    await userEvent.type(screen.getByTestId('exchange-api-secret'), 's');
    await userEvent.click(screen.getByTestId('exchange-connect'));
    await waitFor(() =>
      expect(screen.getByTestId('exchange-withdraw-notice').textContent).toBe(
        '⚠️ Binance does not show whether an API key can withdraw, so we could not check it: make sure this key has withdrawals disabled.',
      ),
    );
    check = 'checked';
    await userEvent.type(screen.getByTestId('exchange-api-key'), 'k');
    await userEvent.type(screen.getByTestId('exchange-api-secret'), 's');
    await userEvent.click(screen.getByTestId('exchange-connect'));
    await waitFor(() =>
      expect(screen.getByTestId('exchange-note').textContent).toBe('✅ Binance connected.'),
    );
    expect(screen.queryByTestId('exchange-withdraw-notice')).toBeNull();
  });
});
