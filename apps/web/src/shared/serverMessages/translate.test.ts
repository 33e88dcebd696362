import * as contract from '@bytx/contract';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { errorMessage } from '../api/client';
import { serverText } from '../trading/orderRules';
import i18n, { loadAllCatalogs } from '../i18n/index';
import { translateServerMessage } from './translate';

const SERVER = path.join(import.meta.dirname, '../../../../server/src');

function sources(dir: string): { file: string; text: string }[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const at = path.join(dir, d.name);
    if (d.isDirectory()) return sources(at);
    return /\.ts$/.test(d.name) && !/\.test\.ts$/.test(d.name)
      ? [{ file: at, text: fs.readFileSync(at, 'utf8') }]
      : [];
  });
}

/** A string literal at `at` (its opening quote): its text parts and `${…}` expressions in order. */
function literal(src: string, at: number): (string | { expr: string })[] {
  const quote = src[at]!;
  const parts: (string | { expr: string })[] = [];
  let text = '';
  for (let i = at + 1; i < src.length; i++) {
    const c = src[i]!;
    if (c === '\\') {
      text += src[++i];
    } else if (c === quote) {
      parts.push(text);
      return parts;
    } else if (quote === '`' && c === '$' && src[i + 1] === '{') {
      let depth = 1;
      let j = i + 2;
      for (; depth > 0 && j < src.length; j++) {
        if (src[j] === '{') depth++;
        else if (src[j] === '}') depth--;
      }
      parts.push(text, { expr: src.slice(i + 2, j - 1).trim() });
      text = '';
      i = j - 1;
    } else text += c;
  }
  throw new Error(`unterminated literal at ${at}`);
}

const files = sources(SERVER);
/** `export const NAME = '…'` of the server (COULD_NOT_CONNECT and the like, used inside messages). */
const constants = new Map<string, string>();
for (const { text } of files) {
  for (const m of text.matchAll(/export const ([A-Z_]+) = '([^']*)'/g)) constants.set(m[1]!, m[2]!);
}

/** A figure put where the server puts a name, figure or reason: it must come back in the translation. */
const FIGURE = '20';
function sample(parts: (string | { expr: string })[]): string {
  return parts
    .map((p) => {
      if (typeof p === 'string') return p;
      if (constants.has(p.expr)) return constants.get(p.expr)!;
      const m = /^([A-Z_]+_MESSAGES)\.(\w+)$/.exec(p.expr);
      const group = m ? (contract as unknown as Record<string, Record<string, string>>)[m[1]!] : undefined;
      return group?.[m![2]!] ?? FIGURE;
    })
    .join('');
}

/** Every refusal the server writes as a literal: `new HttpError(status, '…')` and lib/errors.ts's helpers. */
const CALL =
  /(?:new HttpError\(\d+,\s*|\b(?:badRequest|unauthorized|forbidden|notFound|conflict|tooManyRequests)\()(?=['`])/g;
const collected = new Set<string>();
for (const { text } of files) {
  for (const m of text.matchAll(CALL)) collected.add(sample(literal(text, m.index + m[0].length)));
}
// lib/errors.ts's default texts and the error handler's answers.
for (const m of fs
  .readFileSync(path.join(SERVER, 'lib/errors.ts'), 'utf8')
  .matchAll(/message = '([^']+)'/g)) {
  collected.add(m[1]!);
}
collected.add('Internal server error');
// The message constants of the bots' refusals (conflicts, limits, not found) that reach a toast.
const C = contract;
for (const text of [
  C.DCA_MESSAGES.alreadyActive,
  C.DCA_MESSAGES.noActiveBot,
  C.DCA_MESSAGES.tooManyBots,
  C.DCA_MESSAGES.delistedStopKeepsAssets,
  C.CLASSIC_DCA_MESSAGES.noActiveBot,
  C.CLASSIC_DCA_MESSAGES.alreadyActive,
  C.CLASSIC_DCA_MESSAGES.notInPosition,
  C.SIGNAL_MESSAGES.tooManyBots,
  C.SIGNAL_MESSAGES.alreadyActive,
  C.PENDING_MESSAGES.notFound,
  C.PENDING_MESSAGES.completed,
  C.PENDING_MESSAGES.busy,
  C.PENDING_MESSAGES.botNotRunning,
  C.CHAIN_MESSAGES.planRequired,
  C.CHAIN_MESSAGES.planLimit,
  C.BACKTEST_MESSAGES.alreadyRunning,
  C.ARBITRAGE_MESSAGES.alreadyActive,
  C.HISTORY_MESSAGES.notFound,
]) {
  collected.add(text.replace(/\{(\w+)\}/g, FIGURE));
}

/** Every text of the other catalogs (a screen's own mapping), placeholders as the contract writes them (`{x}`). */
const catalogTexts = new Set(
  Object.values(
    import.meta.glob<Record<string, unknown>>(
      ['../../features/*/i18n/*.json', '../*/i18n/*.json', '!./i18n/*.json'],
      {
        eager: true,
        import: 'default',
      },
    ),
  ).flatMap(function texts(tree: unknown): string[] {
    if (typeof tree === 'string') return [tree.replace(/\{\{(\w+)\}\}/g, '{$1}')];
    return tree && typeof tree === 'object' ? Object.values(tree).flatMap(texts) : [];
  }),
);

/**
 * Groups a screen maps with its own mapper and catalog keys (trading/orderRules, signal, arbitrage, chain,
 * earnings, pending serverText), or the web's own texts (HISTORY_MESSAGES: the global history's headings).
 */
const OWN_MAPPER = new Set([
  'SPOT_MESSAGES',
  'SIGNAL_MESSAGES',
  'ARBITRAGE_MESSAGES',
  'CHAIN_MESSAGES',
  'EARNINGS_MESSAGES',
  'PENDING_MESSAGES',
  'HISTORY_MESSAGES',
]);

describe('server refusals in the user language', () => {
  beforeAll(async () => {
    await loadAllCatalogs();
  });
  afterEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('reads the server sources (the collection is not empty by accident)', () => {
    expect(collected.size).toBeGreaterThan(50);
    expect(collected).toContain('Market data is not available.');
    expect(collected).toContain('Could not connect to exchange. 20 did not answer; please try again.');
  });

  it('has a translation for every collected server message, with its figures', async () => {
    const missing: string[] = [];
    for (const text of collected) {
      await i18n.changeLanguage('es');
      const es = translateServerMessage(text);
      await i18n.changeLanguage('en');
      const en = translateServerMessage(text);
      // An English text reads differently in Spanish; a Spanish one (the spec's) in English.
      const other = es !== text ? es : en;
      if (other === text) missing.push(text);
      else if (text.includes(FIGURE) && !other.includes(FIGURE))
        missing.push(`${text} (figure lost: ${other})`);
    }
    expect(missing).toEqual([]);
  });

  it('translates a refusal with a figure and leaves unknown texts as they are', async () => {
    await i18n.changeLanguage('es');
    expect(translateServerMessage('Too many requests. Please try again in 42 seconds.')).toBe(
      'Demasiadas solicitudes. Vuelve a intentarlo en 42 segundos.',
    );
    expect(
      translateServerMessage(
        'Running bots with the Pro plan: at most 20. Stop one, or choose a larger plan in Settings → Plans.',
      ),
    ).toBe(
      'Bots en marcha con el plan Pro: como máximo 20. Detén uno o elige un plan mayor en Ajustes → Planes.',
    );
    // A specific text wins over a general pattern that would also match it.
    expect(translateServerMessage('The exchange does not support this.')).toBe('El exchange no admite esto.');
    expect(translateServerMessage('boom')).toBe('boom');
    // The shared helper that turns API errors into a toast's text applies it.
    expect(errorMessage(new Error('Market data is not available.'))).toBe(
      'Los datos de mercado no están disponibles.',
    );
    // The trading screen's own mapper hands the texts it does not know to it.
    expect(serverText(i18n.t, 'No price for this pair yet; try again in a moment.')).toBe(
      'Todavía no hay precio para este par; vuelve a intentarlo en un momento.',
    );
    await i18n.changeLanguage('en');
    expect(translateServerMessage('Market data is not available.')).toBe('Market data is not available.');
    expect(translateServerMessage('No se pudo agregar fondos: saldo insuficiente')).toBe(
      'Could not add funds: saldo insuficiente',
    );
  });

  it('has every message constant of the contract in a catalog or translated here', async () => {
    const missing: string[] = [];
    for (const [name, group] of Object.entries(contract)) {
      if (!/_MESSAGES$/.test(name) || !group || typeof group !== 'object' || OWN_MAPPER.has(name)) continue;
      for (const [key, template] of Object.entries(group as Record<string, unknown>)) {
        if (typeof template !== 'string' || catalogTexts.has(template)) continue;
        const text = template.replace(/\{(\w+)\}/g, FIGURE);
        await i18n.changeLanguage('es');
        const es = translateServerMessage(text);
        await i18n.changeLanguage('en');
        if (es === text && translateServerMessage(text) === text) missing.push(`${name}.${key}: ${template}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("has the server's message constants (`export const …_MESSAGE = '…'`) in a catalog or translated here", async () => {
    const missing: string[] = [];
    for (const { text: src } of files) {
      for (const m of src.matchAll(/export const (\w+_MESSAGE) =\s*(['`])/g)) {
        const text = sample(literal(src, m.index + m[0].length - 1));
        if (catalogTexts.has(text)) continue;
        await i18n.changeLanguage('es');
        const es = translateServerMessage(text);
        await i18n.changeLanguage('en');
        if (es === text && translateServerMessage(text) === text) missing.push(`${m[1]}: ${text}`);
      }
    }
    // And the server's own message objects (`const CODE_MESSAGES = { … }`, MANUAL_INPUT_MESSAGES, …).
    for (const { text: src } of files) {
      for (const block of src.matchAll(/const (\w+_MESSAGES)\b[^=]*= \{([\s\S]*?)\n\}/g)) {
        for (const v of block[2]!.matchAll(/:\s*'((?:[^'\\]|\\.)*)'/g)) {
          const text = v[1]!.replace(/\{(\w+)\}/g, FIGURE);
          if (catalogTexts.has(v[1]!)) continue;
          await i18n.changeLanguage('es');
          const es = translateServerMessage(text);
          await i18n.changeLanguage('en');
          if (es === text && translateServerMessage(text) === text) missing.push(`${block[1]}: ${text}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
