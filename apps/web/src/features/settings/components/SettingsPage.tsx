import { Container, Stack, Title } from '@mantine/core';
import { ExchangeSection } from './ExchangeSection';

/**
 * Settings (spec part 1 §2): Connect Exchange, connected exchanges, 2FA, plans, change password,
 * delete account, forum link. Each section is its own component file.
 */
export function SettingsPage() {
  return (
    <Container size="md" py="md">
      <Title order={2}>Settings</Title>
      <Stack gap="lg" mt="md">
        <ExchangeSection />
      </Stack>
    </Container>
  );
}
