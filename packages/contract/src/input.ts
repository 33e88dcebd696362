import { z } from 'zod';

/**
 * The rules every value from outside obeys before any route sees it (issue: hardening). The server
 * applies `findUnsafeInput` to every body, query and path of every request; the web client uses the
 * same functions so a form refuses what the server would refuse.
 */

/** C0 control characters except tab, line feed and carriage return (PostgreSQL text refuses NUL). */
// eslint-disable-next-line no-control-regex
export const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/;
/** Bidirectional overrides and isolates: they make text display in another order than it is stored. */
export const BIDI_CHARS = /[\u202A-\u202E\u2066-\u2069]/;
/** Deeper JSON than this is refused before validation (no schema of ours is deeper than 4). */
export const MAX_INPUT_DEPTH = 16;

export const INPUT_MESSAGES = {
  control: '{field} contains a control character; remove it and try again.',
  bidi: '{field} contains a text-direction control character; remove it and try again.',
  nonFinite: '{field} must be a finite number.',
  tooDeep: `The request is nested too deeply (at most ${MAX_INPUT_DEPTH} levels).`,
} as const;

export interface InputProblem {
  /** Dotted path of the bad value, e.g. `body.bots.0.symbol`. */
  field: string;
  message: string;
}

const problem = (template: string, field: string): InputProblem => ({
  field,
  message: template.replace('{field}', field),
});

/** An object or array still to look into, with what it takes to name it (built only on a problem). */
interface Frame {
  v: object;
  parent: Frame | null;
  /** Its key in the parent (an index in an array), or the root's name. */
  key: string | number;
  depth: number;
}

function pathOf(f: Frame): string {
  const keys: string[] = [];
  for (let g: Frame | null = f; g !== null; g = g.parent) keys.push(String(g.key));
  return keys.reverse().join('.');
}

/** The problem of a string or number child `key` of `f` (or of the root when f is null), or null. */
function leafProblem(v: unknown, f: Frame | null, key: string | number): InputProblem | null {
  if (typeof v === 'string') {
    if (CONTROL_CHARS.test(v))
      return problem(INPUT_MESSAGES.control, f ? `${pathOf(f)}.${key}` : String(key));
  } else if (typeof v === 'number') {
    if (!Number.isFinite(v))
      return problem(INPUT_MESSAGES.nonFinite, f ? `${pathOf(f)}.${key}` : String(key));
  }
  return null;
}

/** Whether an array holds only finite numbers, clean strings, booleans and nulls. */
function flatArrayOk(a: unknown[]): boolean {
  for (let j = 0; j < a.length; j++) {
    const x = a[j];
    if (typeof x === 'number') {
      if (!Number.isFinite(x)) return false;
    } else if (typeof x === 'string') {
      if (CONTROL_CHARS.test(x)) return false;
    } else if (x !== null && typeof x !== 'boolean') return false;
  }
  return true;
}

/**
 * The first value in a parsed request part that breaks the shared rules, or null. Iterative, so a
 * hostile nesting cannot overflow the stack; keys are checked like values. Paths are built only for
 * the value reported: a 24 MB body of 600,000 candles is checked in tens of milliseconds, not seconds.
 */
export function findUnsafeInput(value: unknown, root: string): InputProblem | null {
  if (value === null || typeof value !== 'object') return leafProblem(value, null, root);
  const stack: Frame[] = [{ v: value, parent: null, key: root, depth: 0 }];
  while (stack.length > 0) {
    const f = stack.pop()!;
    if (f.depth >= MAX_INPUT_DEPTH) return { field: pathOf(f), message: INPUT_MESSAGES.tooDeep };
    const v = f.v;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const c: unknown = v[i];
        if (c === null || typeof c !== 'object') {
          const found = leafProblem(c, f, i);
          if (found) return found;
        } else if (!(Array.isArray(c) && f.depth + 1 < MAX_INPUT_DEPTH && flatArrayOk(c))) {
          // A flat array of plain values (a candle row) is checked on the spot, without a frame.
          stack.push({ v: c, parent: f, key: i, depth: f.depth + 1 });
        }
      }
    } else {
      const o = v as Record<string, unknown>;
      for (const k of Object.keys(o)) {
        if (CONTROL_CHARS.test(k)) return problem(INPUT_MESSAGES.control, `${pathOf(f)} key`);
        const c = o[k];
        if (c !== null && typeof c === 'object') stack.push({ v: c, parent: f, key: k, depth: f.depth + 1 });
        else {
          const found = leafProblem(c, f, k);
          if (found) return found;
        }
      }
    }
  }
  return null;
}

/** Trims ASCII whitespace only: a zero-width or other Unicode space stays and makes a symbol unlisted. */
export function asciiTrim(text: string): string {
  return text.replace(/^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g, '');
}

/** Text a person writes for others to read (forum): no control characters, no direction overrides. */
export function textProblem(text: string, field: string): string | null {
  if (CONTROL_CHARS.test(text)) return INPUT_MESSAGES.control.replace('{field}', field);
  if (BIDI_CHARS.test(text)) return INPUT_MESSAGES.bidi.replace('{field}', field);
  return null;
}

/**
 * Length of user text as both client and server count it: after trimming, in Unicode code points
 * (an emoji is one character, as a person counts it).
 */
export function textLength(text: string): number {
  let n = 0;
  for (const _ of text.trim()) n++;
  return n;
}

/** The documented numeric ranges of inputs (docs/limits.md). */
export const LIMITS = {
  /** Any price (quote units), e.g. SL, TP+ or the simulator's control price. */
  maxPrice: 1e9,
  /** Any amount in quote currency (USDT). */
  maxAmount: 1e9,
  minLeverage: 1,
  maxLeverage: 200,
  /** Take-profit and separation percentages: at least the spec's 0.5 %, at most these. */
  maxTpPct: 1000,
  maxSepPct: 99,
  /** Safety / ladder orders of one bot (# OS). */
  maxOs: 100,
} as const;

/** A price from a form: a number (decimal comma allowed) > 0 and ≤ LIMITS.maxPrice. */
export const priceField = (name: string) =>
  z.union([z.number(), z.string().trim().min(1)]).transform((v, ctx) => {
    const n = typeof v === 'number' ? v : Number(v.replace(',', '.'));
    if (!Number.isFinite(n) || n <= 0 || n > LIMITS.maxPrice) {
      ctx.addIssue({
        code: 'custom',
        message: `${name} must be a number greater than 0 and at most ${LIMITS.maxPrice.toExponential()}`,
      });
      return z.NEVER;
    }
    return n;
  });
