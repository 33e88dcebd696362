import { UnstyledButton } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useSession } from '../../../shared/session/session';
import { useConfirm } from '../../../shared/ui/ConfirmDialog';
import { forumApi } from '../api/forum';

/**
 * The token logo (spec part 1 §2 Forum): opens /peliculas-series only for the allow-listed accounts.
 * The session's `canOpenLogoArea` answers at once for a refused account; an allowed one is confirmed
 * with the server, which is the authority. Everyone else gets the spec's alert, in the app's own dialog
 * and the user's language.
 */
export function TokenLogo() {
  const { t } = useTranslation();
  const { user } = useSession();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const [ask, dialog] = useConfirm();
  const deny = () => void ask(t('forum.logoDenied'), { alert: true });

  const onClick = async () => {
    if (busy) return;
    if (!user || user.canOpenLogoArea === false) {
      deny();
      return;
    }
    setBusy(true);
    try {
      await forumApi.logoAccess();
      void navigate('/peliculas-series');
    } catch {
      deny();
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <UnstyledButton
        onClick={() => void onClick()}
        aria-label={t('forum.logoLabel')}
        data-testid="forum-logo"
      >
        <img src="/logo.svg" alt={t('forum.logoLabel')} width={48} height={48} />
      </UnstyledButton>
      {dialog}
    </>
  );
}
