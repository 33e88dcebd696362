import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { BUSY_MESSAGE, loadSheddingPlugin } from '../src/plugins/load-shedding';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Requests held open until the test lets them go. */
function gate() {
  const held: (() => void)[] = [];
  return {
    wait: () => new Promise<void>((r) => held.push(r)),
    get count() {
      return held.length;
    },
    releaseAll: () => held.splice(0).forEach((r) => r()),
  };
}

async function until(cond: () => boolean) {
  for (let i = 0; i < 200 && !cond(); i++) await sleep(10);
  expect(cond()).toBe(true);
}

/** A route's own lane (issue 45 point 3): the login is not queued behind a flood of reads. */
describe('load shedding: a lane of its own', () => {
  const apps: FastifyInstance[] = [];
  afterEach(async () => {
    for (const a of apps.splice(0)) await a.close();
  });

  async function laneApp() {
    const app = Fastify();
    apps.push(app);
    const reads = gate();
    const logins = gate();
    // The shared queue: one in flight, one waiting, the oldest may wait for ever.
    await app.register(loadSheddingPlugin, { maxInFlight: 1, maxQueued: 1 });
    app.get('/api/read', async () => {
      await reads.wait();
      return { ok: true };
    });
    app.post(
      '/api/login',
      { config: { shed: { lane: 'login', maxInFlight: 2, maxQueued: 1 } } },
      async () => {
        await logins.wait();
        return { ok: true };
      },
    );
    await app.ready();
    return { app, reads, logins };
  }

  it('serves the lane while the shared queue is full, within its own budget, and refuses only its excess', async () => {
    const { app, reads, logins } = await laneApp();
    // The shared queue is full: a third read is refused.
    const r1 = app.inject('/api/read');
    const r2 = app.inject('/api/read');
    await until(() => reads.count === 1 && app.loadShedding!.state().queued === 1);
    expect((await app.inject('/api/read')).statusCode).toBe(503);

    // Logins still start at once, up to the lane's 2; a third waits in the lane, a fourth is refused.
    const l1 = app.inject({ method: 'POST', url: '/api/login' });
    const l2 = app.inject({ method: 'POST', url: '/api/login' });
    await until(() => logins.count === 2);
    const l3 = app.inject({ method: 'POST', url: '/api/login' });
    await until(() => app.loadShedding!.lane('login')?.queued === 1);
    const l4 = await app.inject({ method: 'POST', url: '/api/login' });
    expect(l4.statusCode).toBe(503);
    expect(l4.headers['retry-after']).toBe('1');
    expect(l4.json()).toMatchObject({ error: BUSY_MESSAGE });
    expect(app.loadShedding!.lane('login')).toEqual({ inFlight: 2, queued: 1 });

    // One login done: the waiting one starts (the reads are still held).
    logins.releaseAll();
    expect((await l1).statusCode).toBe(200);
    expect((await l2).statusCode).toBe(200);
    await until(() => logins.count === 1);
    logins.releaseAll();
    expect((await l3).statusCode).toBe(200);
    expect(app.loadShedding!.lane('login')).toEqual({ inFlight: 0, queued: 0 });
    expect(app.loadShedding!.state()).toEqual({ inFlight: 1, queued: 1 });

    while (reads.count > 0 || app.loadShedding!.state().inFlight > 0) {
      reads.releaseAll();
      await sleep(5);
    }
    expect([(await r1).statusCode, (await r2).statusCode]).toEqual([200, 200]);
  });
});
