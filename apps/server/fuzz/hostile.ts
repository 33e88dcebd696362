import fc from 'fast-check';

/**
 * The hostile input of the fuzz tier (docs/limits.md, "The fuzz tier"): the classes of hostile values,
 * valid-looking values for the other fields, and the requests made of them for one operation. Pure:
 * no app, no database (harness.ts sends them and checks the answers).
 */

/** Marker values serialized by `toJson` as JSON text JSON.stringify cannot write. */
export const HUGE = Symbol('1e400');
export const NEG_HUGE = Symbol('-1e400');
/** A field left out of the body or the query. */
export const MISSING = Symbol('missing');

export function toJson(v: unknown): string {
  if (v === HUGE) return '1e400';
  if (v === NEG_HUGE) return '-1e400';
  if (Array.isArray(v)) return `[${v.map(toJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.entries(v)
      .filter(([, x]) => x !== MISSING)
      .map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** How a value is written in a query string or a path segment. */
export const asText = (v: unknown): string => (typeof v === 'string' ? v : toJson(v));

const nested = (depth: number): unknown => (depth === 0 ? 1 : [nested(depth - 1)]);
/** An own `__proto__` key (an object literal would set the prototype instead, and JSON would drop it). */
const PROTO = JSON.parse(
  '{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}}}',
) as unknown;

export type ClassId =
  | 'chars'
  | 'huge'
  | 'numtext'
  | 'blank'
  | 'injection'
  | 'extreme'
  | 'negative'
  | 'types'
  | 'arrays'
  | 'nesting'
  | 'random'
  | 'missing';

export interface HostileClass {
  id: ClassId;
  name: string;
  values: readonly unknown[];
  /**
   * The members sent into one field while the others are valid-looking (each its own request): the
   * ones that pass a type check and test what a handler does with them (PostgreSQL refuses NUL in text;
   * 1e308 overflows sums; 0 divides). Without a list, one member, turning.
   */
  sharp?: readonly unknown[];
}

/** FUZZ_SEED: the seed of the random class (fast-check) and of the FUZZ_RUNS random plans. */
export const SEED = Number(process.env.FUZZ_SEED ?? 20261123);

/**
 * Every class of hostile value the tier sends. Each operation gets every class at least once (one request
 * per class, see `variantsFor`); which member of a class it gets turns with the operation and the field,
 * so the whole tier sends every member many times.
 */
export const CLASSES: readonly HostileClass[] = [
  {
    id: 'chars',
    name: 'control, bidi and zero-width characters',
    values: [
      '\u0000',
      'BTC/USDT\u0000',
      'a\u0007b',
      '%00',
      '\u202EBTC/USDT\u202C',
      'BTC/\u200BUSDT',
      'a\r\nb',
    ],
    sharp: ['a\u0000b'],
  },
  {
    id: 'huge',
    name: 'huge strings',
    values: ['x'.repeat(70_000), '😀'.repeat(3000)],
    sharp: ['x'.repeat(70_000)],
  },
  {
    id: 'numtext',
    name: 'numbers as text',
    values: ['1e308', '-1e308', 'NaN', 'Infinity', '-0', '0x10', '1e400'],
  },
  { id: 'blank', name: 'blank strings', values: ['', ' ', '\t'] },
  {
    id: 'injection',
    name: 'injection text',
    values: [
      "' OR 1=1 --",
      '"; DROP TABLE users; --',
      '<script>alert(1)</script>',
      '../../etc/passwd',
      '${7*7}',
    ],
  },
  {
    id: 'extreme',
    name: 'extreme numbers (1e308, 1e400, subnormal, unsafe integers)',
    values: [1e308, HUGE, -1e308, NEG_HUGE, 5e-324, Number.MAX_SAFE_INTEGER + 2],
    sharp: [1e308],
  },
  { id: 'negative', name: 'negative and zero numbers', values: [-1, 0, -0.5, -1e-9], sharp: [0, -1] },
  {
    id: 'types',
    name: 'wrong types (booleans, null, objects)',
    values: [true, null, false, {}, { $gt: '' }, PROTO],
  },
  { id: 'arrays', name: 'arrays for scalars', values: [[], [1, 2, 3], ['a', 'b'], ['BTC/USDT']] },
  { id: 'nesting', name: '40-level nesting', values: [nested(40), { a: nested(40) }] },
  {
    id: 'random',
    name: 'random text and numbers (fast-check, FUZZ_SEED)',
    values: fc.sample(fc.oneof(fc.string({ maxLength: 40 }), fc.integer(), fc.double()), {
      seed: SEED,
      numRuns: 64,
    }),
  },
  { id: 'missing', name: 'missing fields', values: [MISSING] },
];

/** Bodies that are not an object at all (one per operation, turning). */
export const NON_OBJECT_BODIES: readonly unknown[] = [[], 'text', 1e308, null, true, [{ a: 1 }], nested(40)];
/** Invalid JSON, sent as the body with content-type application/json. */
export const BAD_JSON = '{"a":';

/** What a valid-looking request of the user carries (the other fields while one is hostile). */
export interface Caller {
  email: string;
  /** A bot of the user (its id for `{id}` path parameters and `id` fields). */
  botId: string;
  /** The held price of BTC/USDT on the paper exchange. */
  price: number;
}

/** A JSON-schema fragment of the OpenAPI document (a body property or a parameter's schema). */
export interface Schema {
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
}

export const EX = 'binance';
export const SYM = 'BTC/USDT';

/** Valid-looking values by field name: enough for most requests to pass validation and reach the handler. */
function byName(name: string, c: Caller): unknown {
  switch (name) {
    case 'exchange':
      return EX;
    case 'symbol':
    case 'pair':
      return SYM;
    case 'user_id':
    case 'user':
      return c.email;
    case 'email':
      // Never a real account: a failed login of a real one is remembered (the throttle), a refused 4xx that changes something.
      return 'nobody@example.com';
    case 'password':
      return 'correct horse battery';
    case 'nueva_password':
      return 'another correct horse 7';
    case 'code':
    case 'codigo':
    case 'email_code':
    case 'twofa_code':
      return '123456';
    case 'content':
      return 'hello from the fuzz tier';
    case 'id':
    case 'bot_id':
    case 'grid_id':
      return c.botId;
    case 'post_id':
      return 1;
    case 'address':
      return `0x${'11'.repeat(20)}`;
    case 'hash':
      return `0x${'ab'.repeat(32)}`;
    case 'signature':
      return `0x${'cd'.repeat(65)}`;
    case 'price':
      return c.price;
    case 'highPrice':
      return Math.round(c.price * 1.1);
    case 'lowPrice':
      return Math.round(c.price * 0.9);
    case 'amount':
    case 'monto_usdt':
    case 'budget':
    case 'max_position':
      return 20;
    case 'amount_quote':
    case 'amountPerLevel':
      return 10;
    case 'os':
      return 3;
    case 'sl':
      return 5;
    case 'quantity':
      return 0.001;
    case 'per_page':
      return 20;
    case 'days':
      return 7;
    case 'side':
      return 'buy';
    case 'type':
      return 'limit';
    case 'marketType':
      return 'spot';
    case 'position':
      return 'long';
    case 'profitCurrency':
      return 'USDT';
    case 'timeframe':
      return '1m';
    case 'ids':
      return 'bitcoin';
    case 'from':
      return Date.now() - 86_400_000;
    case 'to':
      return Date.now();
    default:
      return undefined;
  }
}

/** A valid-looking value for a field: by its name, else its enum's first value, else by its type. */
export function plausible(name: string, schema: Schema | undefined, c: Caller): unknown {
  const named = byName(name, c);
  if (named !== undefined) return named;
  const s = schema?.anyOf?.[0] ?? schema?.oneOf?.[0] ?? schema ?? {};
  if (s.enum && s.enum.length > 0) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type ?? 'string') {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return s.format === 'uuid' ? c.botId : 'x';
  }
}

export type Where = 'body' | 'query' | 'path';
export interface Field {
  name: string;
  where: Where;
  schema?: Schema;
}

/** One request of the tier: who sends it and what it carries, before it is written out. */
export interface Variant {
  /** What it stands for (the class name, or the request shape), printed with any problem. */
  label: string;
  auth: 'user' | 'other' | 'none';
  values: Record<string, unknown>;
  /** Keys no schema of ours declares. */
  extra?: Record<string, unknown>;
  /** A body that replaces the object (a non-object body, invalid JSON text, or none at all). */
  body?: { kind: 'value'; value: unknown } | { kind: 'text'; text: string } | { kind: 'none' };
}

const pick = (cls: HostileClass, i: number): unknown => cls.values[i % cls.values.length];

const CLASS = (id: ClassId): HostileClass => CLASSES.find((c) => c.id === id)!;
const typesOf = (schema: Schema | undefined): string[] =>
  [schema, ...(schema?.anyOf ?? []), ...(schema?.oneOf ?? [])].flatMap((s) =>
    s?.type === undefined ? [] : [s.type].flat(),
  );
/** Fields only compared with the session's user (403 when they differ): they never reach further. */
const IDENTITY = new Set(['user_id', 'user']);

/**
 * The classes that may pass a field's validation and reach the handler, by the field's type: a removed
 * range check lets extreme or negative numbers through, a removed text rule control characters or a
 * huge string. (The other classes reach every field in the per-class requests.)
 */
function deepClasses(f: Field, turn: number): ClassId[] {
  const types = typesOf(f.schema);
  const enumerated = [f.schema, ...(f.schema?.anyOf ?? [])].some((s) => s?.enum !== undefined);
  const out = new Set<ClassId>();
  if (types.includes('number') || types.includes('integer')) out.add('extreme').add('negative');
  if (types.includes('string') && !enumerated) {
    out.add('chars').add('huge');
    out.add((['injection', 'blank', 'numtext'] as const)[turn % 3]!);
  }
  if (types.includes('string') && types.includes('number')) out.add('numtext');
  if (types.includes('boolean') || enumerated) out.add('numtext');
  if (types.includes('array') || types.includes('object')) out.add('nesting');
  if (out.size === 0) out.add('random');
  return [...out];
}

/**
 * The requests for one operation (index `op` in the tier's list, which turns the members picked).
 * With fields:
 *  - one request per class with that class in every field: every field meets every class;
 *  - per field (but the identity fields), one request per class that may pass its validation
 *    (`deepClasses`) with the other fields valid-looking, so such a value reaches the handler;
 *  - one with every field hostile (each a different class) and extra keys (`__proto__`, `constructor`,
 *    an unknown one);
 * without fields: one request with every class in unknown keys. Then, for the methods with a body: a
 * non-object body, invalid JSON, no body at all; and for all: the valid-looking request without a session
 * and as another user (with the first user's identifiers).
 */
export function variantsFor(op: number, method: string, fields: readonly Field[], c: Caller): Variant[] {
  const base = Object.fromEntries(fields.map((f) => [f.name, plausible(f.name, f.schema, c)]));
  const out: Variant[] = [];
  if (fields.length > 0) {
    CLASSES.forEach((cls, k) => {
      out.push({
        label: `${cls.name} in every field`,
        auth: 'user',
        values: Object.fromEntries(fields.map((f, i) => [f.name, pick(cls, op + k + i)])),
      });
    });
    fields.forEach((f, i) => {
      if (IDENTITY.has(f.name)) return;
      for (const id of deepClasses(f, op + i)) {
        const cls = CLASS(id);
        for (const value of cls.sharp ?? [pick(cls, op + i)])
          out.push({ label: `${cls.name} in ${f.name}`, auth: 'user', values: { ...base, [f.name]: value } });
      }
    });
    out.push({
      label: 'every field hostile, extra keys',
      auth: 'user',
      values: Object.fromEntries(
        fields.map((f, i) => [f.name, pick(CLASSES[(op + i) % CLASSES.length]!, op)]),
      ),
      extra: { ...(PROTO as object), zz_unknown: pick(CLASSES[op % CLASSES.length]!, op + 1) },
    });
  } else {
    out.push({
      label: 'every class in unknown keys',
      auth: 'user',
      values: {},
      extra: Object.fromEntries(CLASSES.map((cls, k) => [`x${k}`, pick(cls, op + k)])),
    });
  }
  if (method !== 'GET' && method !== 'DELETE') {
    const value = NON_OBJECT_BODIES[op % NON_OBJECT_BODIES.length];
    out.push({ label: 'non-object body', auth: 'user', values: base, body: { kind: 'value', value } });
    out.push({ label: 'invalid JSON', auth: 'user', values: base, body: { kind: 'text', text: BAD_JSON } });
    out.push({ label: 'no body', auth: 'user', values: base, body: { kind: 'none' } });
  }
  out.push({ label: 'no session', auth: 'none', values: base });
  out.push({ label: 'another user', auth: 'other', values: base });
  return out;
}

/** FUZZ_RUNS extra random requests per operation (fast-check, FUZZ_SEED): any class in any field, any caller. */
export function randomVariants(op: number, fields: readonly Field[], runs: number): Variant[] {
  if (runs <= 0) return [];
  const anyValue = fc.oneof(...CLASSES.map((cls) => fc.constantFrom(...cls.values)));
  const plan = fc.record({
    auth: fc.constantFrom<Variant['auth']>('user', 'user', 'user', 'none', 'other'),
    values: fc.tuple(...fields.map(() => anyValue)),
    extra: fc.dictionary(fc.string({ maxLength: 8 }), anyValue, { maxKeys: 2 }),
  });
  return fc.sample(plan, { seed: SEED + op, numRuns: runs }).map((p, i) => ({
    label: `random plan ${i}`,
    auth: p.auth,
    values: Object.fromEntries(fields.map((f, j) => [f.name, p.values[j]])),
    extra: p.extra,
  }));
}
