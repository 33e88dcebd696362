import type { TFunction } from 'i18next';
import { FUTURES_MESSAGES } from '../api/futures';

const escape = (s: string) => s.replace(/[.*+?^$()|[\]\\]/g, '\\$&');

/** A contract template as a pattern: each `{name}` captures its filled value. */
function matcher(template: string) {
  const names: string[] = [];
  const source = escape(template).replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return '(.+?)';
  });
  return { re: new RegExp(`^${source}$`), names };
}

/**
 * A server text of the futures calls in the page's language: a text made from one of the contract's
 * messages (its placeholders filled) is read from `futures.messages.<key>` with the same values; any
 * other text is shown as the server wrote it.
 */
export function serverText(t: TFunction, message: string): string {
  for (const [key, template] of Object.entries(FUTURES_MESSAGES)) {
    const { re, names } = matcher(template);
    const m = re.exec(message);
    if (!m) continue;
    const params = Object.fromEntries(names.map((n, i) => [n, m[i + 1] ?? '']));
    const path = `futures.messages.${key}`;
    const text = t(path, params);
    return text !== path ? text : message;
  }
  return message;
}
