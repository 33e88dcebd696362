import { useTranslation } from 'react-i18next';
import { PlainActionIcon } from '../../shared/ui/plain';

/**
 * The login page's icon link: the trigger of `LoginPageLink`'s tooltip (HeaderControls.tsx), and the
 * header's stand-in until that loads. `props` are the tooltip's handlers and ref.
 */
export function LoginPageIcon(props: object) {
  const { t } = useTranslation();
  return (
    <PlainActionIcon
      {...props}
      to="/login"
      variant="subtle"
      color="gray"
      aria-label={t('shell.nav.loginPage')}
      data-testid="nav-login"
    >
      <span aria-hidden>↗</span>
    </PlainActionIcon>
  );
}
