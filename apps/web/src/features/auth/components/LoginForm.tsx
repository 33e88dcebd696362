import { Alert, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../shared/api/client';
import { ServerText } from '../../../shared/serverMessages/ServerText';
import { useSession } from '../../../shared/session/session';
import { loginCall, serverMessage, storeLanguage, verifyLogin2fa } from '../api/auth';

/**
 * Sign-in (spec part 1 §4 Login): credentials, then a 2FA code step when the server asks for one.
 * Failures show the server message, else 'Error'; a call that gets no answer shows the generic
 * '❌ Error al iniciar sesión'.
 */
export function LoginForm({ onDone, idPrefix = 'login' }: { onDone?: () => void; idPrefix?: string }) {
  const { t, i18n } = useTranslation();
  const { signIn } = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [tempToken, setTempToken] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const failure = (err: unknown) =>
    err instanceof ApiError ? (serverMessage(err) ?? t('auth.login.error')) : t('auth.login.generic');

  const finish = async (token: string) => {
    const user = await signIn(token);
    if (!user) {
      setError(t('auth.login.error'));
      return;
    }
    void storeLanguage(i18n.resolvedLanguage === 'es' ? 'es' : 'en');
    notifications.show({ message: t('auth.login.loggedIn'), color: 'green', autoClose: 3000 });
    setTempToken(null);
    setPassword('');
    setCode('');
    onDone?.();
  };

  const submitCredentials = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const res = await loginCall(email.trim(), password);
      if (res.requires2FA && res.tempToken) {
        setTempToken(res.tempToken);
      } else if (res.success && res.token) {
        await finish(res.token);
      } else {
        setError(res.message || t('auth.login.error'));
      }
    } catch (err) {
      setError(failure(err));
    } finally {
      setBusy(false);
    }
  };

  const submitCode = async (e: FormEvent) => {
    e.preventDefault();
    if (!tempToken) return;
    setError(null);
    if (!/^\d{6}$/.test(code.trim())) {
      setError(t('auth.login.codeFormat'));
      return;
    }
    setBusy(true);
    try {
      const res = await verifyLogin2fa(tempToken, code.trim());
      if (res.success && res.token) await finish(res.token);
      else setError(res.message || t('auth.login.error'));
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) setTempToken(null);
      setError(failure(err));
    } finally {
      setBusy(false);
    }
  };

  if (tempToken) {
    return (
      <form onSubmit={(e) => void submitCode(e)} data-testid={`${idPrefix}-2fa-form`}>
        <Stack gap="xs">
          <Text size="sm">{t('auth.login.twofaPrompt')}</Text>
          <TextInput
            label={t('auth.login.twofaCode')}
            value={code}
            onChange={(e) => setCode(e.currentTarget.value)}
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
            autoFocus
            data-testid={`${idPrefix}-2fa-code`}
          />
          {error && (
            <Alert color="red" p="xs" data-testid={`${idPrefix}-error`}>
              <ServerText text={error} />
            </Alert>
          )}
          <Button type="submit" loading={busy} data-testid={`${idPrefix}-2fa-submit`}>
            {t('auth.login.verify')}
          </Button>
          <Button variant="subtle" size="xs" onClick={() => setTempToken(null)}>
            {t('auth.login.back')}
          </Button>
        </Stack>
      </form>
    );
  }

  return (
    <form onSubmit={(e) => void submitCredentials(e)} data-testid={`${idPrefix}-form`}>
      <Stack gap="xs">
        <TextInput
          label={t('auth.login.email')}
          type="email"
          value={email}
          onChange={(e) => setEmail(e.currentTarget.value)}
          autoComplete="username"
          required
          data-testid={`${idPrefix}-email`}
        />
        <PasswordInput
          label={t('auth.login.password')}
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
          autoComplete="current-password"
          required
          data-testid={`${idPrefix}-password`}
        />
        {error && (
          <Alert color="red" p="xs" data-testid={`${idPrefix}-error`}>
            <ServerText text={error} />
          </Alert>
        )}
        <Button type="submit" loading={busy} data-testid={`${idPrefix}-submit`}>
          {t('auth.login.submit')}
        </Button>
      </Stack>
    </form>
  );
}
