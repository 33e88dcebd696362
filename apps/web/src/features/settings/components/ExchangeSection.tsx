import { Paper, Stack, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ConnectExchangeForm } from './exchange/ConnectExchangeForm';
import { ConnectedExchangesList } from './exchange/ConnectedExchangesList';

/** Connect Exchange and the list of connected exchanges (spec part 1 §2 Settings). */
export function ExchangeSection() {
  const { t } = useTranslation();
  return (
    <Paper withBorder p="md" radius="md" data-testid="exchange-section">
      <Stack gap="lg">
        <Stack gap="sm">
          <Title order={2} size="h3">
            {t('settings.exchange.title')}
          </Title>
          <ConnectExchangeForm />
        </Stack>
        <Stack gap="sm">
          <Title order={3} size="h4">
            {t('settings.exchange.connectedTitle')}
          </Title>
          <ConnectedExchangesList />
        </Stack>
      </Stack>
    </Paper>
  );
}
