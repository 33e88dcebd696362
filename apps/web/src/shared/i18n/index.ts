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
 *
 * The first page's catalogs (shell, common, landing, auth: the header's sign-in form) are in the
 * first script; all the others (about 16 KB gzip a language) load with the first lazy page
 * (`loadCatalogs`, called by `app/lazyPage.tsx` before the page renders) — docs/web-shell.md
 * "First page size".
 */
const firstPageCatalogs = import.meta.glob<Record<string, unknown>>(
  [
    '../../features/landing/i18n/*.json',
    '../../features/auth/i18n/*.json',
    '../../app/i18n/*.json',
    './*.json',
  ],
  { eager: true, import: 'default' },
);
const laterCatalogs = import.meta.glob<Record<string, unknown>>(
  [
    '../../features/*/i18n/*.json',
    '../*/i18n/*.json',
    '!../../features/landing/i18n/*.json',
    '!../../features/auth/i18n/*.json',
  ],
  { import: 'default' },
);

/** The catalog's area (`forum`, `bots`, `shell`, `common`) and language, from its file name. */
function areaOf(file: string): { area: string; lng: Language } | null {
  const m =
    /^(?:\.\.\/\.\.\/features\/([^/]+)\/i18n|\.\.\/([^/]+)\/i18n|\.\.\/\.\.\/app\/(i18n)|\.)\/(en|es)\.json$/.exec(
      file,
    );
  if (!m) return null;
  return { area: m[1] ?? m[2] ?? (m[3] ? 'shell' : 'common'), lng: m[4] as Language };
}

type Tree = Record<string, unknown>;
export const resources: Record<Language, { translation: Tree }> = {
  en: { translation: {} },
  es: { translation: {} },
};
for (const [file, messages] of Object.entries(firstPageCatalogs)) {
  const at = areaOf(file);
  if (at) resources[at.lng].translation[at.area] = messages;
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
  // Catalogs added after the first render (a language switched on a page) re-render the texts.
  react: { bindI18nStore: 'added' },
});

const loading = new Map<Language, Promise<void>>();
let pagesAsked = false;

function loadLanguage(lng: Language): Promise<void> {
  let done = loading.get(lng);
  if (!done) {
    const files = Object.entries(laterCatalogs).filter(([file]) => areaOf(file)?.lng === lng);
    done = Promise.all(files.map(async ([file, load]) => [areaOf(file)?.area, await load()] as const)).then(
      (loaded) => {
        // One bundle of every area, added once: each addition tells every translated component to
        // render again (`bindI18nStore: 'added'`), and added one by one, as their imports resolved,
        // the forty-odd areas were as many renders of the shell on a page's first visit (issue 39).
        const bundle: Tree = {};
        for (const [area, messages] of loaded) {
          if (!area) continue;
          resources[lng].translation[area] = messages;
          bundle[area] = messages;
        }
        i18n.addResourceBundle(lng, 'translation', bundle, true, true);
      },
    );
    // A failed download (network) may be retried by the next page.
    done.catch(() => loading.delete(lng));
    loading.set(lng, done);
  }
  return done;
}

/** The other pages' catalogs of the current language and of the English fallback. */
export function loadCatalogs(): Promise<void> {
  pagesAsked = true;
  const lng: Language = i18n.language === 'es' ? 'es' : 'en';
  return Promise.all([loadLanguage('en'), loadLanguage(lng)]).then(() => undefined);
}

/** Every catalog of every language (component tests render pages without the lazy loader). */
export function loadAllCatalogs(): Promise<void> {
  pagesAsked = true;
  return Promise.all(LANGUAGES.map(loadLanguage)).then(() => undefined);
}

i18n.on('languageChanged', (lng) => {
  localStorage.setItem(STORAGE.lang, lng);
  document.documentElement.lang = lng;
  // A page is open: its texts in the new language (they re-render when the catalogs are added).
  if (pagesAsked) void loadCatalogs();
});

export default i18n;
