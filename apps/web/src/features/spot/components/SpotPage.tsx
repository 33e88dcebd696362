import { Alert, Button, Container, Stack, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** The Spot screen comes in a later release; until then it says so (the landing banner does too). */
export function SpotPage() {
  const { t } = useTranslation();
  return (
    <Container size="sm" py="xl">
      <Stack gap="md" data-testid="spot-in-development">
        <Title order={2}>{t('spot.title')}</Title>
        <Alert color="yellow" variant="light" title={t('spot.devTitle')}>
          {t('spot.devBody')}
        </Alert>
        <Button component={Link} to="/earnings-pools" w="fit-content">
          {t('spot.goToPools')}
        </Button>
      </Stack>
    </Container>
  );
}
