import { Alert, Button, Container, Stack, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** The Futures screen comes in a later release; until then it says so (the landing banner does too). */
export function FuturesPage() {
  const { t } = useTranslation();
  return (
    <Container size="sm" py="xl">
      <Stack gap="md" data-testid="futures-in-development">
        <Title order={2}>{t('futures.title')}</Title>
        <Alert color="yellow" variant="light" title={t('futures.devTitle')}>
          {t('futures.devBody')}
        </Alert>
        <Button component={Link} to="/earnings-pools" w="fit-content">
          {t('futures.goToPools')}
        </Button>
      </Stack>
    </Container>
  );
}
