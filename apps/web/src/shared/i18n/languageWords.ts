/**
 * Words that give away the other language (issue 40: one language at a time). Shared by the catalog
 * test (`apps/web/src/app/i18n/languages.test.ts`) and the browser walk of every route
 * (`e2e/one-language.test.ts`); no app code imports this file.
 *
 * Each list holds only words that are not also words of the other language ("Total", "Error", "No",
 * "Bot", "Spot" are both); trading terms the Spanish interface keeps in English (Take Profit, Stop Loss,
 * Long, Short, Grid, PnL, paper, drawdown, exchange) are in neither list, nor are key names (Enter, Tab,
 * Escape), which Spanish texts name as the keyboard does.
 */

/** Spanish words an English text never has (lower case; matched as whole words, case-insensitive). */
export const SPANISH_WORDS: readonly string[] = [
  'acceso',
  'acciones',
  'actualizar',
  'activado',
  'activo',
  'activos',
  'ajustes',
  'anterior',
  'añadidos',
  'añadir',
  'aún',
  'billetera',
  'buscar',
  'cancelar',
  'cantidad',
  'cargando',
  'cargar',
  'cerrar',
  'cierre',
  'compra',
  'comprar',
  'con',
  'conectado',
  'conectar',
  'confirmar',
  'correctamente',
  'cuenta',
  'de',
  'debes',
  'del',
  'denegado',
  'desactivado',
  'desconocido',
  'detener',
  'el',
  'eliminar',
  'entrada',
  'estado',
  'fecha',
  'fondos',
  'ganado',
  'ganancia',
  'guardar',
  'hay',
  'historial',
  'iniciar',
  'inicio',
  'la',
  'las',
  'los',
  'malla',
  'mercado',
  'monto',
  'ninguna',
  'ningún',
  'operaciones',
  'orden',
  'órdenes',
  'para',
  'pendiente',
  'pendientes',
  'por',
  'precio',
  'página',
  'que',
  'registros',
  'reubicado',
  'reubicar',
  'saldo',
  'sesión',
  'siguiente',
  'sin',
  'símbolo',
  'todo',
  'todos',
  'tus',
  'una',
  'vender',
  'vendida',
  'venta',
  'verificando',
];

/** English words a Spanish text never has (lower case; matched as whole words, case-insensitive). */
export const ENGLISH_WORDS: readonly string[] = [
  'active',
  'add',
  'advanced',
  'all',
  'address',
  'amount',
  'and',
  'are',
  'buy',
  'cancel',
  'close',
  'confirm',
  'connected',
  'could',
  'date',
  'delete',
  'deposit',
  'export',
  'failed',
  'for',
  'from',
  'funds',
  'generate',
  'hide',
  'history',
  'loading',
  'must',
  'new',
  'next',
  'not',
  'of',
  'open',
  'orders',
  'page',
  'pending',
  'please',
  'previous',
  'price',
  'qty',
  'quantity',
  'refresh',
  'relocate',
  'search',
  'select',
  'sell',
  'session',
  'settings',
  'show',
  'signal',
  'start',
  'status',
  'stop',
  'stopped',
  'symbol',
  'the',
  'this',
  'time',
  'update',
  'verifying',
  'wallet',
  'will',
  'with',
  'withdraw',
  'yet',
  'you',
  'your',
];

/**
 * What a Spanish text keeps in English, left out before its words are checked: the spec's Spanish messages
 * that have an English word, as the spec writes them (part 2 §2, §5, §8), and the order names traders use
 * in Spanish too (any case).
 */
export const SPANISH_KEEPS: readonly string[] = [
  'Conéctalo en Settings',
  'No se pudo cargar pending orders',
  'Error cargando pending',
  'Take Profit',
  'Stop Loss',
];

/** Spanish letters and marks that no English text of this app has. */
const SPANISH_MARKS = /[áéíóúñ¿¡]/i;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export type Lng = 'en' | 'es';

/**
 * The words of `text` that belong to the other language than `lng` (an English text: Spanish words and
 * words with Spanish letters; a Spanish text: English words), in order of appearance. Interpolations
 * (`{{name}}`) and «quoted» literals are not words of the text.
 */
export function otherLanguageWords(text: string, lng: Lng): string[] {
  // A literal the user types or reads in code (a webhook's JSON field, a CSV column) is quoted «so».
  let rest = text.replace(/\{\{[^}]*\}\}/g, ' ').replace(/«[^»]*»/g, ' ');
  if (lng === 'es')
    for (const keep of SPANISH_KEEPS) rest = rest.replace(new RegExp(escapeRe(keep), 'gi'), ' ');
  // A token with a digit or an underscore (an id such as 78de8b9f, a code such as keep_assets) is no word.
  const words = (rest.match(/[\p{L}\p{N}_¿¡]+/gu) ?? []).filter((w) => !/[\p{N}_]/u.test(w));
  const list = new Set(lng === 'en' ? SPANISH_WORDS : ENGLISH_WORDS);
  const found: string[] = [];
  for (const w of words) {
    const lower = w.toLowerCase().replace(/[¿¡]/g, '');
    if (list.has(lower) || (lng === 'en' && SPANISH_MARKS.test(w))) found.push(w);
  }
  if (lng === 'en' && /[¿¡]/.test(rest) && found.length === 0) found.push('¿/¡');
  return found;
}
