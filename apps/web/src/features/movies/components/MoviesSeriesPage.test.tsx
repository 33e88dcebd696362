import { screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { MoviesSeriesPage } from './MoviesSeriesPage';

const DENIED = 'Acceso denegado. Solo usuarios autorizados.';

describe('MoviesSeriesPage', () => {
  let alert: ReturnType<typeof vi.fn>;
  beforeEach(async () => {
    await i18n.changeLanguage('en');
    alert = vi.fn();
    vi.stubGlobal('alert', alert);
  });
  afterEach(() => vi.unstubAllGlobals());

  it('refuses a typed-in visit the server denies: alert, then home', async () => {
    renderApp(<MoviesSeriesPage />, {
      initialPath: '/peliculas-series',
      user: { id: 'u1', email: 'ana@example.com' },
      responses: {
        '/api/peliculas-series/access': () => json({ success: false, error: DENIED, message: DENIED }, 403),
      },
    });
    await waitFor(() => expect(alert).toHaveBeenCalledWith(DENIED));
    expect(alert).toHaveBeenCalledTimes(1);
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
    expect(alert).not.toHaveBeenCalled();
    expect(screen.getByTestId('location').textContent).toBe('/peliculas-series');
  });
});
