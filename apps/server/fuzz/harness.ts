import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { bots } from '../src/db/schema/index';
import { runners } from '../src/modules/bots/routes';
import { createTestUser, DASHBOARD_CALLS, makeTestApp, type TestApp } from '../test/helpers';
import { installChangeLog } from './change-log';
import {
  asText,
  EX,
  MISSING,
  randomVariants,
  SYM,
  toJson,
  variantsFor,
  type Caller,
  type Field,
  type Schema,
  type Variant,
} from './hostile';

/**
 * The schema-driven fuzz tier (docs/limits.md, "The fuzz tier"). Each `*.fuzz.test.ts` file fuzzes one
 * group of the OpenAPI document's operations on its own app (its own in-memory database from the
 * migrated snapshot, apps/server/test/db-snapshot.ts), so vitest runs the groups side by side on the
 * two cores; inside a file, one test per operation, its requests one after another (each is judged by
 * what it alone changed in the database).
 */

type User = Awaited<ReturnType<typeof createTestUser>>;
type Json = Record<string, unknown>;

/** FUZZ_RUNS: random requests per operation on top of the fixed ones (fast-check, seed FUZZ_SEED). */
const RUNS = Number(process.env.FUZZ_RUNS ?? 0);

/**
 * The groups, one file each, matched in this order by path; an operation no pattern names goes to the
 * last group, so a new route is always fuzzed. Sized to take about the same time each.
 */
export const GROUPS = {
  accounts:
    /^\/api\/(health|config|enviar_codigo|registro|login|verify_2fa|me|logout|language|check_2fa|generate_2fa|disable_2fa|cambiar_password|delete_account|reauth|sessions|forum|peliculas)/,
  market:
    /^\/api\/(precio|ticker|market|estado_conexion|conectar_exchange|eliminar_exchange|exchanges|wallet|address|spot|futures|chain|earnings|delete_wallet|pool_state|plans|dev\/)/,
  dca: /^\/api\/(bots_activos_dca|start_bot_dca|stop_bot_dca|actualizar_bot_dca|update_sl|update_tp_plus|dca\/|pending\/|historial$|min_cost|bots\/|set_leverage|apartado_usuario|precios_actuales|pnls_actuales|reanudar_bots_activos)/,
  bots: /./,
} as const;
export type Group = keyof typeof GROUPS;

/** Routes that end the caller's session or account: sent by a throwaway user each time. */
const ENDS_SESSION = new Set(['POST /api/logout', 'DELETE /api/delete_account']);
/** Routes whose valid-looking request stops or removes what the others use: fuzzed last in their group. */
const DESTRUCTIVE = /stop|detener|eliminar|delete|reset|logout|end-others|delist/;
/** Stands for the sender's email in a variant (the first user's for "another user"). */
const ME = 'fuzz-me@example.com';

/**
 * The changes a refused request may make (table:operation:columns): the failed-attempt counters that
 * make guessing a password or a code slow (accounts: login backoff, email-code and TOTP tries).
 */
const FAILURE_RECORDS =
  /^(login_backoff:(INSERT|UPDATE:.*)|email_codes:UPDATE:attempts|user_totp:UPDATE:(failed_attempts|failed_attempts,locked_until))$/;

/** What must never reach a client: stack frames, file paths, SQL and driver errors. */
const LEAK =
  /\bat [\w.<>]+ \(|node_modules|\.ts:\d+|\bSELECT\b.+\bFROM\b|\bINSERT INTO\b|\bUPDATE\b.+\bSET\b|syntax error at|violates .* constraint|duplicate key value|relation "/i;

/** The calls a dashboard polls: after every write of the user the server took, they must still answer 2xx. */
const QUICK_CALLS: [string, string, Json?][] = [
  ['GET', '/api/bots_activos_dca'],
  ['GET', '/api/bots_activos'],
  ['POST', '/api/reanudar_bots_activos', {}],
  ['POST', '/api/pnls_actuales', {}],
];

interface OpenApiOp {
  parameters?: { name: string; in: 'query' | 'path' | 'header'; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, Schema> } }> };
}
interface Operation {
  key: string;
  method: string;
  path: string;
  fields: Field[];
}

function operations(t: TestApp): Operation[] {
  const doc = t.app.swagger() as { paths: Record<string, Record<string, OpenApiOp>> };
  return Object.entries(doc.paths)
    .filter(([p]) => p.startsWith('/api/') && !p.startsWith('/api/docs'))
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([m, op]) => {
        const props = op.requestBody?.content?.['application/json']?.schema?.properties ?? {};
        const fields: Field[] = [
          ...Object.entries(props).map(([name, schema]) => ({ name, where: 'body' as const, schema })),
          ...(op.parameters ?? [])
            .filter((p) => p.in === 'query' || p.in === 'path')
            .map((p) => ({ name: p.name, where: p.in as 'query' | 'path', schema: p.schema })),
        ];
        return { key: `${m.toUpperCase()} ${path}`, method: m.toUpperCase(), path, fields };
      }),
    )
    .filter((o) => o.method !== 'HEAD');
}

export const groupOf = (path: string): Group =>
  (Object.keys(GROUPS) as Group[]).find((g) => GROUPS[g].test(path)) ?? 'bots';

/** Registers the tests of one group: builds its app (top-level await in the test file) first. */
export async function fuzzGroup(group: Group): Promise<void> {
  const t = await makeTestApp({ SIMULATOR_CONTROL: '1', BOT_RUNNER: '1' });
  afterAll(async () => t.close());
  const all = operations(t);
  const ops = all
    .map((o, index) => ({ ...o, index }))
    .filter((o) => groupOf(o.path) === group)
    .sort((a, b) => Number(DESTRUCTIVE.test(a.key)) - Number(DESTRUCTIVE.test(b.key)) || a.index - b.index);

  const alice = await createTestUser(t);
  const bob = await createTestUser(t);
  for (const u of [alice, bob]) {
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/conectar_exchange',
      headers: u.auth,
      payload: { exchange: EX, mode: 'paper' },
    });
    if (r.statusCode !== 200) throw new Error(`connect: ${r.statusCode} ${r.body}`);
  }
  // Hold every simulated price, the same on every exchange: nothing fills by itself while a request is
  // judged, and a started arbitrage bot finds no spread to trade on.
  const sim = t.ctx.services.simulator!;
  for (const s of sim.symbols) {
    const price = sim.price(sim.exchanges[0]!, s);
    for (const ex of sim.exchanges) sim.setPrice(ex, s, price);
  }
  const start = await t.app.inject({
    method: 'POST',
    url: '/api/start_bot_dca',
    headers: alice.auth,
    payload: { exchange: EX, symbol: SYM, amount: 20, tp: 1, separacion: 1, os: 3 },
  });
  if (start.statusCode !== 200) throw new Error(`start_bot_dca: ${start.statusCode} ${start.body}`);
  const [bot] = await t.ctx.db.select({ id: bots.id }).from(bots).where(eq(bots.userId, alice.id));
  const caller: Caller = {
    email: ME,
    botId: bot?.id ?? '00000000-0000-4000-8000-000000000000',
    price: sim.price(EX, SYM),
  };

  const changeLog = await installChangeLog(t);
  const stats = { requests: 0, settles: 0, settleMs: 0, requestMs: 0, checks: 0, checkMs: 0 };
  const runner = runners.get(t.ctx);
  /**
   * What an earlier accepted call set off (orders, fills, a resumed bot's first tick) lands before the
   * next request is judged: the bots' queues are drained and the change log has been quiet for 30 ms
   * (a busy machine delays the background work, not the wait; at most 5 s). Returns the last change.
   */
  const settle = async (): Promise<number> => {
    const t0 = performance.now();
    let last = await changeLog.last();
    for (let i = 0; i < 100; i++) {
      await runner?.idle();
      await new Promise((r) => setTimeout(r, 30));
      await runner?.idle();
      const now = await changeLog.last();
      if (now === last) break;
      last = now;
    }
    stats.settles++;
    stats.settleMs += performance.now() - t0;
    return last;
  };
  let ip = 0;
  const nextIp = () => `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip++ & 255}`;
  /** One of the user's ordinary calls (a check, counted apart from the hostile requests). */
  const call = async (u: User, method: string, url: string, body?: Json) => {
    const t0 = performance.now();
    const res = await t.app.inject({
      method: method as 'GET',
      url,
      headers: u.auth,
      remoteAddress: nextIp(),
      ...(body ? { payload: body } : {}),
    });
    stats.checks++;
    stats.checkMs += performance.now() - t0;
    return res;
  };

  /** The user's ordinary calls: each must still answer 2xx whatever came before. */
  const ordinaryCalls = async (u: User): Promise<string[]> => {
    const calls: readonly [string, string, Json?][] = [
      ['GET', '/api/me'],
      ...DASHBOARD_CALLS,
      ['GET', '/api/exchanges/connections'],
      ['GET', '/api/ticker'],
      ['GET', '/api/forum/posts?page=1'],
    ];
    const failed: string[] = [];
    for (const [method, url, body] of calls) {
      const res = await call(u, method, url, body);
      if (res.statusCode >= 300) failed.push(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
    return failed;
  };

  // The last change the requests so far may have caused (null: an accepted request may still be at work).
  let seen: number | null = null;
  // Whether the other user got a request through in this operation (then his calls are checked too).
  let bobActed = false;

  /** Sends one variant and returns what is wrong with the answer and its effects. */
  const send = async (op: Operation, v: Variant): Promise<string[]> => {
    const problems: string[] = [];
    let user: User | null = v.auth === 'user' ? alice : v.auth === 'other' ? bob : null;
    if (user && ENDS_SESSION.has(op.key)) {
      user = await createTestUser(t);
      seen = null;
    }
    const email = v.auth === 'user' && user ? user.email : alice.email;
    const value = (x: unknown) => (x === ME ? email : x);
    const of = (where: Field['where']) =>
      op.fields
        .filter((f) => f.where === where && v.values[f.name] !== MISSING)
        .map((f) => [f.name, value(v.values[f.name])] as const);
    const pathVals = Object.fromEntries(of('path'));
    let url = op.path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(asText(pathVals[n] ?? '')));
    const hasBody = op.method !== 'GET' && op.method !== 'DELETE';
    const query = [...of('query'), ...(hasBody ? [] : Object.entries(v.extra ?? {}))];
    const qs = query
      .filter(([, x]) => x !== MISSING)
      .map(([k, x]) => `${encodeURIComponent(k)}=${encodeURIComponent(asText(x))}`)
      .join('&');
    if (qs) url += `?${qs}`;
    let payload: string | undefined;
    if (hasBody) {
      if (!v.body) payload = toJson({ ...v.extra, ...Object.fromEntries(of('body')) });
      else if (v.body.kind === 'value') payload = toJson(v.body.value);
      else if (v.body.kind === 'text') payload = v.body.text;
    }
    const where = `${op.key} [${v.label}] ${url.slice(0, 120)} ${payload?.slice(0, 160) ?? ''}`;

    seen ??= await settle();
    const before = seen;
    const r0 = performance.now();
    const res = await t.app.inject({
      method: op.method as 'POST',
      url,
      remoteAddress: nextIp(),
      headers: {
        ...(user ? user.auth : {}),
        ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(payload !== undefined ? { payload } : {}),
    });
    stats.requests++;
    stats.requestMs += performance.now() - r0;
    if (res.statusCode >= 500) problems.push(`${res.statusCode} ${where}: ${res.body.slice(0, 200)}`);
    if (LEAK.test(res.body)) problems.push(`leak ${where}: ${res.body.slice(0, 300)}`);
    const refused = res.statusCode >= 400 && res.statusCode < 500;
    if (refused) {
      // A refused request changes nothing but the failed-attempt counters (FAILURE_RECORDS).
      const changes = await changeLog.since(before);
      const wrong = changes.filter((c) => !FAILURE_RECORDS.test(c.what));
      if (wrong.length > 0) {
        const what = [...new Set(wrong.map((c) => c.what))].join('; ');
        problems.push(
          `${res.statusCode} changed the database (${what}): ${where}: ${res.body.slice(0, 200)}`,
        );
      }
      seen = changes.at(-1)?.id ?? before;
    } else {
      seen = null;
    }
    if (user === bob && !refused) bobActed = true;
    if (op.method !== 'GET' && user === alice && !refused) {
      // Stateful: after each write the server took, the user's own dashboard calls still answer. (After a
      // refused one the database is as it was, checked above; the operation's end checks every call.)
      for (const [m, u, b] of QUICK_CALLS) {
        const r = await call(alice, m, u, b);
        if (r.statusCode >= 300) problems.push(`after ${where}: ${m} ${u} ${r.statusCode}`);
      }
    }
    return problems;
  };

  describe(`fuzz (${group}): every operation under hostile input`, () => {
    it('finds the API in the OpenAPI document and this group in it', () => {
      expect(all.length).toBeGreaterThan(100);
      expect(ops.length).toBeGreaterThan(5);
    });

    for (const op of ops) {
      const variants = [
        ...variantsFor(op.index, op.method, op.fields, caller),
        ...randomVariants(op.index, op.fields, RUNS),
      ];
      it(`${op.key}: ${variants.length} hostile requests without a 5xx, a leak or a change on refusal`, async () => {
        const problems: string[] = [];
        bobActed = false;
        for (const v of variants) problems.push(...(await send(op, v)));
        for (const u of bobActed ? [alice, bob] : [alice])
          for (const f of await ordinaryCalls(u)) problems.push(`after ${op.key}: ${f}`);
        seen = null;
        expect(problems).toEqual([]);
      });
    }
  });
  afterAll(() => {
    const ms = (x: number) => Math.round(x);
    console.log(
      `[fuzz ${group}] ${stats.requests} requests over ${ops.length} operations; ` +
        `requests ${ms(stats.requestMs)} ms, ${stats.settles} settles ${ms(stats.settleMs)} ms, ` +
        `${stats.checks} ordinary calls ${ms(stats.checkMs)} ms`,
    );
  });
}
