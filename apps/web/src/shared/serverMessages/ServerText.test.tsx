import { render, screen, waitFor } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { afterEach, describe, expect, it } from 'vitest';
import i18n from '../i18n/index';
import { ServerText } from './ServerText';

// The sign-in and sign-up pages show the server's refusals through ServerText: there the server-message
// catalog is not loaded with the page, so the component loads it on first use.
describe('ServerText', () => {
  afterEach(async () => {
    await i18n.changeLanguage('en');
  });

  it("shows the server's English refusal in Spanish, with its figures", async () => {
    await i18n.changeLanguage('es');
    render(
      <I18nextProvider i18n={i18n}>
        <p data-testid="a">
          <ServerText text="Invalid email or password." />
        </p>
        <p data-testid="b">
          <ServerText text="The password must be 12 to 128 characters long." />
        </p>
      </I18nextProvider>,
    );
    await waitFor(() => expect(screen.getByTestId('a').textContent).toBe('Correo o contraseña no válidos.'));
    await waitFor(() => expect(screen.getByTestId('b').textContent).toMatch(/^La contraseña .*12.*128/));
  });

  it('keeps the English text in English and a text that is not a server message as it is', async () => {
    render(
      <I18nextProvider i18n={i18n}>
        <p data-testid="a">
          <ServerText text="Invalid email or password." />
        </p>
        <p data-testid="c">
          <ServerText text="Error al iniciar sesión" />
        </p>
      </I18nextProvider>,
    );
    await waitFor(() => expect(screen.getByTestId('a').textContent).toBe('Invalid email or password.'));
    expect(screen.getByTestId('c').textContent).toBe('Error al iniciar sesión');
  });
});
