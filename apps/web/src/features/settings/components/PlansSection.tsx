import { PLANS } from '@bytx/contract';
import { Badge, Button, Card, Paper, SimpleGrid, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** Subscription plans (spec part 1 §9): paid in the native token; payment comes with the token work. */
export function PlansSection() {
  const { t } = useTranslation();
  return (
    <Paper withBorder p="md" radius="md" data-testid="settings-plans">
      <Title order={4}>{t('settings.plans.title')}</Title>
      <Text size="sm" c="dimmed" mt={4}>
        {t('settings.plans.intro')}
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 3 }} mt="sm">
        {PLANS.map((plan) => (
          <Card key={plan.id} withBorder data-testid={`plan-${plan.id}`}>
            <Text fw={700}>{t(`settings.plans.${plan.id}`)}</Text>
            <Text size="xl" fw={700} mt="xs">
              ${plan.priceUsd}{' '}
              <Text span size="sm" c="dimmed">
                USD / {t('settings.plans.month')}
              </Text>
            </Text>
            <Badge variant="light" mt="xs">
              {t('settings.plans.paidInToken')}
            </Badge>
            <Button mt="sm" disabled fullWidth>
              {t('settings.plans.soon')}
            </Button>
          </Card>
        ))}
      </SimpleGrid>
    </Paper>
  );
}
