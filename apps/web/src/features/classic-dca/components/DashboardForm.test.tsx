import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { descriptionOf, expectEveryFieldHelped } from '../../../../test/formHelp';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { DashboardPage } from './DashboardPage';

const user = { id: 'u1', email: 'me@example.com' };
const responses = {
  '/api/estado_conexion': () => json({ conexiones: { binance: true } }),
  '/api/market/pairs': () => json({ exchange: 'binance', pairs: ['BTC/USDT'] }),
  '/api/bots_activos': () => json({ success: true, bots: [] }),
  '/api/apartado_usuario': () => json({ success: true, apartado: 'Spot' }),
};

describe('the classic DCA start form (the Advanced Bot page)', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('is titled as its tab, which links here and is marked', async () => {
    renderApp(<DashboardPage />, { user, responses });
    expect((await screen.findByRole('heading', { level: 1 })).textContent ?? '').toMatch(/^Advanced Bot/);
    const tab = screen.getByRole('link', { name: 'Advanced Bot' });
    expect(tab.getAttribute('href')).toBe('/dashboard');
  });

  it('gives every field its help, R and R(OS) included (visible, not a hover title), in both languages', async () => {
    renderApp(<DashboardPage />, { user, responses });
    const form = await screen.findByTestId('dash-form');
    // Exchange, market type, pair, amount, TP, separation, OS, R, R(OS), trend rule, smart averaging, TP VNC.
    expectEveryFieldHelped(form, /E\.g\./, 12);
    expect(descriptionOf(screen.getByTestId('dash-form-r'))).toMatch(
      /^R \(restart\): on, a new cycle starts/,
    );
    expect(descriptionOf(screen.getByTestId('dash-form-ros'))).toMatch(/^R\(OS\) \(re-arm safety orders\)/);
    expect(descriptionOf(screen.getByTestId('dash-form-tpvnc'))).toMatch(
      /^VNC is the coin .* in percent above its cost/,
    );
    // The row terms: SL and TP+ are prices, not percents.
    const terms = within(screen.getByTestId('dash-terms'));
    expect(terms.getByText(/^SL \(stop loss\): a price in the quote currency, not a percent/)).toBeTruthy();
    expect(terms.getByText(/^TP\+: a price in the quote currency, not a percent/)).toBeTruthy();
    await i18n.changeLanguage('es');
    await waitFor(() => expect(descriptionOf(screen.getByTestId('dash-form-r'))).toMatch(/^R \(reiniciar\)/));
    expectEveryFieldHelped(form, /Ej\.:/, 12);
  });
});
