import type { TFunction } from 'i18next';
import { fmtFigure } from './figures';

/**
 * A bot event as a sentence in the user's language (issue 40 pt 3: "Why no order?" and the arbitrage
 * log printed `base_filled {"fee":0.01976298,…}`). The sentence is the first catalog entry found:
 * `<ns>.events.codes.<code>` for each of `namespaces` (the screen's own words), then
 * `bots.events.codes.<code>` (what every kind's runner writes). Its values are formatted first: numbers
 * with the locale's separators, ISO times as local times, known words (`cancelled`, `close_market`,
 * `base`, …) from `bots.events.values`. A code no catalog names becomes a generic line, the code's
 * words and each value named ("Base filled: fee 0.01976298 · qty 0.001"), never JSON.
 */
/** What of i18next a sentence needs: whether a key exists, and the language (for the numbers). */
export interface EventI18n {
  exists: (key: string) => boolean;
  language: string;
}

export function eventSentence(
  t: TFunction,
  i18n: EventI18n,
  namespaces: readonly string[],
  code: string,
  params: unknown,
): string {
  const locale = i18n.language || 'en';
  const vals = eventValues(t, i18n, params, locale);
  for (const ns of [...namespaces, 'bots']) {
    const key = `${ns}.events.codes.${code}`;
    if (i18n.exists(key)) return t(key, vals);
  }
  const event = humanize(code);
  const details = Object.entries(vals)
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `${humanize(k).toLowerCase()} ${v}`)
    .join(' · ');
  return details ? t('bots.events.generic', { event, details }) : t('bots.events.genericBare', { event });
}

/** `base_filled` → `Base filled`; `clientOrderId` → `Client order id`. */
export function humanize(code: string): string {
  const words = code
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words ? words[0]!.toUpperCase() + words.slice(1) : code;
}

const NUMERIC = /^-?\d+(?:\.\d+)?(?:e[-+]?\d+)?$/i;
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d/;

/** Values a sentence interpolates: every param a readable string (see `eventSentence`). */
export function eventValues(
  t: TFunction,
  i18n: Pick<EventI18n, 'exists'>,
  params: unknown,
  locale: string,
): Record<string, string> {
  if (params === null || typeof params !== 'object' || Array.isArray(params)) {
    return params === undefined || params === null
      ? {}
      : { value: valueText(t, i18n, 'value', params, locale) };
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params as Record<string, unknown>)) {
    out[k] = valueText(t, i18n, k, v, locale);
  }
  return out;
}

function valueText(
  t: TFunction,
  i18n: Pick<EventI18n, 'exists'>,
  key: string,
  v: unknown,
  locale: string,
): string {
  if (v === null || v === undefined) return '';
  // Identifiers (lot_id, clientOrderId, trip, an exchange error code) are names, not amounts: no separators.
  const isId = /(?:^|_)id$|Id$|^trip$|^seq$|^code$/.test(key);
  if (typeof v === 'boolean') return t(v ? 'bots.events.values.on' : 'bots.events.values.off');
  if (key === 'enabled' && (v === 0 || v === 1 || v === '0' || v === '1')) {
    return t(Number(v) === 1 ? 'bots.events.values.on' : 'bots.events.values.off');
  }
  if (typeof v === 'number') {
    if ((key === 'ts' || key === 'until') && v > 1e11) return new Date(v).toLocaleString(locale);
    return isId ? String(v) : fmtFigure(v, locale);
  }
  if (typeof v === 'string') {
    if (!isId && NUMERIC.test(v.trim())) return fmtFigure(Number(v), locale);
    if (ISO_TIME.test(v)) {
      const d = new Date(v);
      if (Number.isFinite(d.getTime())) return d.toLocaleString(locale);
    }
    // An exchange's message may carry its JSON body ('binance {"code":-2010,"msg":"…"}'): its fields
    // named, the braces and quotes dropped.
    const brace = v.indexOf('{');
    if (brace >= 0) {
      try {
        const body: unknown = JSON.parse(v.slice(brace));
        if (body && typeof body === 'object') {
          return `${v.slice(0, brace).trim()} ${valueText(t, i18n, key, body, locale)}`.trim();
        }
      } catch {
        // not JSON: fall through to the plain text without braces
      }
      return v.replace(/[{}"]/g, '');
    }
    // A role ('base', 'safety') and a side ('buy', 'base') read differently from other words.
    const group = key === 'role' ? 'roles' : /side$/.test(key) ? 'sides' : 'values';
    const word = `bots.events.${group}.${v}`;
    return /^[a-z][a-z0-9_]*$/.test(v) && i18n.exists(word) ? t(word) : v;
  }
  if (Array.isArray(v)) return v.map((x) => valueText(t, i18n, key, x, locale)).join(', ');
  if (typeof v === 'object') {
    return Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${humanize(k).toLowerCase()} ${valueText(t, i18n, k, x, locale)}`)
      .join(', ');
  }
  // bigint, symbol, function: nothing a sentence can say.
  return typeof v === 'bigint' ? v.toString() : '';
}
