import { Alert, Button, Group, Modal, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../shared/api/client';
import { signalApi } from '../api/signal';

/**
 * Asks for the password (and the 2FA code when it is on) when the rotate call answers 403
 * `reauth_required` (issue 37 point 8: a sensitive call needs a login or a confirmation in the last 5
 * minutes), posts `POST /api/reauth`, then lets the caller retry.
 */
export function ReauthDialog({
  opened,
  onCancel,
  onConfirmed,
}: {
  opened: boolean;
  onCancel: () => void;
  onConfirmed: () => void;
}) {
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
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      await signalApi.reauth(password, code.trim() || undefined);
      reset();
      onConfirmed();
    } catch (err) {
      setError(t('signal.reauth.failed', { message: errorMessage(err) }));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      opened={opened}
      onClose={() => {
        reset();
        onCancel();
      }}
      title={t('signal.reauth.title')}
      centered
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <Stack data-testid="signal-reauth-dialog">
          <Text size="sm">{t('signal.reauth.text')}</Text>
          <PasswordInput
            label={t('signal.reauth.password')}
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            autoComplete="current-password"
            data-testid="signal-reauth-password"
            data-autofocus
          />
          <TextInput
            label={t('signal.reauth.code')}
            value={code}
            onChange={(e) => setCode(e.currentTarget.value)}
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
            data-testid="signal-reauth-code"
          />
          {error && (
            <Alert color="red" data-testid="signal-reauth-error">
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
            >
              {t('signal.reauth.cancel')}
            </Button>
            <Button type="submit" loading={busy} disabled={!password} data-testid="signal-reauth-confirm">
              {t('signal.reauth.confirm')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
