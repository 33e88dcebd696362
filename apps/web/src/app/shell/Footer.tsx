import { useTranslation } from 'react-i18next';
import { PlainText } from '../../shared/ui/plain';

export function Footer() {
  const { t } = useTranslation();
  return (
    <PlainText
      component="footer"
      size="sm"
      c="dimmed"
      style={{ paddingBlock: 'var(--mantine-spacing-lg)', textAlign: 'center' }}
      data-testid="footer"
    >
      {t('shell.footer', { year: 2025 })}
    </PlainText>
  );
}
