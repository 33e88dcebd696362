import {
  Alert,
  Badge,
  Button,
  Code,
  Group,
  Image,
  Modal,
  Paper,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../shared/api/client';
import { useSession } from '../../../shared/session/session';
import { ReauthCancelled, useReauth } from '../../../shared/session/useReauth';
import { check2fa, disable2fa, enable2fa, generate2fa, serverError } from '../api/account';

type Note = { color: 'green' | 'red' | 'yellow'; text: string; detail?: string | null };

/**
 * Google Authenticator two-factor (spec part 1 §2, §4 Two-factor setting): off, then QR shown, then
 * code confirmed, then on; from on, a confirm dialog asking a current code leads to off.
 */
export function TwoFactorSection() {
  const { t } = useTranslation();
  const { user, refresh } = useSession();
  const queryClient = useQueryClient();
  const status = useQuery({ queryKey: ['check_2fa', user?.id], queryFn: check2fa, enabled: !!user });
  const [setup, setSetup] = useState<{ qr: string; secret: string } | null>(null);
  const [code, setCode] = useState('');
  const [note, setNote] = useState<Note | null>(null);
  const [confirmOpen, setConfirmOpen] = useState(false);
  const [disableCode, setDisableCode] = useState('');
  const [busy, setBusy] = useState(false);
  const has2FA = status.data?.has2FA ?? user?.has2FA ?? false;
  // Turning 2FA on or off needs a recent authentication (the password dialog comes up when asked).
  const { run, modal } = useReauth();

  const done = async () => {
    await queryClient.invalidateQueries({ queryKey: ['check_2fa'] });
    await refresh();
  };

  const startSetup = async () => {
    setNote(null);
    if (!user) return setNote({ color: 'yellow', text: t('settings.twofa.mustLogin') });
    setBusy(true);
    try {
      const res = await run(generate2fa);
      setSetup({ qr: res.qr, secret: res.secret });
      setCode('');
    } catch (err) {
      if (err instanceof ReauthCancelled) return;
      const why = serverError(err);
      setNote({
        color: 'red',
        text: why ? t('settings.twofa.errorWith', { error: why }) : t('settings.twofa.generateFailed'),
      });
    } finally {
      setBusy(false);
    }
  };

  const confirmSetup = async (e: FormEvent) => {
    e.preventDefault();
    setNote(null);
    if (!/^\d{6}$/.test(code.trim())) return setNote({ color: 'red', text: t('settings.twofa.invalid') });
    setBusy(true);
    try {
      await run(() => enable2fa(code.trim()));
      setSetup(null);
      setNote({ color: 'green', text: t('settings.twofa.enabled'), detail: t('settings.twofa.othersEnded') });
      await done();
    } catch (err) {
      if (err instanceof ReauthCancelled) return;
      setNote({
        color: 'red',
        text: t('settings.twofa.invalid'),
        detail: err instanceof ApiError && err.status !== 400 ? serverError(err) : null,
      });
    } finally {
      setBusy(false);
    }
  };

  const confirmDisable = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      const typed = disableCode.trim();
      setConfirmOpen(false);
      // After a confirmation (password and code) the retry goes without a code: that one was spent.
      await run(
        () => disable2fa(typed),
        () => disable2fa(),
      );
      setDisableCode('');
      setNote({
        color: 'green',
        text: t('settings.twofa.disabled'),
        detail: t('settings.twofa.othersEnded'),
      });
      await done();
    } catch (err) {
      setConfirmOpen(false);
      setDisableCode('');
      if (err instanceof ReauthCancelled) return;
      setNote({ color: 'red', text: t('settings.twofa.disableFailed'), detail: serverError(err) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Paper withBorder p="md" radius="md" data-testid="settings-2fa">
      <Group justify="space-between">
        <Title order={2} size="h4">
          {t('settings.twofa.title')}
        </Title>
        <Badge color={has2FA ? 'green' : 'gray'} data-testid="2fa-status">
          {has2FA ? t('settings.twofa.on') : t('settings.twofa.off')}
        </Badge>
      </Group>
      <Text size="sm" c="dimmed" mt={4}>
        {t('settings.twofa.intro')}
      </Text>
      <Stack gap="sm" mt="sm">
        {!has2FA && !setup && (
          <Button onClick={() => void startSetup()} loading={busy} w="fit-content" data-testid="2fa-enable">
            {t('settings.twofa.enable')}
          </Button>
        )}
        {!has2FA && setup && (
          <form onSubmit={(e) => void confirmSetup(e)}>
            <Stack gap="xs">
              <Text size="sm">{t('settings.twofa.scan')}</Text>
              <Image src={setup.qr} alt={t('settings.twofa.qrAlt')} w={200} h={200} data-testid="2fa-qr" />
              <Text size="sm">
                {t('settings.twofa.manual')} <Code data-testid="2fa-secret">{setup.secret}</Code>
              </Text>
              <TextInput
                label={t('settings.twofa.code')}
                value={code}
                onChange={(e) => setCode(e.currentTarget.value)}
                inputMode="numeric"
                maxLength={6}
                w={200}
                data-testid="2fa-code"
              />
              <Group>
                <Button type="submit" loading={busy} data-testid="2fa-verify">
                  {t('settings.twofa.verify')}
                </Button>
                <Button variant="default" onClick={() => setSetup(null)}>
                  {t('common.cancel')}
                </Button>
              </Group>
            </Stack>
          </form>
        )}
        {has2FA && (
          <Button
            color="red"
            variant="light"
            w="fit-content"
            onClick={() => setConfirmOpen(true)}
            data-testid="2fa-disable"
          >
            {t('settings.twofa.disable')}
          </Button>
        )}
        {note && (
          <Alert color={note.color} data-testid="2fa-message">
            {note.text}
            {note.detail && (
              <Text size="sm" c="dimmed" mt={4}>
                {note.detail}
              </Text>
            )}
          </Alert>
        )}
      </Stack>
      <Modal
        opened={confirmOpen}
        onClose={() => setConfirmOpen(false)}
        title={t('settings.twofa.confirmTitle')}
      >
        <form onSubmit={(e) => void confirmDisable(e)}>
          <Stack gap="xs">
            <Text size="sm">{t('settings.twofa.confirmText')}</Text>
            <TextInput
              label={t('settings.twofa.code')}
              value={disableCode}
              onChange={(e) => setDisableCode(e.currentTarget.value)}
              inputMode="numeric"
              maxLength={6}
              data-autofocus
              data-testid="2fa-disable-code"
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setConfirmOpen(false)}>
                {t('common.cancel')}
              </Button>
              <Button type="submit" color="red" loading={busy} data-testid="2fa-disable-confirm">
                {t('settings.twofa.disable')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
      {modal}
    </Paper>
  );
}
