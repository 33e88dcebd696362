import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { MoviesSeriesPage } from './MoviesSeriesPage';

const DENIED = 'Acceso denegado. Solo usuarios autorizados.';

describe('MoviesSeriesPage', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });
  afterEach(() => vi.unstubAllGlobals());

  it('refuses a typed-in visit the server denies: the spec alert in the app dialog, then home', async () => {
    // The spec's Spanish text, in the Spanish interface.
    await i18n.changeLanguage('es');
    renderApp(<MoviesSeriesPage />, {
      initialPath: '/peliculas-series',
      user: { id: 'u1', email: 'ana@example.com' },
      responses: {
        '/api/peliculas-series/access': () => json({ success: false, error: DENIED, message: DENIED }, 403),
      },
    });
    expect((await screen.findByTestId('confirm-dialog-text')).textContent).toBe(DENIED);
    expect(screen.getByTestId('movies-denied').textContent).toBe(DENIED);
    expect(screen.getByTestId('location').textContent).toBe('/peliculas-series');
    fireEvent.click(screen.getByTestId('confirm-dialog-ok'));
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/'));
    expect(screen.queryByTestId('movies-page')).toBeNull();
  });

  it('shows the area, honestly marked as a placeholder, to an allowed account', async () => {
    renderApp(<MoviesSeriesPage />, {
      initialPath: '/peliculas-series',
      user: { id: 'u2', email: 'vip@example.com', canOpenLogoArea: true },
      responses: { '/api/peliculas-series/access': () => json({ success: true }) },
    });
    expect(await screen.findByTestId('movies-page')).toBeTruthy();
    expect(screen.getByText(/placeholder, not real content/)).toBeTruthy();
    expect(screen.queryByTestId('confirm-dialog-text')).toBeNull();
    expect(screen.getByTestId('location').textContent).toBe('/peliculas-series');
  });
});
