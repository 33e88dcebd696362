import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation } from 'react-router';
import { PlainAlert, PlainButton } from '../shared/ui/plain';

/** What the redirect leaves in the history entry of `/`: the path that does not exist. */
interface NotFoundState {
  notFound?: unknown;
}

/**
 * An unknown route goes home (spec part 1 §2), carrying the missing path so `/` can say why the
 * visitor is there instead of the page they asked for (issue 40 point 7).
 */
export function NotFoundRedirect() {
  const { pathname, search } = useLocation();
  return <Navigate to="/" replace state={{ notFound: `${pathname}${search}` } satisfies NotFoundState} />;
}

/**
 * The notice on `/` after such a redirect. Plain (Mantine-look) markup and the shell's catalog: it is
 * in the first script and shows at once, where a toast's container would load only after the first
 * interaction (app/providers.tsx). A new navigation has no state, so it goes away by itself.
 */
export function NotFoundNotice() {
  const { t } = useTranslation();
  const location = useLocation();
  const [closedAt, setClosedAt] = useState<string | null>(null);
  const missing = (location.state as NotFoundState | null)?.notFound;
  if (typeof missing !== 'string' || closedAt === location.key) return null;
  return (
    <div
      style={{
        maxWidth: 'var(--container-size-lg)',
        margin: 'var(--mantine-spacing-md) auto 0',
        paddingInline: 'var(--mantine-spacing-md)',
      }}
    >
      <PlainAlert color="yellow" title={t('shell.notFound.title')} data-testid="not-found-notice">
        {t('shell.notFound.body', { path: missing })}{' '}
        <PlainButton
          variant="subtle"
          size="compact-sm"
          onClick={() => setClosedAt(location.key)}
          data-testid="not-found-close"
        >
          {t('common.close')}
        </PlainButton>
      </PlainAlert>
    </div>
  );
}
