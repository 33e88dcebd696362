import i18n from 'i18next';

/**
 * The server's refusal texts in the user's language (issue 40 point 1: one language at a time).
 *
 * The server answers in one language, English for most texts and Spanish for some the spec writes in
 * Spanish; the API keeps them (the spec and outside checks read them). The catalog `serverMessages`
 * (shared/serverMessages/i18n/{en,es}.json) holds each text in both languages, the server's own words
 * in the language it sends them, figures and names as `{{placeholders}}`. A message is matched against
 * the other language's entries and read again in the current one with the same figures; an unknown
 * message comes back as it is.
 *
 * The catalog loads with the other pages' catalogs (not in the first script: /bot-dca's first paint);
 * before that, the message shows as the server sent it. Same idea as shared/bots/serverText.ts (a
 * template with placeholders as a pattern), with the catalog itself as the list of templates.
 */
const AREA = 'serverMessages';

type Lng = 'en' | 'es';
interface Entry {
  key: string;
  re: RegExp;
  names: string[];
  /** Literal characters: longer templates are tried first, so a specific text wins over a general one. */
  weight: number;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Names and symbols are one or two words; other figures and reasons may be any text. */
const SHORT = new Set(['name', 'exchange', 'symbol', 'coin', 'plan']);

function compile(key: string, template: string): Entry {
  const names: string[] = [];
  let weight = 0;
  const source = template
    .split(/(\{\{\w+\}\})/)
    .map((part) => {
      const m = /^\{\{(\w+)\}\}$/.exec(part);
      if (!m) {
        weight += part.length;
        return escapeRe(part);
      }
      names.push(m[1]!);
      return SHORT.has(m[1]!) ? '(\\S+(?: \\S+)?)' : '(.*?)';
    })
    .join('');
  // No placeholder: an exact text, tried before every pattern.
  if (names.length === 0) weight += 100_000;
  return { key, re: new RegExp(`^${source}$`, 's'), names, weight };
}

const compiled = new WeakMap<object, Entry[]>();

function entriesOf(lng: Lng): Entry[] {
  const tree = i18n.getResourceBundle(lng, 'translation') as Record<string, unknown> | undefined;
  const texts = tree?.[AREA] as Record<string, string> | undefined;
  if (!texts) return [];
  let list = compiled.get(texts);
  if (!list) {
    list = Object.entries(texts)
      .map(([key, template]) => compile(key, template))
      .sort((a, b) => b.weight - a.weight);
    compiled.set(texts, list);
  }
  return list;
}

/** `message` in the current language if it is a known server text (of either language), else as it is. */
export function translateServerMessage(message: string): string {
  const lng: Lng = i18n.language === 'es' ? 'es' : 'en';
  const other: Lng = lng === 'es' ? 'en' : 'es';
  for (const { key, re, names } of entriesOf(other)) {
    const hit = re.exec(message);
    if (!hit) continue;
    const path = `${AREA}.${key}`;
    if (typeof i18n.getResource(lng, 'translation', path) !== 'string') return message;
    return i18n.t(path, { lng, ...Object.fromEntries(names.map((n, i) => [n, hit[i + 1] ?? ''])) });
  }
  return message;
}
