import { Alert, Button, Card, Container, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useBuyTokenModal } from '../../../shared/ui/BuyTokenContext';

const FEATURES = ['keys', 'fee', 'subscriptions', 'strategy'] as const;

/**
 * Landing page (spec part 1 §1 and §2): hero, four feature blocks with the marketing points, the
 * in-development banner, the liquidity-buffer advice banner, the token purchase button and a forum button.
 */
export function LandingPage() {
  const { t } = useTranslation();
  const buyToken = useBuyTokenModal();
  return (
    <Container size="lg" py="xl">
      <Stack gap="xl">
        <Stack gap="sm" align="center" ta="center" data-testid="landing-hero">
          <Title order={1}>{t('landing.hero.title')}</Title>
          <Text size="lg" c="dimmed" maw={720}>
            {t('landing.hero.subtitle')}
          </Text>
          <Group justify="center" mt="sm">
            <Button size="md" onClick={buyToken.open} data-testid="landing-buy-token">
              {t('landing.buyToken')}
            </Button>
            <Button size="md" variant="default" component={Link} to="/forum" data-testid="landing-forum">
              {t('landing.forum')}
            </Button>
          </Group>
        </Stack>

        <Alert
          color="yellow"
          variant="light"
          title={t('landing.devBanner.title')}
          data-testid="landing-dev-banner"
        >
          {t('landing.devBanner.body')}
        </Alert>

        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="lg">
          {FEATURES.map((key) => (
            <Card key={key} withBorder padding="lg" data-testid={`landing-feature-${key}`}>
              <Title order={3} size="h4" mb="xs">
                {t(`landing.features.${key}.title`)}
              </Title>
              <Text size="sm">{t(`landing.features.${key}.body`)}</Text>
            </Card>
          ))}
        </SimpleGrid>

        <Alert
          color="blue"
          variant="light"
          title={t('landing.liquidity.title')}
          data-testid="landing-liquidity-banner"
        >
          {t('landing.liquidity.body')}
        </Alert>
      </Stack>
    </Container>
  );
}
