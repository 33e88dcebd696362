import { useTranslation } from 'react-i18next';
import { InDevelopment } from '../../../shared/ui/InDevelopment';

/** A later issue builds this screen; until then it says plainly that it is in development. */
export function GlobalHistoryPage() {
  const { t } = useTranslation();
  return <InDevelopment title={t('history.title')} />;
}
