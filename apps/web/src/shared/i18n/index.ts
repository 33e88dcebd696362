import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { STORAGE } from '../api/client';

export const LANGUAGES = ['en', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];

/**
 * Every feature owns `i18n/en.json` and `i18n/es.json`; they are merged under the feature's folder
 * name, so `t('forum.title')` reads `features/forum/i18n/<lng>.json` -> `title`. A shared module may
 * own them the same way (`shared/bots/i18n/` as `bots`). The shell's own catalogs live in
 * `app/i18n/` under `shell`, shared words under `shared/i18n/` as `common`.
 */
const catalogs = import.meta.glob<Record<string, unknown>>(
  ['../../features/*/i18n/*.json', '../*/i18n/*.json', '../../app/i18n/*.json', './*.json'],
  { eager: true, import: 'default' },
);

type Tree = Record<string, unknown>;
export const resources: Record<Language, { translation: Tree }> = {
  en: { translation: {} },
  es: { translation: {} },
};
for (const [file, messages] of Object.entries(catalogs)) {
  const m =
    /^(?:\.\.\/\.\.\/features\/([^/]+)\/i18n|\.\.\/([^/]+)\/i18n|\.\.\/\.\.\/app\/(i18n)|\.)\/(en|es)\.json$/.exec(
      file,
    );
  if (!m) continue;
  const area = m[1] ?? m[2] ?? (m[3] ? 'shell' : 'common');
  resources[m[4] as Language].translation[area] = messages;
}

export function storedLanguage(): Language {
  const v = typeof localStorage === 'undefined' ? null : localStorage.getItem(STORAGE.lang);
  return v === 'es' ? 'es' : 'en';
}

void i18n.use(initReactI18next).init({
  resources,
  lng: storedLanguage(),
  fallbackLng: 'en',
  interpolation: { escapeValue: false },
  returnNull: false,
});

i18n.on('languageChanged', (lng) => {
  localStorage.setItem(STORAGE.lang, lng);
  document.documentElement.lang = lng;
});

export default i18n;
