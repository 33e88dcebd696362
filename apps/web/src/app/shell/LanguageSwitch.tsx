import { useTranslation } from 'react-i18next';
import type { Language } from '../../shared/i18n/index';
import { PlainSegmented } from '../../shared/ui/plain';

/** Spanish/English switch; the choice is remembered in localStorage 'lang' (shared/i18n). */
export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  const current: Language = i18n.resolvedLanguage === 'es' ? 'es' : 'en';
  return (
    <PlainSegmented
      value={current}
      onChange={(lng) => void i18n.changeLanguage(lng)}
      aria-label={t('shell.language')}
      data-testid="lang-switch"
      data={[
        { value: 'en', label: 'EN' },
        { value: 'es', label: 'ES' },
      ]}
    />
  );
}
