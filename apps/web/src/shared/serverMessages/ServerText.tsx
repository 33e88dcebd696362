import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { loadCatalogs } from '../i18n/index';

/**
 * A text the server sent, in the user's language, on the pages of the first script (sign-in, sign-up):
 * there the server-message catalog is not loaded yet (it comes with the other pages' catalogs, not in
 * the first script), so this loads it and the translator on first use and shows the text as sent until
 * they arrive (a few ms from our own server). A text that is not a server message (already translated)
 * comes back from the translator unchanged. Elsewhere `errorMessage()` (shared/api/client.ts) does this
 * at once, the catalogs being loaded with the page.
 */
export function ServerText({ text }: { text: string }) {
  const { i18n } = useTranslation();
  const [done, setDone] = useState<{ from: string; lng: string; to: string } | null>(null);
  useEffect(() => {
    let live = true;
    const lng = i18n.language;
    void Promise.all([loadCatalogs(), import('./translate')]).then(([, m]) => {
      if (live) setDone({ from: text, lng, to: m.translateServerMessage(text) });
    });
    return () => {
      live = false;
    };
  }, [text, i18n.language]);
  return <>{done && done.from === text && done.lng === i18n.language ? done.to : text}</>;
}
