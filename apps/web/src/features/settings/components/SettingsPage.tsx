import { Button, Container, Paper, Stack, Text, Title } from '@mantine/core';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useSession } from '../../../shared/session/session';
import { storeLanguage } from '../api/account';
import { ChangePasswordSection } from './ChangePasswordSection';
import { DeleteAccountSection } from './DeleteAccountSection';
import { ExchangeSection } from './ExchangeSection';
import { PlansSection } from './PlansSection';
import { SessionsSection } from './SessionsSection';
import { TwoFactorSection } from './TwoFactorSection';

/**
 * Settings (spec part 1 §2): Connect Exchange, connected exchanges, 2FA, plans, change password,
 * open sessions (issue 37), delete account, forum link. Each section is its own component file.
 */
export function SettingsPage() {
  const { t, i18n } = useTranslation();
  const { user } = useSession();
  const language = i18n.resolvedLanguage === 'es' ? 'es' : 'en';

  // Mails go out in the language the user reads the app in.
  useEffect(() => {
    if (user && user.language !== language) void storeLanguage(language);
  }, [user, language]);

  return (
    <Container size="md" py="md">
      <Title order={1} size="h2">
        {t('settings.title')}
      </Title>
      <Stack gap="lg" mt="md">
        <ExchangeSection />
        <TwoFactorSection />
        <SessionsSection />
        <PlansSection />
        <ChangePasswordSection />
        <DeleteAccountSection />
        <Paper withBorder p="md" radius="md">
          <Text size="sm">{t('settings.forum.text')}</Text>
          <Button component={Link} to="/forum" variant="light" mt="xs" data-testid="settings-forum">
            {t('settings.forum.link')}
          </Button>
        </Paper>
      </Stack>
    </Container>
  );
}
