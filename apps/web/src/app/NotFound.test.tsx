import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { LocationProbe, renderApp } from '../../test/renderApp';
import i18n from '../shared/i18n/index';
import { NotFoundNotice, NotFoundRedirect } from './NotFound';

const home = {
  path: '/',
  element: (
    <>
      <NotFoundNotice />
      <LocationProbe />
    </>
  ),
};

describe('unknown routes', () => {
  afterEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('go home and say the page does not exist, until closed (EN)', async () => {
    renderApp(<NotFoundRedirect />, { initialPath: '/no/such/page?x=1', routes: [home] });
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/'));
    const notice = await screen.findByTestId('not-found-notice');
    expect(notice.textContent).toContain('That page does not exist');
    expect(notice.textContent).toContain('/no/such/page?x=1 is not a page of this site');
    await userEvent.click(screen.getByTestId('not-found-close'));
    expect(screen.queryByTestId('not-found-notice')).toBeNull();
  });

  it('in Spanish too', async () => {
    await i18n.changeLanguage('es');
    renderApp(<NotFoundRedirect />, { initialPath: '/nada', routes: [home] });
    expect((await screen.findByTestId('not-found-notice')).textContent).toContain('Esa página no existe');
  });

  it('say nothing on a plain visit to /', async () => {
    renderApp(<NotFoundRedirect />, { initialPath: '/', routes: [home] });
    await screen.findByTestId('location');
    expect(screen.queryByTestId('not-found-notice')).toBeNull();
  });
});
