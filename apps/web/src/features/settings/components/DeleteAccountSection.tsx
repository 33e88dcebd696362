import { Alert, Button, Group, Modal, Paper, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ApiError, errorMessage, STORAGE } from '../../../shared/api/client';
import { useSession } from '../../../shared/session/session';
import { ReauthCancelled, useReauth } from '../../../shared/session/useReauth';
import { useConfirm } from '../../../shared/ui/ConfirmDialog';
import { deleteAccount, serverError } from '../api/account';

/**
 * Delete Account (spec part 1 §8): confirm, then on success an alert, storage cleared (the language
 * choice is kept) and home; failures '❌ Error deleting account: {error}' or '❌ Network error...'.
 */
export function DeleteAccountSection() {
  const { t } = useTranslation();
  const { logout } = useSession();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Deletion needs a recent authentication: the password dialog comes up when the server asks.
  const { run, modal } = useReauth();
  const [notify, notice] = useConfirm();

  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      setOpen(false);
      await run(deleteAccount);
      // The spec's alert, in the app's own dialog: the account is gone, the session ends once it is read.
      await notify(t('settings.delete.done'), { alert: true });
      const lang = localStorage.getItem(STORAGE.lang);
      await logout();
      localStorage.clear();
      sessionStorage.clear();
      if (lang) localStorage.setItem(STORAGE.lang, lang);
      void navigate('/');
    } catch (err) {
      setOpen(false);
      if (err instanceof ReauthCancelled) return;
      setError(
        err instanceof ApiError
          ? t('settings.delete.failed', { error: serverError(err) ?? errorMessage(err) })
          : t('settings.delete.network'),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <Paper withBorder p="md" radius="md" data-testid="settings-delete">
      <Title order={2} size="h4">
        {t('settings.delete.title')}
      </Title>
      <Text size="sm" c="dimmed" mt={4}>
        {t('settings.delete.intro')}
      </Text>
      <Stack gap="xs" mt="sm">
        <Button color="red" w="fit-content" onClick={() => setOpen(true)} data-testid="delete-account">
          {t('settings.delete.button')}
        </Button>
        {error && (
          <Alert color="red" data-testid="delete-error">
            {error}
          </Alert>
        )}
      </Stack>
      <Modal opened={open} onClose={() => setOpen(false)} title={t('settings.delete.confirmTitle')}>
        <Text size="sm">{t('settings.delete.confirmText')}</Text>
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={() => setOpen(false)}>
            {t('common.cancel')}
          </Button>
          <Button color="red" loading={busy} onClick={() => void confirm()} data-testid="delete-confirm">
            {t('settings.delete.button')}
          </Button>
        </Group>
      </Modal>
      {modal}
      {notice}
    </Paper>
  );
}
