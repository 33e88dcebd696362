import { DCA_MESSAGES } from '@bytx/contract';
import type { TFunction } from 'i18next';

/** The server's bot messages (spec part 2 §5, §8) that have a catalog entry of the same words. */
const KEYS: Partial<Record<keyof typeof DCA_MESSAGES, string>> = {
  minPct: 'bots.validation.minPct',
  noExchange: 'bots.validation.noExchange',
  notConnected: 'bots.validation.notConnected',
  noPair: 'bots.validation.noPair',
  badAmount: 'bots.validation.badAmount',
  belowMinCost: 'bots.validation.belowMinCost',
  pairNotAvailable: 'bots.form.pairNotAvailable',
  leverageNoExchange: 'bots.leverage.noExchange',
};

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A bot call's refusal in the user's language: the server answers with the spec's texts, some Spanish
 * and some English (issue 40: one language at a time), so a known one is read from the catalog with
 * its figures; anything else is shown as it came.
 */
export function botServerText(t: TFunction, message: string): string {
  for (const [name, path] of Object.entries(KEYS)) {
    const template: string = DCA_MESSAGES[name as keyof typeof DCA_MESSAGES];
    const names: string[] = [];
    const pattern = template
      .split(/(\{\w+\})/)
      .map((part) => {
        const m = /^\{(\w+)\}$/.exec(part);
        if (!m) return escapeRe(part);
        names.push(m[1]!);
        return '(.+?)';
      })
      .join('');
    const hit = new RegExp(`^${pattern}$`, 's').exec(message);
    if (!hit) continue;
    const text = t(path, Object.fromEntries(names.map((n, i) => [n, hit[i + 1]!])));
    return text === path ? message : text;
  }
  return message;
}
