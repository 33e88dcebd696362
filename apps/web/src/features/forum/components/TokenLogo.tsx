import { LOGO_DENIED_MESSAGE } from '@bytx/contract';
import { UnstyledButton } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useSession } from '../../../shared/session/session';
import { forumApi } from '../api/forum';

/**
 * The token logo (spec part 1 §2 Forum): opens /peliculas-series only for the allow-listed accounts.
 * The session's `canOpenLogoArea` answers at once for a refused account; an allowed one is confirmed
 * with the server, which is the authority. Everyone else gets the spec's alert.
 */
export function TokenLogo() {
  const { t } = useTranslation();
  const { user } = useSession();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);

  const onClick = async () => {
    if (busy) return;
    if (!user || user.canOpenLogoArea === false) {
      window.alert(LOGO_DENIED_MESSAGE);
      return;
    }
    setBusy(true);
    try {
      await forumApi.logoAccess();
      void navigate('/peliculas-series');
    } catch {
      window.alert(LOGO_DENIED_MESSAGE);
    } finally {
      setBusy(false);
    }
  };

  return (
    <UnstyledButton onClick={() => void onClick()} aria-label={t('forum.logoLabel')} data-testid="forum-logo">
      <img src="/logo.svg" alt={t('forum.logoLabel')} width={48} height={48} />
    </UnstyledButton>
  );
}
