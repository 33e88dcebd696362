import { BOT_PROBLEMS, DCA_MESSAGES, fillMessage, LIMITS, type BotProblem } from '@bytx/contract';
import { badRequest } from '../../lib/errors';

/** Form inputs every bot kind reads the same way (numbers with decimal commas, optional prices). */

/** Parses a form number: numbers as they are, strings with decimal commas turned into dots. */
export function parseLooseNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string') return null;
  const s = v.trim().replace(/,/g, '.');
  if (s === '' || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

/** SL / TP+: empty clears, else a price > 0 and ≤ LIMITS.maxPrice. */
export function parseOptionalPrice(v: unknown, field: string): number | null {
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) return null;
  const n = parseLooseNumber(v);
  if (n === null || n <= 0 || n > LIMITS.maxPrice) {
    throw badRequest(
      `${field === 'sl' ? 'SL' : 'TP+'} must be a price greater than 0 and at most ${LIMITS.maxPrice.toLocaleString('en-US')}, or empty to clear it.`,
    );
  }
  return n;
}

/**
 * SL and TP+ must be on the side of the price where they can trigger: for a LONG bot the SL sells
 * when the price falls to it (so it sits below the price) and TP+ when it rises to it; SHORT mirrors.
 */
export function slTpSideProblem(
  direction: 'LONG' | 'SHORT',
  price: number,
  sl: number | null | undefined,
  tpPlus: number | null | undefined,
): string | null {
  const long = direction === 'LONG';
  if (sl !== null && sl !== undefined && (long ? sl >= price : sl <= price)) {
    return fillMessage(long ? DCA_MESSAGES.slAbovePrice : DCA_MESSAGES.slBelowPrice, { price });
  }
  if (tpPlus !== null && tpPlus !== undefined && (long ? tpPlus <= price : tpPlus >= price)) {
    return fillMessage(long ? DCA_MESSAGES.tpPlusBelowPrice : DCA_MESSAGES.tpPlusAbovePrice, { price });
  }
  return null;
}

/** A bot problem in both languages, with its detail filled in. */
export function problemText(problem: BotProblem, detail: string | null): { en: string; es: string } {
  const t = BOT_PROBLEMS[problem];
  const d = { detail: detail ?? '' };
  return { en: fillMessage(t.en, d), es: fillMessage(t.es, d) };
}
