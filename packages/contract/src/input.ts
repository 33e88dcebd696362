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

/**
 * The first value in a parsed request part that breaks the shared rules, or null. Iterative, so a
 * hostile nesting cannot overflow the stack; keys are checked like values.
 */
export function findUnsafeInput(value: unknown, root: string): InputProblem | null {
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: value, path: root, depth: 0 }];
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop() as { v: unknown; path: string; depth: number };
    if (typeof v === 'string') {
      if (CONTROL_CHARS.test(v)) return problem(INPUT_MESSAGES.control, path);
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return problem(INPUT_MESSAGES.nonFinite, path);
    } else if (v !== null && typeof v === 'object') {
      if (depth >= MAX_INPUT_DEPTH) return { field: path, message: INPUT_MESSAGES.tooDeep };
      for (const [k, child] of Object.entries(v)) {
        if (CONTROL_CHARS.test(k)) return problem(INPUT_MESSAGES.control, `${path} key`);
        stack.push({ v: child, path: `${path}.${k}`, depth: depth + 1 });
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
