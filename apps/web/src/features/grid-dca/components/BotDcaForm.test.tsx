import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { descriptionOf, expectEveryFieldHelped } from '../../../../test/formHelp';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { BotDcaPage } from './BotDcaPage';

const user = { id: 'u1', email: 'me@example.com' };
const responses = {
  '/api/estado_conexion': () => json({ conexiones: { binance: true } }),
  '/api/market/pairs': () => json({ exchange: 'binance', pairs: ['BTC/USDT'] }),
  '/api/bots_activos_dca': () => json({ success: true, bots: [] }),
  '/api/precios_actuales': () => json([]),
  // The market type saved for the user: off Spot, the leverage and direction controls show.
  '/api/apartado_usuario': () => json({ success: true, apartado: 'Perpetual' }),
};

describe('the Grid Bot DCA start form', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('gives every field its help off Spot too (leverage, LONG/SHORT), and explains the row terms', async () => {
    renderApp(<BotDcaPage />, { user, responses });
    const form = await screen.findByTestId('dca-form');
    await screen.findByTestId('dca-leverage-btn');
    // Exchange, market type, pair, leverage, direction, amount, TP, separation, OS.
    expectEveryFieldHelped(form, /E\.g\./, 9);
    expect(descriptionOf(screen.getByTestId('dca-leverage-btn'))).toMatch(/from 1x to 200x/);
    expect(descriptionOf(screen.getByRole('radiogroup', { name: 'Direction' }))).toMatch(
      /SHORT \(not on Spot\)/,
    );
    const terms = within(screen.getByTestId('dca-terms'));
    expect(terms.getByText(/^RA \(automatic relocation\)/)).toBeTruthy();
    expect(terms.getByText(/^SL \(stop loss\): a price in the quote currency, not a percent/)).toBeTruthy();
    await i18n.changeLanguage('es');
    await waitFor(() =>
      expect(descriptionOf(screen.getByTestId('dca-leverage-btn'))).toMatch(/de 1x a 200x/),
    );
    expectEveryFieldHelped(form, /Ej\.:/, 9);
  });
});
