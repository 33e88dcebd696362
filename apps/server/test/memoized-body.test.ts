import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BODY_MEMO_MAX_ENTRIES, BodyMemo, keyOf } from '../src/lib/memoized-body';
import { registerErrorHandler } from '../src/plugins/errors';
import { inputPlugin } from '../src/plugins/input';

/** JSON.parse through the memo, counting the real parses. */
function parser() {
  const memo = new BodyMemo();
  let parses = 0;
  const parse = (text: string) =>
    new Promise<unknown>((resolve, reject) =>
      memo.parse(
        text,
        (t, done) => {
          parses++;
          try {
            done(null, JSON.parse(t));
          } catch (err) {
            done(err as Error);
          }
        },
        (err, value) => (err ? reject(err) : resolve(value)),
      ),
    );
  return { memo, parse, parses: () => parses };
}

describe('BodyMemo', () => {
  it('parses each text once and shares a deep-frozen value', async () => {
    const { parse, parses } = parser();
    const a = (await parse('{"bots":[{"symbol":"BTC/USDT"}]}')) as { bots: { symbol: string }[] };
    const b = await parse('{"bots":[{"symbol":"BTC/USDT"}]}');
    expect(b).toBe(a);
    expect(parses()).toBe(1);
    expect(Object.isFrozen(a) && Object.isFrozen(a.bots) && Object.isFrozen(a.bots[0])).toBe(true);
    expect(() => a.bots.push({ symbol: 'X' })).toThrow(TypeError);
    await parse('{"bots":[]}');
    expect(parses()).toBe(2);
  });

  it('keeps no parse error and no text over the size limit', async () => {
    const { parse, parses } = parser();
    await expect(parse('{"bots":')).rejects.toThrow();
    await expect(parse('{"bots":')).rejects.toThrow();
    expect(parses()).toBe(2);
    const long = JSON.stringify({ note: 'x'.repeat(9_000) });
    const first = await parse(long);
    expect(await parse(long)).not.toBe(first);
    expect(Object.isFrozen(first)).toBe(false);
  });

  it(`holds at most ${BODY_MEMO_MAX_ENTRIES} texts, the oldest going first`, async () => {
    const { parse, parses } = parser();
    for (let i = 0; i <= BODY_MEMO_MAX_ENTRIES; i++) await parse(`{"i":${i}}`);
    expect(parses()).toBe(BODY_MEMO_MAX_ENTRIES + 1);
    await parse(`{"i":${BODY_MEMO_MAX_ENTRIES}}`);
    expect(parses()).toBe(BODY_MEMO_MAX_ENTRIES + 1);
    await parse('{"i":0}');
    expect(parses()).toBe(BODY_MEMO_MAX_ENTRIES + 2);
  });

  it('keys a remembered value once; any other value is stringified as it is', () => {
    const frozen = Object.freeze([Object.freeze({ a: 1 })]);
    expect(keyOf(frozen)).toBe('[{"a":1}]');
    expect(keyOf(frozen)).toBe(keyOf(frozen));
    const open = [{ a: 1 }];
    expect(keyOf(open)).toBe('[{"a":1}]');
    open[0]!.a = 2;
    expect(keyOf(open)).toBe('[{"a":2}]');
    expect(keyOf(null)).toBe('null');
  });
});

describe('a route with memoizeBody (input plugin)', () => {
  async function app() {
    let runs = 0;
    const schema = z.object({
      bots: z.array(
        z.object({
          symbol: z
            .string()
            .max(40)
            .transform((s) => (runs++, s.trim())),
        }),
      ),
    });
    const a = Fastify({ logger: false }).withTypeProvider<ZodTypeProvider>();
    a.setValidatorCompiler(validatorCompiler);
    a.setSerializerCompiler(serializerCompiler);
    registerErrorHandler(a);
    await a.register(inputPlugin);
    a.post('/api/memo', { config: { memoizeBody: true }, schema: { body: schema } }, async (req) => ({
      frozen: Object.isFrozen(req.body),
      bots: req.body.bots,
    }));
    a.post('/api/plain', { schema: { body: schema } }, async (req) => ({
      frozen: Object.isFrozen(req.body),
    }));
    await a.ready();
    return { a, runs: () => runs };
  }
  const post = (a: Awaited<ReturnType<typeof app>>['a'], url: string, payload: string) =>
    a.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload });

  it('validates each distinct body once and answers the same', async () => {
    const { a, runs } = await app();
    const body = '{"bots":[{"symbol":" BTC/USDT "},{"symbol":"ETH/USDT"}]}';
    const first = await post(a, '/api/memo', body);
    const second = await post(a, '/api/memo', body);
    expect(first.json()).toEqual({ frozen: true, bots: [{ symbol: 'BTC/USDT' }, { symbol: 'ETH/USDT' }] });
    expect(second.json()).toEqual(first.json());
    expect(runs()).toBe(2); // two entries, validated once
    // A query string does not make it another route.
    expect((await post(a, '/api/memo?user_id=x', body)).json()).toEqual(first.json());
    expect(runs()).toBe(2);
    // A route without the mark validates every time, on a body of its own.
    await post(a, '/api/plain', body);
    await post(a, '/api/plain', body);
    expect(runs()).toBe(6);
    expect((await post(a, '/api/plain', body)).json()).toEqual({ frozen: false });
    await a.close();
  });

  it('refuses a bad body every time with its own message, and its unsafe input too', async () => {
    const { a } = await app();
    const long = `{"bots":[{"symbol":"${'x'.repeat(41)}"}]}`;
    for (let i = 0; i < 2; i++) {
      const res = await post(a, '/api/memo', long);
      expect(res.statusCode).toBe(400);
      expect(res.body).toMatch(/bots/);
    }
    const control = '{"bots":[{"symbol":"BTC\\u0000"}]}';
    for (let i = 0; i < 2; i++) {
      const res = await post(a, '/api/memo', control);
      expect(res.statusCode).toBe(400);
      expect(res.body).toMatch(/control/i);
    }
    await a.close();
  });
});
