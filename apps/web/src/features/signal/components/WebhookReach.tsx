import { Alert } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** Hosts TradingView (on the internet) cannot post to: this machine or an unspecified address. */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '0.0.0.0', '[::1]', '::1']);

/** The host of a webhook URL when it is a local one, else null (also for a URL that does not parse). */
export function localHostOf(url: string): string | null {
  try {
    const host = new URL(url).hostname.toLowerCase();
    return LOCAL_HOSTS.has(host) || host.endsWith('.localhost') || host.startsWith('127.') ? host : null;
  } catch {
    return null;
  }
}

/**
 * Next to the webhook URL (issue 40 pt 7): a URL on localhost / 127.0.0.1 cannot be reached by
 * TradingView, and it comes from the server's PUBLIC_URL (apps/server/src/config.ts), which sets it.
 * Nothing for a public URL.
 */
export function WebhookReach({ url }: { url: string }) {
  const { t } = useTranslation();
  const host = localHostOf(url);
  if (!host) return null;
  return (
    <Alert color="yellow" p="xs" data-testid="signal-webhook-local">
      {t('signal.webhookLocal', { host })}
    </Alert>
  );
}
