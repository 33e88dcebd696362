import { EXCHANGES } from '@bytx/contract';
import { screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { json, renderApp } from '../../../test/renderApp';
import { setValue } from '../../../test/setValue';
import { BotDcaPage } from '../../features/grid-dca/components/BotDcaPage';
import { FuturesExtras } from '../../features/futures/components/FuturesExtras';
import i18n from '../i18n/index';

const user = { id: 'u1', email: 'me@example.com' };

/** Issue 38 point 8: the capability table as GET /api/exchanges/capabilities answers it (two rows matter here). */
const capabilities = () =>
  json({
    success: true,
    exchanges: EXCHANGES.map((e) => ({
      exchange: e.key,
      name: e.name,
      available: e.ccxtId !== null,
      spot: e.ccxtId !== null,
      perpetual: e.key !== 'coinbaseexchange',
      inverse: false,
      margin: e.key !== 'coinbaseexchange',
      leverage: e.key !== 'coinbaseexchange',
      clientIds: null,
      lookups: null,
    })),
  });

const responses = (mode: 'live' | 'paper') => ({
  '/api/estado_conexion': () => json({ conexiones: { coinbaseexchange: true, binance: true } }),
  '/api/exchanges/connections': () =>
    json({
      success: true,
      connections: [
        {
          exchange: 'coinbaseexchange',
          name: 'Coinbase Exchange',
          mode,
          createdAt: '2025-01-01T00:00:00.000Z',
        },
        { exchange: 'binance', name: 'Binance', mode: 'live', createdAt: '2025-01-01T00:00:00.000Z' },
      ],
    }),
  '/api/exchanges/capabilities': capabilities,
  '/api/market/pairs': () => json({ exchange: 'coinbaseexchange', pairs: ['BTC/USDT'] }),
  '/api/bots_activos_dca': () => json({ success: true, bots: [] }),
  '/api/precios_actuales': () => json([]),
  '/api/apartado_usuario': () => json({ success: true, apartado: 'Spot' }),
});

describe('the start form says before the start when a live exchange cannot run the market type', () => {
  afterEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('Perpetual on a spot-only live exchange: the notice in English, gone for Spot and for an exchange that has it', async () => {
    await i18n.changeLanguage('en');
    renderApp(<BotDcaPage />, { user, responses: responses('live') });
    const exchange = await screen.findByTestId('dca-exchange');
    await waitFor(() => expect(exchange.querySelector('option[value="coinbaseexchange"]')).not.toBeNull());
    setValue(exchange, 'coinbaseexchange');
    setValue(screen.getByTestId('dca-market-type'), 'Perpetual');
    expect((await screen.findByTestId('dca-market-unsupported')).textContent).toBe(
      'Coinbase Exchange does not support Perpetual trading with live keys. Choose another market type or exchange, or a paper account.',
    );
    setValue(screen.getByTestId('dca-market-type'), 'Spot');
    await waitFor(() => expect(screen.queryByTestId('dca-market-unsupported')).toBeNull());
    setValue(screen.getByTestId('dca-market-type'), 'Margin');
    expect(await screen.findByTestId('dca-market-unsupported')).toBeTruthy();
    setValue(exchange, 'binance');
    await waitFor(() => expect(screen.queryByTestId('dca-market-unsupported')).toBeNull());
  });

  it('the same notice in Spanish', async () => {
    await i18n.changeLanguage('es');
    renderApp(<BotDcaPage />, { user, responses: responses('live') });
    const exchange = await screen.findByTestId('dca-exchange');
    await waitFor(() => expect(exchange.querySelector('option[value="coinbaseexchange"]')).not.toBeNull());
    setValue(exchange, 'coinbaseexchange');
    setValue(screen.getByTestId('dca-market-type'), 'Perpetual');
    expect((await screen.findByTestId('dca-market-unsupported')).textContent).toBe(
      'Coinbase Exchange no admite operar Perpetual con claves reales. Elige otro tipo de mercado u otro exchange, o una cuenta paper.',
    );
  });

  it('a paper account trades every market type: no notice', async () => {
    renderApp(<BotDcaPage />, { user, responses: responses('paper') });
    const exchange = await screen.findByTestId('dca-exchange');
    await waitFor(() => expect(exchange.querySelector('option[value="coinbaseexchange"]')).not.toBeNull());
    setValue(exchange, 'coinbaseexchange');
    setValue(screen.getByTestId('dca-market-type'), 'Perpetual');
    await new Promise((r) => setTimeout(r, 100));
    expect(screen.queryByTestId('dca-market-unsupported')).toBeNull();
  });

  it('the futures screen says it on a live exchange without perpetual swaps', async () => {
    renderApp(
      <FuturesExtras
        exchange="coinbaseexchange"
        symbol="BTC/USDT:USDT"
        price={50_000}
        refresh={() => undefined}
      />,
      {
        user,
        responses: responses('live'),
      },
    );
    expect((await screen.findByTestId('futures-market-unsupported')).textContent).toMatch(
      /^Coinbase Exchange does not support Perpetual trading with live keys/,
    );
  });
});
