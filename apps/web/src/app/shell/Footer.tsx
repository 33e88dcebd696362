import { Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';

export function Footer() {
  const { t } = useTranslation();
  return (
    <Text component="footer" ta="center" size="sm" c="dimmed" py="lg" data-testid="footer">
      {t('shell.footer', { year: 2025 })}
    </Text>
  );
}
