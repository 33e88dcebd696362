import { Container, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** A screen whose feature is not built yet says so plainly (the spec's own banner says it is in development). */
export function InDevelopment({ title }: { title: string }) {
  const { t } = useTranslation();
  return (
    <Container size="md" py="xl">
      <Title order={1} size="h2">
        {title}
      </Title>
      <Text c="dimmed" mt="sm">
        {t('common.inDevelopment')}
      </Text>
    </Container>
  );
}
