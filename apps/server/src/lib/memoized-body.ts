import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A call polled with the same body again and again (`/api/pnls_actuales`): each distinct body is
     * parsed, checked and validated once (lib/memoized-body.ts). The input plugin wires it.
     */
    memoizeBody?: boolean;
  }
}

/** Distinct bodies remembered; the least recently stored goes first. */
export const BODY_MEMO_MAX_ENTRIES = 2_000;
/** Only bodies up to this many characters are remembered (2,000 × 8 KB = 16 MB at most). */
export const BODY_MEMO_MAX_CHARS = 8_192;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * Remembered bodies of the routes marked `memoizeBody`. A dashboard polls `/api/pnls_actuales` every
 * few seconds with the same body, every active bot's pair: parsing it, checking every string and
 * running zod's checks and transforms on 20 entries were over half of that call's CPU, and most of its
 * garbage (issue 18).
 *
 * Exact: the same text parses to the same value, which the same checks and the same schema accept or
 * refuse alike (none of them reads anything else). Keyed by the raw text; the parsed value and the
 * validated one are deep-frozen, since every request with that text now shares them: no handler can
 * change them for the next request. Refused bodies are not remembered past their parse: the schema
 * runs again for each and answers with its own message.
 */
export class BodyMemo {
  private readonly parsed = new Map<string, unknown>();
  private readonly validated = new WeakMap<object, unknown>();

  /** The frozen parse of `text`, from memory or from `parse` (whose errors pass through, unkept). */
  parse(
    text: string,
    parse: (text: string, done: (err: Error | null, value?: unknown) => void) => void,
    done: (err: Error | null, value?: unknown) => void,
  ): void {
    if (text.length > BODY_MEMO_MAX_CHARS) return parse(text, done);
    if (this.parsed.has(text)) return done(null, this.parsed.get(text));
    parse(text, (err, value) => {
      if (err) return done(err);
      if (this.parsed.size >= BODY_MEMO_MAX_ENTRIES) this.parsed.delete(this.parsed.keys().next().value!);
      const frozen = deepFreeze(value);
      this.parsed.set(text, frozen);
      done(null, frozen);
    });
  }

  /** A body validator that runs the schema once per remembered (frozen) parsed body. */
  readonly validator = <S>(
    route: Parameters<FastifySchemaCompiler<S>>[0],
  ): ReturnType<FastifySchemaCompiler<S>> => {
    type Result = { value?: unknown; error?: Error | FastifySchemaValidationError[] };
    const validate = validatorCompiler(route as never) as (data: unknown) => Result;
    if (route.httpPart !== 'body') return validate;
    return (data: unknown) => {
      const remembered = typeof data === 'object' && data !== null && Object.isFrozen(data);
      if (remembered && this.validated.has(data)) return { value: this.validated.get(data) };
      const result = validate(data);
      if (remembered && result.error === undefined) this.validated.set(data, deepFreeze(result.value));
      return result;
    };
  };
}

const keys = new WeakMap<object, string>();

/** `JSON.stringify(value)`, once per remembered (frozen) value: a read cache's key from a body. */
export function keyOf(value: unknown): string {
  if (typeof value !== 'object' || value === null || !Object.isFrozen(value)) return JSON.stringify(value);
  let key = keys.get(value);
  if (key === undefined) {
    key = JSON.stringify(value);
    keys.set(value, key);
  }
  return key;
}
