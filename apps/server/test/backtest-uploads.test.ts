/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers read loosely */
import { BACKTEST_MESSAGES, DCA_MESSAGES } from '@bytx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backtestServices } from '../src/modules/backtest/routes';
import { until } from './bots.helpers';
import { apiCaller, createTestUser, makeTestApp, type TestApp } from './helpers';

/**
 * Issue 37 point 3: one big backtest upload must not stall everyone. A body of 600,000 inline candles
 * (~26 MB of JSON) was parsed and checked on the event loop before the one-backtest-per-user check:
 * /api/health waited over a second, a second upload of the same user waited as long for its 409, and
 * another user's small backtest stayed queued until the big one ended (one worker on 2 cores).
 * Every assertion here is an order of events, not a time.
 */

type User = Awaited<ReturnType<typeof createTestUser>>;
type Json = Record<string, any>;

const MIN = 60_000;
const N = 600_000;
const DCA_FORM = {
  symbol: 'BTC/USDT',
  amount: '20',
  tp: '1',
  separacion: '1',
  os: '3',
  exchange: 'binance',
  apartado: 'Spot',
};
const SERIES = [
  [0, 100, 100, 100, 100],
  [MIN, 100, 100, 98.9, 99],
  [2 * MIN, 99, 101.2, 99, 101],
  [3 * MIN, 101, 101.5, 100.5, 101],
];

/**
 * 600,000 candles zigzagging across the ladder (every candle is stepped: a run of several seconds),
 * as JSON text; `bad` replaces the candle at that index with one whose low is above its close.
 */
function bigBody(bad?: number): string {
  const rows: string[] = new Array<string>(N);
  for (let i = 0; i < N; i++) {
    const up = i % 2 === 0;
    rows[i] =
      i === bad
        ? `[${i * MIN},100.25,101.5,99.75,99.5,1.2345]`
        : `[${i * MIN},${up ? '97.25' : '103.25'},103.5,96.75,${up ? '103.25' : '97.25'},1.2345]`;
  }
  return `{"kind":"grid-dca","params":${JSON.stringify(DCA_FORM)},"candles":[${rows.join(',')}]}`;
}

describe('backtest uploads off the event loop (issue 37 point 3)', () => {
  let t: TestApp;
  let alice: User;
  let bob: User;
  let big: string;
  const call = apiCaller(() => t.app);
  const service = () => backtestServices.get(t.ctx)!;
  const postRaw = (u: User, payload: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/backtest',
      headers: { ...u.auth, 'content-type': 'application/json' },
      payload,
    });
  const status = async (u: User, id: string) => (await call(u, 'GET', `/api/backtest/${id}`)).body as Json;

  beforeAll(async () => {
    t = await makeTestApp({ SIMULATOR_CONTROL: '1' });
    alice = await createTestUser(t);
    bob = await createTestUser(t);
    const r = await call(null, 'POST', '/api/dev/market/price', {
      exchange: 'binance',
      symbol: 'BTC/USDT',
      price: 100,
    });
    expect(r.status).toBe(200);
    big = bigBody();
    // ~26 MB, as in the issue.
    expect(big.length).toBeGreaterThan(24 * 1024 * 1024);
  });
  afterAll(async () => t?.close());

  it('reads a 600,000-candle upload in a worker: health answers meanwhile, a second upload is 409 unread, another user runs beside it', async () => {
    const events: string[] = [];
    const first = postRaw(alice, big).then((r) => {
      events.push('first answered');
      return r;
    });
    // Alice's body is being read (in the worker's parse lane) ...
    await until(async () => service().pool.running('parse') > 0 || events.length > 0, 30_000);
    expect(events).toEqual([]);
    const parsesBefore = service().pool.submitted.parse;
    // ... while the server answers its health check, and her second upload at once: 409 without its
    // body being read (no parse task for it).
    const [health, second] = await Promise.all([
      call(null, 'GET', '/api/health').then((r) => {
        events.push('health');
        return r;
      }),
      postRaw(alice, big).then((r) => {
        events.push('second');
        return r;
      }),
    ]);
    expect(health.status).toBe(200);
    expect(second.statusCode).toBe(409);
    expect(second.json<Json>().error).toBe(BACKTEST_MESSAGES.alreadyRunning);
    expect(events.slice(0, 2).sort()).toEqual(['health', 'second']);
    expect(service().pool.submitted.parse).toBe(parsesBefore);

    const answered = await first;
    expect(answered.statusCode, answered.body).toBe(202);
    const bigId = answered.json<Json>().id as string;
    // Her upload is answered: a third one is still a 409 (her backtest is queued or running), unread.
    const third = await postRaw(
      alice,
      JSON.stringify({ kind: 'grid-dca', params: DCA_FORM, candles: SERIES }),
    );
    expect(third.statusCode).toBe(409);
    expect(service().pool.submitted.parse).toBe(parsesBefore);

    // Bob's small backtest starts and ends while alice's big one runs: a pool, one user's share.
    await until(async () => (await status(alice, bigId)).status === 'running', 30_000);
    const small = await call(bob, 'POST', '/api/backtest', {
      kind: 'grid-dca',
      params: DCA_FORM,
      candles: SERIES,
    });
    expect(small.status, JSON.stringify(small.body)).toBe(202);
    const bobDone = await until(async () => {
      const s = await status(bob, small.body.id as string);
      return s.status === 'done' ? s : null;
    }, 60_000);
    expect(bobDone.summary.closedTrades).toBe(2);
    const aliceNow = await status(alice, bigId);
    expect(aliceNow.status).toBe('running');
    expect(aliceNow.progress).toBeLessThan(1);

    // Her big backtest is a real one: cancelled here (it would run for many seconds more).
    expect((await call(alice, 'DELETE', `/api/backtest/${bigId}`)).body.status).toBe('cancelled');
    await until(async () => service().runningCount === 0, 30_000);
    expect(service().admission.inProgress).toBe(0);
  });

  it('answers bad uploads with the same 4xx texts, read in the worker, and stores nothing', async () => {
    const before = await service()['repo'].count();
    const u = await createTestUser(t);
    // The last of 600,000 candles is bad: named by its index, as before.
    const bad = await postRaw(u, bigBody(N - 1));
    expect(bad.statusCode).toBe(400);
    expect(bad.json<Json>().error).toBe(
      `Candle ${N - 1} is not valid: it must be [ts_ms, open, high, low, close, volume?] with prices > 0, low ≤ open, close ≤ high, and times ascending.`,
    );
    const cases: [string, number, string | RegExp][] = [
      ['{"kind":', 400, 'Invalid request: the body is not valid JSON'],
      ['{"__proto__":{"x":1},"kind":"grid-dca"}', 400, 'Invalid request: the body is not valid JSON'],
      [
        JSON.stringify({
          kind: 'grid-dca',
          params: { ...DCA_FORM, symbol: 'BTC\u0001/USDT' },
          candles: SERIES,
        }),
        400,
        /^Invalid request: body\.params\.symbol contains a control character/,
      ],
      [JSON.stringify({ kind: 'grid-dca', params: DCA_FORM, user_id: alice.email }), 403, /user_id/],
      ['', 400, /^Invalid request: kind: kind must be grid-dca, classic-dca or grid/],
      ['[]', 400, /^Invalid request: /],
      [
        JSON.stringify({ kind: 'grid-dca', params: { ...DCA_FORM, tp: '0.3' }, candles: [SERIES[0]] }),
        400,
        // The form's own check comes before the candles', as before.
        DCA_MESSAGES.minPct,
      ],
      [
        JSON.stringify({
          kind: 'grid-dca',
          params: DCA_FORM,
          csv: 'ts,open,high,low,close\n0,100,100,100,100\n',
        }),
        400,
        BACKTEST_MESSAGES.tooFewCandles,
      ],
    ];
    for (const [payload, code, message] of cases) {
      const r = await postRaw(u, payload);
      expect(r.statusCode, payload.slice(0, 80)).toBe(code);
      const error = r.json<Json>().error as string;
      if (typeof message === 'string') expect(error).toBe(message);
      else expect(error).toMatch(message);
    }
    // A start without any body: the schema's own answer.
    const none = await call(u, 'POST', '/api/backtest');
    expect(none.status).toBe(400);
    expect(await service()['repo'].count()).toBe(before);
  });

  it('limits start calls per user before reading the body (429 with Retry-After), other users unaffected', async () => {
    const u = await createTestUser(t);
    const limit = service().admission.limit.max;
    for (let i = 0; i < limit; i++) {
      const r = await postRaw(u, '{}');
      expect(r.statusCode).toBe(400);
    }
    const parses = service().pool.submitted.parse;
    const over = await postRaw(u, big);
    expect(over.statusCode).toBe(429);
    expect(over.json<Json>().error).toMatch(/^Too many requests\. Please try again in \d+ seconds\.$/);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(service().pool.submitted.parse).toBe(parses);
    // Another user is not limited by u's calls.
    expect((await postRaw(bob, '{}')).statusCode).toBe(400);
  });
});
