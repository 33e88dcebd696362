import { Alert, Button, Group, Modal, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, errorMessage } from '../api/client';
import { errorCode, reauthCall } from './reauth';

export interface ReauthModalProps {
  opened: boolean;
  /** 2FA is on: a current code is asked for too. */
  needsCode: boolean;
  onConfirmed: () => void;
  onCancel: () => void;
}

/**
 * "Confirm your password to continue" (docs/accounts.md, "Re-authentication"): the password, and a
 * code when 2FA is on, sent to POST /api/reauth; on success the caller retries its call.
 */
export function ReauthModal({ opened, needsCode, onConfirmed, onCancel }: ReauthModalProps) {
  const { t } = useTranslation();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const reset = () => {
    setPassword('');
    setCode('');
    setError(null);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (!password) return setError(t('session.reauth.required'));
    const trimmed = code.replace(/\s+/g, '');
    if (needsCode && !/^\d{6}$/.test(trimmed)) return setError(t('session.reauth.codeRequired'));
    setBusy(true);
    try {
      await reauthCall(password, needsCode ? trimmed : undefined);
      reset();
      onConfirmed();
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };

  const describe = (err: unknown): string => {
    if (!(err instanceof ApiError)) return t('session.reauth.network');
    const code = errorCode(err);
    if (code === 'wrong_password') return t('session.reauth.wrongPassword');
    if (code === 'twofa_code_needed') return t('session.reauth.codeRequired');
    if (err.status === 429) {
      const seconds = Number((err.body as { retryAfter?: unknown } | undefined)?.retryAfter);
      if (Number.isFinite(seconds) && seconds > 0) return t('session.reauth.tooMany', { seconds });
    }
    return t('session.reauth.failed', { error: errorMessage(err) });
  };

  return (
    <Modal
      opened={opened}
      onClose={() => {
        reset();
        onCancel();
      }}
      title={t('session.reauth.title')}
    >
      <form onSubmit={(e) => void submit(e)} data-testid="reauth-form" noValidate>
        <Stack gap="xs">
          <Text size="sm">{needsCode ? t('session.reauth.introCode') : t('session.reauth.intro')}</Text>
          <PasswordInput
            label={t('session.reauth.password')}
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            autoComplete="current-password"
            data-autofocus
            data-testid="reauth-password"
          />
          {needsCode && (
            <TextInput
              label={t('session.reauth.code')}
              value={code}
              onChange={(e) => setCode(e.currentTarget.value)}
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={7}
              data-testid="reauth-code"
            />
          )}
          {error && (
            <Alert color="red" data-testid="reauth-error">
              {error}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button
              variant="default"
              onClick={() => {
                reset();
                onCancel();
              }}
              data-testid="reauth-cancel"
            >
              {t('session.reauth.cancel')}
            </Button>
            <Button type="submit" loading={busy} data-testid="reauth-confirm">
              {t('session.reauth.confirm')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
