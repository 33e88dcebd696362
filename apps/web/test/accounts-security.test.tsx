import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RegisterPage } from '../src/features/auth/components/RegisterPage';
import settingsEn from '../src/features/settings/i18n/en.json';
import settingsEs from '../src/features/settings/i18n/es.json';
import { ChangePasswordSection } from '../src/features/settings/components/ChangePasswordSection';
import { DeleteAccountSection } from '../src/features/settings/components/DeleteAccountSection';
import { SessionsSection } from '../src/features/settings/components/SessionsSection';
import { TwoFactorSection } from '../src/features/settings/components/TwoFactorSection';
import i18n from '../src/shared/i18n/index';
import sessionEn from '../src/shared/session/i18n/en.json';
import sessionEs from '../src/shared/session/i18n/es.json';
import { json, renderApp } from './renderApp';

/**
 * Issue 37 points 8 and 18 in the web app, in both languages: the password dialog that a call needing a
 * recent authentication brings up (then the call is retried), the open sessions with "end all others",
 * and sign-up step 1 refusing a weak password (translated) before any code is mailed.
 */

const REAUTH_REQUIRED = () =>
  json(
    {
      success: false,
      error: 'Confirm your password to continue',
      message: 'Confirm your password to continue',
      error_code: 'reauth_required',
    },
    403,
  );

const bodyOf = (init?: RequestInit) =>
  JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as Record<string, unknown>;

const texts = {
  en: { settings: settingsEn, session: sessionEn },
  es: { settings: settingsEs, session: sessionEs },
} as const;

afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
});

describe.each(['en', 'es'] as const)('account security screens (%s)', (lang) => {
  const { settings, session } = texts[lang];
  beforeEach(async () => {
    await i18n.changeLanguage(lang);
  });

  it('sign-up step 1 sends the password and shows a refused one in the language, staying on step 1', async () => {
    const sent: Record<string, unknown>[] = [];
    renderApp(<RegisterPage />, {
      responses: {
        '/api/config': () => json({ registrationOpen: true }),
        '/api/enviar_codigo': (_url, init) => {
          sent.push(bodyOf(init));
          return json(
            {
              success: false,
              error: 'This password is too common and easy to guess. Please choose another one.',
              message: 'This password is too common and easy to guess. Please choose another one.',
              error_code: 'password_common',
            },
            400,
          );
        },
      },
    });
    const u = userEvent.setup();
    await u.type(await screen.findByTestId('register-email'), 'new@example.com');
    await u.type(screen.getByTestId('register-password'), 'sunshine1');
    await u.type(screen.getByTestId('register-confirm'), 'sunshine1');
    await u.click(screen.getByTestId('register-send'));
    expect((await screen.findByTestId('register-error')).textContent).toBe(
      session.passwordRules.password_common,
    );
    expect(sent).toEqual([{ email: 'new@example.com', language: lang, password: 'sunshine1' }]);
    expect(screen.queryByTestId('register-step2')).toBeNull();
  });

  it('a refused new password is named in the language (the email as password)', async () => {
    renderApp(<ChangePasswordSection />, {
      user: { id: 'u1', email: 'violet.harbor@example.com', has2FA: false },
      responses: {
        '/api/cambiar_password': () =>
          json(
            {
              success: false,
              message: 'The password cannot be your email address or the part of it before the @.',
              error_code: 'password_email',
            },
            400,
          ),
      },
    });
    const u = userEvent.setup();
    await u.type(await screen.findByTestId('password-new'), 'violet.harbor');
    await u.type(screen.getByTestId('password-email-code'), '123456');
    await u.click(screen.getByTestId('password-submit'));
    expect(await screen.findByText(session.passwordRules.password_email)).toBeTruthy();
  });

  it('deleting the account asks for the password when the server wants it, then retries', async () => {
    let confirmed = false;
    const reauthBodies: Record<string, unknown>[] = [];
    let deletes = 0;
    renderApp(<DeleteAccountSection />, {
      user: { id: 'u1', email: 'me@example.com', has2FA: false },
      responses: {
        '/api/delete_account': () => {
          deletes++;
          return confirmed
            ? json({ success: true, message: 'Your account has been deleted.' })
            : REAUTH_REQUIRED();
        },
        '/api/reauth': (_url, init) => {
          const body = bodyOf(init);
          reauthBodies.push(body);
          if (body.password !== 'my-secret-pass') {
            return json(
              { success: false, message: 'The password is incorrect.', error_code: 'wrong_password' },
              400,
            );
          }
          confirmed = true;
          return json({ success: true, message: 'Password confirmed.' });
        },
        '/api/logout': () => json({ success: true }),
      },
    });
    const u = userEvent.setup();
    await u.click(await screen.findByTestId('delete-account'));
    await u.click(await screen.findByTestId('delete-confirm'));
    expect(await screen.findByText(session.reauth.title)).toBeTruthy();
    expect(screen.getByText(session.reauth.intro)).toBeTruthy();
    expect(screen.queryByTestId('reauth-code')).toBeNull();

    await u.type(screen.getByTestId('reauth-password'), 'wrong-pass');
    await u.click(screen.getByTestId('reauth-confirm'));
    expect((await screen.findByTestId('reauth-error')).textContent).toBe(session.reauth.wrongPassword);
    await u.clear(screen.getByTestId('reauth-password'));
    await u.type(screen.getByTestId('reauth-password'), 'my-secret-pass');
    await u.click(screen.getByTestId('reauth-confirm'));
    // The spec's alert, in the app's own dialog.
    expect((await screen.findByTestId('confirm-dialog-text')).textContent).toBe(settings.delete.done);
    expect(deletes).toBe(2);
    expect(reauthBodies.at(-1)).toEqual({ password: 'my-secret-pass' });
  });

  it('cancelling the password dialog deletes nothing and shows no error', async () => {
    let deletes = 0;
    renderApp(<DeleteAccountSection />, {
      user: { id: 'u1', email: 'me@example.com', has2FA: false },
      responses: {
        '/api/delete_account': () => {
          deletes++;
          return REAUTH_REQUIRED();
        },
      },
    });
    const u = userEvent.setup();
    await u.click(await screen.findByTestId('delete-account'));
    await u.click(await screen.findByTestId('delete-confirm'));
    await screen.findByText(session.reauth.title);
    expect(screen.getByTestId('reauth-cancel').textContent).toBe(session.reauth.cancel);
    await u.click(screen.getByTestId('reauth-cancel'));
    await waitFor(() => expect(screen.queryByTestId('reauth-form')).toBeNull());
    expect(deletes).toBe(1);
    expect(screen.queryByTestId('delete-error')).toBeNull();
  });

  it('turning 2FA off asks for the password and a code, then retries without a code', async () => {
    let confirmed = false;
    const disableBodies: Record<string, unknown>[] = [];
    let reauthBody: Record<string, unknown> | null = null;
    renderApp(<TwoFactorSection />, {
      user: { id: 'u1', email: 'me@example.com', has2FA: true },
      responses: {
        '/api/check_2fa': () => json({ success: true, has2FA: !confirmed }),
        '/api/disable_2fa': (_url, init) => {
          disableBodies.push(bodyOf(init));
          return confirmed
            ? json({ success: true, message: 'Two-Factor Authentication disabled.' })
            : REAUTH_REQUIRED();
        },
        '/api/reauth': (_url, init) => {
          reauthBody = bodyOf(init);
          confirmed = true;
          return json({ success: true, message: 'Password confirmed.' });
        },
      },
    });
    const u = userEvent.setup();
    await u.click(await screen.findByTestId('2fa-disable'));
    await u.type(await screen.findByTestId('2fa-disable-code'), '123456');
    await u.click(screen.getByTestId('2fa-disable-confirm'));
    expect(await screen.findByText(session.reauth.introCode)).toBeTruthy();
    await u.type(screen.getByTestId('reauth-password'), 'my-secret-pass');
    await u.click(screen.getByTestId('reauth-confirm'));
    expect((await screen.findByTestId('reauth-error')).textContent).toBe(session.reauth.codeRequired);
    await u.type(screen.getByTestId('reauth-code'), '654321');
    await u.click(screen.getByTestId('reauth-confirm'));
    const message = await screen.findByTestId('2fa-message');
    expect(message.textContent).toContain(settings.twofa.disabled);
    expect(message.textContent).toContain(settings.twofa.othersEnded);
    expect(reauthBody).toEqual({ password: 'my-secret-pass', code: '654321' });
    expect(disableBodies).toEqual([{ code: '123456' }, {}]);
  });

  it('lists the open sessions with this device marked and ends the others', async () => {
    let ended = false;
    const rows = [
      {
        id: 's1',
        created_at: '2026-12-01T10:00:00.000Z',
        last_seen_at: '2026-12-01T11:00:00.000Z',
        ip: '10.0.0.1',
        user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0',
        current: true,
      },
      {
        id: 's2',
        created_at: '2026-11-30T10:00:00.000Z',
        last_seen_at: '2026-11-30T12:00:00.000Z',
        ip: null,
        user_agent: null,
        current: false,
      },
    ];
    const { requestedPaths } = renderApp(<SessionsSection />, {
      user: { id: 'u1', email: 'me@example.com' },
      responses: {
        '/api/sessions': () => json({ success: true, sessions: ended ? rows.slice(0, 1) : rows }),
        '/api/sessions/end-others': () => {
          ended = true;
          return json({ success: true, ended: 1 });
        },
      },
    });
    const current = await screen.findByTestId('session-current');
    expect(current.textContent).toContain(settings.sessions.thisDevice);
    expect(current.textContent).toContain('10.0.0.1');
    expect(screen.getByTestId('session-other').textContent).toContain(settings.sessions.unknown);
    await userEvent.click(screen.getByTestId('sessions-end-others'));
    expect((await screen.findByTestId('sessions-message')).textContent).toBe(
      settings.sessions.ended_one.replace('{{count}}', '1'),
    );
    await waitFor(() => expect(screen.queryByTestId('session-other')).toBeNull());
    expect(screen.getByTestId('sessions-only-this').textContent).toBe(settings.sessions.onlyThis);
    expect(requestedPaths()).toContain('/api/sessions/end-others');
  });
});
