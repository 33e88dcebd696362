import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTROL_CHARS, findUnsafeInput, MAX_INPUT_DEPTH } from '../src/input';

/** The value at a reported field (`root.a.0.b`; ` key` names a key of the object at that path). */
function at(value: unknown, field: string): unknown {
  const parts = field.replace(/ key$/, '').split('.').slice(1);
  return parts.reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], value);
}

/** Whether anything in `value` breaks the rules (a plain recursive reading of them). */
function unsafe(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return CONTROL_CHARS.test(value);
  if (typeof value === 'number') return !Number.isFinite(value);
  if (value === null || typeof value !== 'object') return false;
  if (depth >= MAX_INPUT_DEPTH) return true;
  return Object.entries(value).some(([k, v]) => CONTROL_CHARS.test(k) || unsafe(v, depth + 1));
}

const leaf = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', '\t', '\u0001', '\u001f', 'é') }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.string({ unit: fc.constantFrom('k', '\u0002'), maxLength: 2 }), tie('v'), {
      maxKeys: 3,
    }),
  ),
})).v;

describe('findUnsafeInput', () => {
  it('finds a problem exactly when there is one, and names where it is', () => {
    fc.assert(
      fc.property(value, (v) => {
        const found = findUnsafeInput(v, 'body');
        expect(found !== null).toBe(unsafe(v));
        if (found && !found.message.includes('nested too deeply') && !found.field.endsWith(' key')) {
          expect(unsafe(at(v, found.field))).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('names the bad value of a flat row inside a large array, and depth beyond the limit', () => {
    const candles = Array.from({ length: 50_000 }, (_, i) => [i * 60_000, 1, 2, 0.5, 1.5, null]);
    expect(findUnsafeInput({ candles }, 'body')).toBeNull();
    candles[40_000]![3] = Number.POSITIVE_INFINITY;
    expect(findUnsafeInput({ candles }, 'body')?.field).toBe('body.candles.40000.3');
    let deep: unknown = [1];
    for (let i = 0; i < MAX_INPUT_DEPTH; i++) deep = [deep];
    expect(findUnsafeInput(deep, 'body')?.message).toBe(
      `The request is nested too deeply (at most ${MAX_INPUT_DEPTH} levels).`,
    );
    expect(findUnsafeInput({ 'a\u0001': 1 }, 'query')?.field).toBe('query key');
    expect(findUnsafeInput('x\u0000', 'path')?.field).toBe('path');
  });
});
