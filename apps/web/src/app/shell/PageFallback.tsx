import { useTranslation } from 'react-i18next';
import { PlainLoader } from '../../shared/ui/plain';

/**
 * What the shell shows while a page's chunk downloads (first visit only). The room is reserved by the
 * shell's page area (`Shell.tsx`), so this only marks the wait.
 */
export function PageFallback() {
  const { t } = useTranslation();
  return (
    <div data-testid="page-loading" style={{ display: 'flex', justifyContent: 'center', paddingTop: 32 }}>
      <PlainLoader aria-label={t('common.loading')} />
    </div>
  );
}
