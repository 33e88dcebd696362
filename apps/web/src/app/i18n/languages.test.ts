import { describe, expect, it } from 'vitest';
import { otherLanguageWords, type Lng } from '../../shared/i18n/languageWords';

/**
 * One language at a time (issue 40): every catalog pair has the same keys, an English text has no
 * Spanish word and a Spanish text no English one (the word lists: shared/i18n/languageWords.ts), and the
 * spec's Spanish texts are in the Spanish catalogs exactly as written, translated in the English ones.
 */
const catalogs = import.meta.glob<Record<string, unknown>>(
  ['../../features/*/i18n/*.json', '../../shared/*/i18n/*.json', '../../shared/i18n/*.json', './*.json'],
  { eager: true, import: 'default' },
);

type Flat = Record<string, string>;
function flatten(tree: Record<string, unknown>, prefix = '', out: Flat = {}): Flat {
  for (const [k, v] of Object.entries(tree)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object') flatten(v as Record<string, unknown>, key, out);
    else out[key] = String(v);
  }
  return out;
}

/** Catalog folder -> language -> flattened entries. */
const pairs = new Map<string, Partial<Record<Lng, Flat>>>();
for (const [file, tree] of Object.entries(catalogs)) {
  const m = /^(.*)\/(en|es)\.json$/.exec(file);
  if (!m) continue;
  const [, dir, lng] = m as unknown as [string, string, Lng];
  const pair = pairs.get(dir) ?? {};
  pair[lng] = flatten(tree);
  pairs.set(dir, pair);
}

/** The spec's Spanish texts the interface shows (parts 1 and 2), placeholders as the catalogs write them. */
const SPEC_SPANISH = [
  '⚠️ Debes seleccionar un exchange antes de iniciar el bot.',
  '⚠️ Este exchange no está conectado. Conéctalo en Settings antes de iniciar el bot.',
  'Este exchange no está conectado. Conéctalo en Settings.',
  'Acceso denegado. Por favor, inicia sesión.',
  'Verificando sesión...',
  '✅ Conectado',
  '❌ No conectado',
  'Detener',
  'Sin operaciones aún.',
  'Total ganado',
  'Sin órdenes pendientes.',
  'Símbolo',
  'Monto',
  'Inicio',
  'Cierre',
  'Fondos añadidos correctamente ✅',
  'ON activado ✅',
  'OFF desactivado ✅',
  'Orden vendida (IOC) ✅',
  'Orden eliminada de la base de datos ✅',
  '✅ Reubicado. La malla se rearmó con la misma config desde el precio actual.',
  'Reubicar {{symbol}} en {{exchange}}?',
  '¿Eliminar este registro de historial?',
  'Esto eliminará TODO tu historial. ¿Continuar?',
  'Historial global — Todos tus bots',
  'Ingresa un monto válido (hasta 4 dígitos).',
  '❌ Error al iniciar sesión',
  'Acceso denegado. Solo usuarios autorizados.',
  'Compra enviada',
  'Cantidad inválida',
];

describe('the catalogs speak one language each', () => {
  it('finds every catalog pair', () => {
    expect(pairs.size).toBeGreaterThan(20);
    for (const [dir, pair] of pairs) {
      expect(pair.en, `${dir}/en.json`).toBeDefined();
      expect(pair.es, `${dir}/es.json`).toBeDefined();
    }
  });

  it('has every key in both languages', () => {
    const missing: string[] = [];
    for (const [dir, { en = {}, es = {} }] of pairs) {
      for (const k of Object.keys(en)) if (!(k in es)) missing.push(`${dir}/es.json: ${k}`);
      for (const k of Object.keys(es)) if (!(k in en)) missing.push(`${dir}/en.json: ${k}`);
    }
    expect(missing).toEqual([]);
  });

  for (const lng of ['en', 'es'] as const) {
    it(`has no word of the other language in a ${lng === 'en' ? 'English' : 'Spanish'} text`, () => {
      const wrong: string[] = [];
      for (const [dir, pair] of pairs) {
        for (const [k, v] of Object.entries(pair[lng] ?? {})) {
          const words = otherLanguageWords(v, lng);
          if (words.length) wrong.push(`${dir}/${lng}.json ${k}: "${v}" (${words.join(', ')})`);
        }
      }
      expect(wrong).toEqual([]);
    });
  }

  it("has the spec's Spanish texts in Spanish only", () => {
    const all = (lng: Lng) => [...pairs.values()].flatMap((p) => Object.values(p[lng] ?? {}));
    const es = new Set(all('es'));
    const en = new Set(all('en'));
    expect(SPEC_SPANISH.filter((text) => !es.has(text))).toEqual([]);
    expect(SPEC_SPANISH.filter((text) => en.has(text))).toEqual([]);
  });

  it('tells a word of the other language', () => {
    expect(otherLanguageWords('Sin órdenes pendientes.', 'en')).toEqual(['Sin', 'órdenes', 'pendientes']);
    expect(otherLanguageWords('Export CSV', 'es')).toEqual(['Export']);
    expect(otherLanguageWords('Este exchange no está conectado. Conéctalo en Settings.', 'es')).toEqual([]);
    expect(otherLanguageWords('Total PnL: {{de}} USDT', 'en')).toEqual([]);
    expect(otherLanguageWords('¿Continuar?', 'en')).toEqual(['¿Continuar']);
    expect(otherLanguageWords('3 78de8b9f ETH/USDT', 'en')).toEqual([]);
  });
});
