import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runners } from '../src/modules/bots/routes';
import { READY_MESSAGES } from '../src/modules/health/routes';
import { makeTestApp, type TestApp } from './helpers';

/** Liveness from memory, readiness from the database and the runner's first reconcile (issue 45 point 4). */
describe('health and readiness: the database', () => {
  let t: TestApp;
  let restore: (() => void) | undefined;
  beforeAll(async () => {
    t = await makeTestApp();
  });
  afterEach(() => {
    restore?.();
    restore = undefined;
  });
  afterAll(async () => t.close());

  /** Replaces the database's `query` until the end of the test; counts the calls. */
  function breakDatabase(query: () => Promise<unknown>) {
    const sql = t.ctx.database.sql as unknown as { query: (...a: unknown[]) => Promise<unknown> };
    const real = sql.query;
    let calls = 0;
    sql.query = () => {
      calls++;
      return query();
    };
    restore = () => (sql.query = real);
    return { calls: () => calls };
  }

  it('answers /api/health without asking the database, and /api/ready from it', async () => {
    expect((await t.app.inject('/api/ready')).json()).toEqual({
      ok: true,
      version: expect.any(String),
      db: 'pglite',
      database: 'up',
      runner: 'off',
    });
    const db = breakDatabase(() => Promise.reject(new Error('connection refused')));
    const health = await t.app.inject('/api/health');
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ ok: true, version: expect.any(String), db: 'pglite' });
    expect(db.calls()).toBe(0);

    const ready = await t.app.inject('/api/ready');
    expect(ready.statusCode).toBe(503);
    expect(ready.headers['retry-after']).toBe('1');
    expect(ready.json()).toMatchObject({
      ok: false,
      database: 'down',
      runner: 'off',
      error: READY_MESSAGES.database,
    });
    expect(db.calls()).toBe(1);
  });

  it('says the database is down when its SELECT 1 never answers (after READY_DB_TIMEOUT_MS)', async () => {
    const db = breakDatabase(() => new Promise(() => {}));
    // Two callers at once share one check.
    const [a, b] = await Promise.all([t.app.inject('/api/ready'), t.app.inject('/api/ready')]);
    expect([a.statusCode, b.statusCode]).toEqual([503, 503]);
    expect(a.json()).toMatchObject({ database: 'down' });
    expect(db.calls()).toBe(1);
    expect((await t.app.inject('/api/health')).statusCode).toBe(200);
  });

  it('is ready again once the database answers', async () => {
    expect((await t.app.inject('/api/ready')).statusCode).toBe(200);
  });
});

describe('health and readiness: the bot runner', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp({ BOT_RUNNER: '1' });
  });
  afterAll(async () => t.close());

  it('reports the real runner reconciled once it started', async () => {
    let res = await t.app.inject('/api/ready');
    for (let i = 0; i < 200 && res.statusCode !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      res = await t.app.inject('/api/ready');
    }
    expect(res.json()).toMatchObject({ ok: true, database: 'up', runner: 'reconciled' });
  });

  it("is not ready until this process's runner has done its first reconcile", async () => {
    // A stand-in for the runner holds the state the check reads (the real one started on ready).
    const real = runners.get(t.ctx)!;
    const status = { started: false, running: 0, attaching: 0 };
    runners.set(t.ctx, { status } as unknown as typeof real);
    try {
      const starting = await t.app.inject('/api/ready');
      expect(starting.statusCode).toBe(503);
      expect(starting.json()).toMatchObject({
        ok: false,
        database: 'up',
        runner: 'starting',
        error: READY_MESSAGES.runner,
      });
      expect((await t.app.inject('/api/health')).statusCode).toBe(200);
      status.started = true;
      const ready = await t.app.inject('/api/ready');
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toMatchObject({ ok: true, runner: 'reconciled' });
    } finally {
      runners.set(t.ctx, real);
    }
  });
});
