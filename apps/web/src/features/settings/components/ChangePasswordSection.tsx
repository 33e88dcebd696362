import { Button, Group, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../../shared/session/session';
import { passwordRule } from '../../../shared/session/reauth';
import { changePassword, sendPasswordCode, serverError } from '../api/account';

const TOAST_MS = 4000;

/**
 * Change Password (spec part 1 §2, §7, §8): a mailed code, the 2FA code when 2FA is on, 4-second
 * toasts. The form collects the current password, which (as the spec says) is not sent.
 */
export function ChangePasswordSection() {
  const { t } = useTranslation();
  const { user } = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [emailCode, setEmailCode] = useState('');
  const [twofaCode, setTwofaCode] = useState('');
  const [sending, setSending] = useState(false);
  const [saving, setSaving] = useState(false);

  const toast = (message: string, ok: boolean) =>
    notifications.show({ message, color: ok ? 'green' : 'red', autoClose: TOAST_MS });

  const sendCode = async () => {
    setSending(true);
    try {
      await sendPasswordCode();
      toast(t('settings.password.codeSent'), true);
    } catch (err) {
      const why = serverError(err);
      toast(
        why && /too many/i.test(why)
          ? `${t('settings.password.codeFailed')} — ${why}`
          : t('settings.password.codeFailed'),
        false,
      );
    } finally {
      setSending(false);
    }
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    try {
      await changePassword(next, emailCode.trim(), twofaCode.trim());
      toast(t('settings.password.changed'), true);
      setCurrent('');
      setNext('');
      setEmailCode('');
      setTwofaCode('');
    } catch (err) {
      // A refused new password (too common, the email, …) is named in the user's language.
      const rule = passwordRule(err);
      toast(
        rule ? t(`session.passwordRules.${rule}`) : `❌ ${serverError(err) ?? t('settings.password.failed')}`,
        false,
      );
    } finally {
      setSaving(false);
    }
  };

  return (
    <Paper withBorder p="md" radius="md" data-testid="settings-password">
      <Title order={2} size="h4">
        {t('settings.password.title')}
      </Title>
      <form onSubmit={(e) => void submit(e)}>
        <Stack gap="xs" mt="sm" maw={360}>
          <PasswordInput
            label={t('settings.password.current')}
            value={current}
            onChange={(e) => setCurrent(e.currentTarget.value)}
            autoComplete="current-password"
            data-testid="password-current"
          />
          <PasswordInput
            label={t('settings.password.new')}
            value={next}
            onChange={(e) => setNext(e.currentTarget.value)}
            autoComplete="new-password"
            data-testid="password-new"
          />
          <Group align="flex-end" gap="xs">
            <TextInput
              label={t('settings.password.emailCode')}
              value={emailCode}
              onChange={(e) => setEmailCode(e.currentTarget.value)}
              inputMode="numeric"
              maxLength={6}
              w={160}
              data-testid="password-email-code"
            />
            <Button
              variant="light"
              onClick={() => void sendCode()}
              loading={sending}
              data-testid="password-send-code"
            >
              {t('settings.password.sendCode')}
            </Button>
          </Group>
          {user?.has2FA && (
            <TextInput
              label={t('settings.password.twofaCode')}
              value={twofaCode}
              onChange={(e) => setTwofaCode(e.currentTarget.value)}
              inputMode="numeric"
              maxLength={6}
              w={160}
              data-testid="password-2fa-code"
            />
          )}
          <Button type="submit" loading={saving} w="fit-content" data-testid="password-submit">
            {t('settings.password.submit')}
          </Button>
        </Stack>
      </form>
    </Paper>
  );
}
