/**
 * The schema-driven fuzz tier (issue: hardening). For every operation of the generated OpenAPI
 * document, fast-check sends bodies, queries and paths whose fields are hostile: wrong types, NUL and
 * other control characters, text-direction overrides, huge strings, 1e308 and 1e400, negative and
 * zero numbers, missing and extra fields, arrays for scalars, deep nesting, invalid JSON. Each answer
 * must be below 500 and carry no stack trace or SQL; a refused request (4xx) must leave the database
 * exactly as it was; after each hostile write the user's dashboard calls still answer 2xx (stateful
 * sequences), and after each route's run all the user's ordinary calls do.
 *
 * Bounded: FUZZ_RUNS requests per operation (default 20, fixed seed FUZZ_SEED), ~1,060 in all, under 60 s.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DUST_JOB } from '../src/modules/bots/pending/dust';
import { runners } from '../src/modules/bots/routes';
import { createTestUser, DASHBOARD_CALLS, makeTestApp, type TestApp } from '../test/helpers';

type User = Awaited<ReturnType<typeof createTestUser>>;
type Json = Record<string, unknown>;

const RUNS = Number(process.env.FUZZ_RUNS ?? 20);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const EX = 'binance';
const SYM = 'BTC/USDT';

/** Marker values serialized by `toJson` as JSON text JSON.stringify cannot write. */
const HUGE = Symbol('1e400');
const NEG_HUGE = Symbol('-1e400');
const BAD_JSON = Symbol('bad json');

interface OpenApiDoc {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { name: string; in: 'query' | 'path' | 'header' }[];
        requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
        security?: unknown[];
      }
    >
  >;
}

function toJson(v: unknown): string {
  if (v === HUGE) return '1e400';
  if (v === NEG_HUGE) return '-1e400';
  if (Array.isArray(v)) return `[${v.map(toJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

const nested = (depth: number): unknown => (depth === 0 ? 1 : [nested(depth - 1)]);

/** Values no field of ours should take, and a few plausible ones so deeper code paths are reached. */
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    '\u0000',
    'BTC/USDT\u0000',
    'a\u0007b',
    '\u202EBTC/USDT\u202C',
    'BTC/\u200BUSDT',
    'x'.repeat(70_000),
    '1e308',
    '-1e308',
    'NaN',
    'Infinity',
    '-0',
    '0x10',
    ' ',
    '',
    "' OR 1=1 --",
    '"; DROP TABLE users; --',
    '<script>alert(1)</script>',
    '../../etc/passwd',
    '%00',
    '😀'.repeat(3000),
    1e308,
    -1e308,
    5e-324,
    HUGE,
    NEG_HUGE,
    Number.MAX_SAFE_INTEGER + 2,
    -1,
    0,
    -0.5,
    true,
    false,
    null,
    [],
    [1, 2, 3],
    ['a', 'b'],
    {},
    { $gt: '' },
    { __proto__: { admin: true } },
    nested(40),
    'binance',
    'BTC/USDT',
    'anonimo',
    '20',
    '1',
    'Spot',
    'close_market',
  ),
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.double(),
);

interface Plan {
  auth: 'alice' | 'none' | 'bob';
  body: unknown;
  query: [string, unknown][];
  path: Record<string, unknown>;
}

/** A request plan for an operation: each known field kept valid-looking, hostile, or missing. */
function planFor(fields: string[], queryNames: string[], pathNames: string[]): fc.Arbitrary<Plan> {
  const field = fc.oneof({ weight: 3, arbitrary: hostile }, { weight: 1, arbitrary: fc.constant(undefined) });
  const record = (names: string[]) =>
    fc.tuple(...names.map(() => field)).map((vals) => names.map((n, i) => [n, vals[i]] as [string, unknown]));
  const bodyArb: fc.Arbitrary<unknown> = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(
          fields.length > 0 ? record(fields) : fc.constant([] as [string, unknown][]),
          fc.dictionary(fc.string({ maxLength: 8 }), hostile, { maxKeys: 2 }),
        )
        .map(([known, extra]) => {
          const out: Json = { ...extra };
          for (const [k, v] of known) if (v !== undefined) out[k] = v;
          return out;
        }),
    },
    { weight: 1, arbitrary: hostile },
    { weight: 1, arbitrary: fc.constant(BAD_JSON) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  return fc.record({
    auth: fc.constantFrom('alice', 'alice', 'alice', 'none', 'bob'),
    body: bodyArb,
    query: queryNames.length > 0 ? record(queryNames) : fc.constant([]),
    path: fc
      .tuple(...pathNames.map(() => hostile))
      .map((vals) => Object.fromEntries(pathNames.map((n, i) => [n, vals[i]]))),
  });
}

const asText = (v: unknown): string =>
  v === HUGE ? '1e400' : v === NEG_HUGE ? '-1e400' : typeof v === 'string' ? v : toJson(v);

/** What must never reach a client: stack frames, file paths, SQL and driver errors. */
const LEAK =
  /\bat [\w.<>]+ \(|node_modules|\.ts:\d+|\bSELECT\b.+\bFROM\b|\bINSERT INTO\b|\bUPDATE\b.+\bSET\b|syntax error at|violates .* constraint|duplicate key value|relation "/i;

/** The calls a dashboard polls: after every hostile write of the user they must still answer 2xx. */
const QUICK_CALLS: [string, string, Json?][] = [
  ['GET', '/api/bots_activos_dca'],
  ['GET', '/api/bots_activos'],
  ['POST', '/api/reanudar_bots_activos', {}],
  ['POST', '/api/pnls_actuales', {}],
];

/** Routes that end the caller's session or account: fuzzed with a throwaway user each time. */
const ENDS_SESSION = new Set(['POST /api/logout', 'DELETE /api/delete_account']);

describe('fuzz: every API operation under hostile input', () => {
  let t: TestApp;
  let alice: User;
  let bob: User;
  let ip = 0;

  /**
   * Everything a request could change, minus what moves by itself: the market walk's tables, the
   * runner's lease heartbeat (lease_until) and the session touch time (last_seen_at).
   */
  const fingerprint = async (): Promise<string> => {
    const tables = await t.ctx.database.sql.query(
      `SELECT tablename FROM pg_tables WHERE schemaname = 'public'
         AND tablename NOT IN ('sim_state', 'sim_candles', 'schema_migrations') ORDER BY 1`,
    );
    const parts: string[] = [];
    for (const { tablename } of tables) {
      const row = `(to_jsonb(t) - 'lease_until' - 'updated_at' - 'last_seen_at')::text`;
      const [r] = await t.ctx.database.sql.query(
        `SELECT count(*)::int AS n, md5(coalesce(string_agg(${row}, '|' ORDER BY ${row}), '')) AS h FROM "${String(tablename)}" t`,
      );
      parts.push(`${String(tablename)}:${String(r?.n)}:${String(r?.h)}`);
    }
    return parts.join('\n');
  };

  /** The user's ordinary calls: each must still answer 2xx whatever came before. */
  const ordinaryCalls = async (u: User) => {
    const calls: readonly [string, string, Json?][] = [
      ['GET', '/api/me'],
      ...DASHBOARD_CALLS,
      ['GET', '/api/exchanges/connections'],
      ['GET', '/api/ticker'],
      ['GET', '/api/forum/posts?page=1'],
    ];
    const failed: string[] = [];
    for (const [method, url, body] of calls) {
      const res = await t.app.inject({
        method: method as 'GET',
        url,
        headers: u.auth,
        remoteAddress: `10.250.0.${(ip++ % 250) + 1}`,
        ...(body ? { payload: body } : {}),
      });
      if (res.statusCode >= 300) failed.push(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
    return failed;
  };

  beforeAll(async () => {
    // The fingerprints below run whole-table queries on the in-process PGlite, which hold the event
    // loop; shedding on loop delay would answer the fuzz with 503s the server would not give otherwise.
    t = await makeTestApp({ SIMULATOR_CONTROL: '1', BOT_RUNNER: '1', SHED_MAX_EVENT_LOOP_DELAY_MS: '0' });
    alice = await createTestUser(t);
    bob = await createTestUser(t);
    for (const u of [alice, bob]) {
      const r = await t.app.inject({
        method: 'POST',
        url: '/api/conectar_exchange',
        headers: u.auth,
        payload: { exchange: EX, mode: 'paper' },
      });
      expect(r.statusCode).toBe(200);
    }
    // Hold every simulated price: nothing fills by itself between two fingerprints.
    const sim = t.ctx.services.simulator!;
    for (const ex of sim.exchanges) for (const s of sim.symbols) sim.setPrice(ex, s, sim.price(ex, s));
    const start = await t.app.inject({
      method: 'POST',
      url: '/api/start_bot_dca',
      headers: alice.auth,
      payload: { exchange: EX, symbol: SYM, amount: 20, tp: 1, separacion: 1, os: 3 },
    });
    expect(start.statusCode, start.body).toBe(200);
    // The dust job's first check (5 s after the server is ready) writes its schedule: it must land
    // before the first "before" picture, or a refused request it coincides with looks like a change.
    const deadline = Date.now() + 20_000;
    const scheduled = async () =>
      (await t.ctx.database.sql.query(`SELECT 1 FROM scheduled_jobs WHERE name = $1`, [DUST_JOB])).length > 0;
    while (!(await scheduled()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await scheduled(), 'the dust job wrote its schedule').toBe(true);
  });
  afterAll(async () => t.close());

  it(`answers ${RUNS} hostile requests per operation without a 5xx, a leak or a change on refusal`, async () => {
    const doc = t.app.swagger() as OpenApiDoc;
    const runner = runners.get(t.ctx);
    const problems: string[] = [];
    let requests = 0;
    let unsettled = true;
    const ops = Object.entries(doc.paths)
      .filter(([p]) => p.startsWith('/api/') && !p.startsWith('/api/docs'))
      .flatMap(([p, methods]) =>
        Object.entries(methods).map(([m, op]) => ({ path: p, method: m.toUpperCase(), op })),
      )
      .filter((o) => o.method !== 'HEAD');
    expect(ops.length).toBeGreaterThan(40);

    for (const { path, method, op } of ops) {
      const fields = Object.keys(op.requestBody?.content?.['application/json']?.schema?.properties ?? {});
      const params = op.parameters ?? [];
      const queryNames = params.filter((p) => p.in === 'query').map((p) => p.name);
      const pathNames = params.filter((p) => p.in === 'path').map((p) => p.name);
      const key = `${method} ${path}`;
      await fc.assert(
        fc.asyncProperty(planFor(fields, queryNames, pathNames), async (plan) => {
          requests++;
          let user: User | null = plan.auth === 'alice' ? alice : plan.auth === 'bob' ? bob : null;
          if (user && ENDS_SESSION.has(key)) user = await createTestUser(t);
          let url = path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(asText(plan.path[n])));
          const qs = plan.query
            .filter(([, v]) => v !== undefined)
            .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(asText(v))}`)
            .join('&');
          if (qs) url += `?${qs}`;
          const hasBody = method !== 'GET' && method !== 'DELETE' && plan.body !== undefined;
          const payload = plan.body === BAD_JSON ? '{"a":' : toJson(plan.body);
          if (unsettled) {
            // What an earlier successful call set off (orders, fills, a resumed bot's first tick)
            // must land before the "before" picture, or it would look like this request's change.
            await runner?.idle();
            await new Promise((r) => setTimeout(r, 30));
            await runner?.idle();
            unsettled = false;
          }
          const before = await fingerprint();
          const res = await t.app.inject({
            method: method as 'POST',
            url,
            remoteAddress: `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip++ & 255}`,
            headers: {
              ...(user ? user.auth : {}),
              ...(hasBody ? { 'content-type': 'application/json' } : {}),
            },
            ...(hasBody ? { payload } : {}),
          });
          const where = `${key} ${url.slice(0, 120)} ${hasBody ? payload.slice(0, 160) : ''}`;
          if (res.statusCode >= 500) problems.push(`${res.statusCode} ${where}: ${res.body.slice(0, 200)}`);
          if (LEAK.test(res.body)) problems.push(`leak ${where}: ${res.body.slice(0, 300)}`);
          if (method !== 'GET' && user === alice) {
            // Stateful: after each hostile write, the user's own dashboard calls still answer.
            for (const [m, u, b] of QUICK_CALLS) {
              const r = await t.app.inject({
                method: m as 'GET',
                url: u,
                headers: alice.auth,
                remoteAddress: '10.251.0.1',
                ...(b ? { payload: b } : {}),
              });
              if (r.statusCode >= 300) problems.push(`after ${where}: ${m} ${u} ${r.statusCode}`);
            }
            unsettled = true;
          }
          if (res.statusCode >= 400 && res.statusCode < 500) {
            const after = await fingerprint();
            if (after !== before) {
              const was = new Set(before.split('\n'));
              const tables = after
                .split('\n')
                .filter((line) => !was.has(line))
                .map((line) => line.split(':')[0]);
              problems.push(
                `${res.statusCode} changed the database (${tables.join(', ')}): ${where}: ${res.body.slice(0, 200)}`,
              );
            }
          } else {
            unsettled = true;
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      for (const u of [alice, bob]) {
        for (const f of await ordinaryCalls(u)) problems.push(`after ${key}: ${f}`);
      }
      unsettled = true;
      if (problems.length > 20) break;
    }
    console.log(`[fuzz] ${requests} requests over ${ops.length} operations, ${problems.length} problems`);
    expect(problems).toEqual([]);
  }, 240_000);
});
