import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { BUSY_MESSAGE, loadSheddingPlugin, type LoadSheddingOptions } from '../src/plugins/load-shedding';
import { createTestUser, makeTestApp } from './helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A request held open until the test lets it go. */
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

/** Admission: up to capacity served, the excess queued in order, only what is over the bound refused. */
describe('load shedding: admission up to capacity', () => {
  const apps: FastifyInstance[] = [];
  afterEach(async () => {
    for (const a of apps.splice(0)) await a.close();
  });

  async function gatedApp(opts: LoadSheddingOptions) {
    const app = Fastify();
    apps.push(app);
    const g = gate();
    await app.register(loadSheddingPlugin, opts);
    const order: number[] = [];
    app.get('/api/work', async (req) => {
      order.push(Number((req.query as { n?: string }).n ?? -1));
      await g.wait();
      return { ok: true };
    });
    app.get('/api/quick', async () => ({ ok: true }));
    app.get('/api/health', { config: { shed: false } }, async () => ({ ok: true }));
    await app.ready();
    return { app, g, order };
  }

  /** Waits (bounded) until `cond` holds. */
  async function until(cond: () => boolean) {
    for (let i = 0; i < 200 && !cond(); i++) await sleep(10);
    expect(cond()).toBe(true);
  }

  it('serves every request of a burst over the in-flight limit, in arrival order, none refused', async () => {
    const { app, g, order } = await gatedApp({ maxInFlight: 3, maxQueueMs: 60_000 });
    const burst = Array.from({ length: 12 }, (_, n) => app.inject(`/api/work?n=${n}`));
    await until(() => g.count === 3);
    expect(app.loadShedding!.state()).toEqual({ inFlight: 3, queued: 9 });
    // The exempt route never waits for them.
    expect((await app.inject('/api/health')).statusCode).toBe(200);
    while (order.length < 12) {
      g.releaseAll();
      await sleep(5);
    }
    g.releaseAll();
    const statuses = (await Promise.all(burst)).map((r) => r.statusCode);
    expect(statuses).toEqual(Array(12).fill(200));
    expect(order).toEqual([...Array(12).keys()]);
    expect(app.loadShedding!.state()).toEqual({ inFlight: 0, queued: 0 });
  });

  it('refuses only arrivals while the oldest waiting one waited over maxQueueMs, and serves the next call once drained', async () => {
    const { app, g } = await gatedApp({ maxInFlight: 2, maxQueueMs: 20 });
    const admitted = Array.from({ length: 5 }, () => app.inject('/api/work'));
    await until(() => g.count === 2 && app.loadShedding!.state().queued === 3);
    await sleep(50); // the oldest waiting request is now over 20 ms old
    const refused = await app.inject('/api/work');
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toEqual({ success: false, ok: false, error: BUSY_MESSAGE, message: BUSY_MESSAGE });
    expect((await app.inject('/api/health')).statusCode).toBe(200);
    // The waiting ones are still served.
    for (let i = 0; i < 100 && app.loadShedding!.state().inFlight > 0; i++) {
      g.releaseAll();
      await sleep(5);
    }
    expect((await Promise.all(admitted)).map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    // Nothing latched: the next call is served.
    expect((await app.inject('/api/quick')).statusCode).toBe(200);
  });

  it('refuses over maxQueued waiting, whatever their age', async () => {
    const { app, g } = await gatedApp({ maxInFlight: 1, maxQueued: 2 });
    const first = Array.from({ length: 3 }, () => app.inject('/api/work'));
    await until(() => g.count === 1 && app.loadShedding!.state().queued === 2);
    expect((await app.inject('/api/work')).statusCode).toBe(503);
    for (let i = 0; i < 100 && app.loadShedding!.state().inFlight > 0; i++) {
      g.releaseAll();
      await sleep(5);
    }
    expect((await Promise.all(first)).map((r) => r.statusCode)).toEqual([200, 200, 200]);
  });

  it('drops a waiting request whose client left, without leaking its place', async () => {
    const { app, g } = await gatedApp({ maxInFlight: 1, maxQueueMs: 60_000 });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as AddressInfo).port;
    const get = (path: string) =>
      new Promise<number>((resolve) => {
        const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', () => resolve(0));
      });
    const a = get('/api/work?n=1');
    await until(() => g.count === 1);
    // b waits for a's place; then its client leaves.
    const b = http.get({ host: '127.0.0.1', port, path: '/api/work?n=2', agent: false });
    b.on('error', () => undefined);
    await until(() => app.loadShedding!.state().queued === 1);
    b.destroy();
    await sleep(50);
    g.releaseAll();
    expect(await a).toBe(200);
    await until(() => app.loadShedding!.state().inFlight === 0);
    // b never started (before, it was started after its client left, and its place was never given back).
    const c = get('/api/work?n=3');
    await until(() => g.count === 1);
    g.releaseAll();
    expect(await c).toBe(200);
    expect(app.loadShedding!.state()).toEqual({ inFlight: 0, queued: 0 });
  });
});

/** The per-turn share (maxPerTurn): a burst is started a few requests a turn, exempt routes never wait. */
describe('load shedding: a fair share of the event loop', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('starts at most maxPerTurn requests a turn, answers them all in order, and lets health through at once', async () => {
    app = Fastify();
    await app.register(loadSheddingPlugin, { maxInFlight: 0, maxPerTurn: 3, maxQueued: 100 });
    // The loop's turns, counted by a setImmediate chain (one step per check phase).
    let turn = 0;
    let counting = true;
    const tick = () => {
      turn++;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    const startedAt: number[] = [];
    const order: number[] = [];
    app.get('/api/work', async (req) => {
      startedAt.push(turn);
      order.push(Number((req.query as { n: string }).n));
      return { ok: true };
    });
    let healthTurn = -1;
    app.get('/api/health', { config: { shed: false } }, async () => {
      healthTurn = turn;
      return { ok: true };
    });
    await app.ready();
    const burst = Array.from({ length: 30 }, (_, n) => app!.inject(`/api/work?n=${n}`));
    const health = app.inject('/api/health');
    const statuses = (await Promise.all(burst)).map((r) => r.statusCode);
    expect((await health).statusCode).toBe(200);
    counting = false;
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // Per turn: at most 3 released, plus at most 3 admitted directly before the release of that turn.
    const perTurn = new Map<number, number>();
    for (const t of startedAt) perTurn.set(t, (perTurn.get(t) ?? 0) + 1);
    expect(Math.max(...perTurn.values())).toBeLessThanOrEqual(6);
    expect(perTurn.size).toBeGreaterThanOrEqual(5);
    // Health came in after the burst yet did not wait for it.
    expect(healthTurn).toBeLessThan(Math.max(...startedAt));
  });

  it('with maxTurnMs, starts only what fits in the time of a turn: many cheap requests a turn, few costly ones', async () => {
    app = Fastify();
    await app.register(loadSheddingPlugin, { maxInFlight: 0, maxTurnMs: 10, maxQueued: 1000 });
    let turn = 0;
    let counting = true;
    const tick = () => {
      turn++;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    const spin = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end) {
        /* busy: synchronous work of the handler, in ms */
      }
    };
    const startedAt: Record<'cheap' | 'costly', number[]> = { cheap: [], costly: [] };
    const order: number[] = [];
    app.get('/api/cheap', async () => {
      startedAt.cheap.push(turn);
      return { ok: true };
    });
    app.get('/api/costly', async (req) => {
      startedAt.costly.push(turn);
      order.push(Number((req.query as { n: string }).n));
      spin(3);
      return { ok: true };
    });
    await app.ready();
    const perTurn = (turns: number[]) => {
      const m = new Map<number, number>();
      for (const t of turns) m.set(t, (m.get(t) ?? 0) + 1);
      return Math.max(...m.values());
    };
    // 3 ms each against a 10 ms budget: a turn starts while less than 10 ms is spent, so at most 4 (0, 3,
    // 6 and 9 ms spent before each start).
    const costly = await Promise.all(Array.from({ length: 16 }, (_, n) => app!.inject(`/api/costly?n=${n}`)));
    expect(costly.every((r) => r.statusCode === 200)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(perTurn(startedAt.costly)).toBeLessThanOrEqual(4);
    // Answers from memory fit many to a turn: far more than a count of 4 would allow.
    const cheap = await Promise.all(Array.from({ length: 200 }, () => app!.inject('/api/cheap')));
    counting = false;
    expect(cheap.every((r) => r.statusCode === 200)).toBe(true);
    expect(perTurn(startedAt.cheap)).toBeGreaterThan(20);
  });

  it('goes quiet once nothing waits: no turn is scheduled while the server is idle', async () => {
    app = Fastify();
    await app.register(loadSheddingPlugin, { maxInFlight: 4, maxPerTurn: 2, maxQueued: 100 });
    app.get('/api/work', async () => ({ ok: true }));
    await app.ready();
    await Promise.all(Array.from({ length: 10 }, () => app!.inject('/api/work')));
    await sleep(50);
    // A turn scheduled at every turn would keep one immediate pending for ever (and a core spinning).
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Immediate')).toEqual([]);
  });

  it('answers 503 with Retry-After when too many wait for a turn', async () => {
    app = Fastify();
    await app.register(loadSheddingPlugin, { maxInFlight: 0, maxPerTurn: 1, maxQueued: 5 });
    app.get('/api/work', async () => ({ ok: true }));
    await app.ready();
    const res = await Promise.all(Array.from({ length: 20 }, () => app!.inject('/api/work')));
    const shed = res.filter((r) => r.statusCode === 503);
    expect(shed.length).toBeGreaterThan(0);
    expect(res.filter((r) => r.statusCode === 200).length).toBeGreaterThanOrEqual(6);
    expect(shed[0]!.headers['retry-after']).toBe('1');
  });
});

/**
 * Recovery over real sockets: keep-alive clients flood a route that costs CPU on the event loop, more
 * than it can carry; some are refused, the others served; the first call after the flood is served.
 */
describe('load shedding: back to serving right after a flood', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('serves a single call right after a flood that was partly refused', async () => {
    app = Fastify();
    await app.register(loadSheddingPlugin, { maxInFlight: 4, maxQueueMs: 20, maxPerTurn: 4 });
    app.get('/api/work', async () => {
      // ~2 ms of CPU per answer, and a turn of the loop between its two halves.
      const spin = (ms: number) => {
        const end = performance.now() + ms;
        while (performance.now() < end) {
          /* busy */
        }
      };
      spin(1);
      await new Promise((r) => setImmediate(r));
      spin(1);
      return { ok: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as AddressInfo).port;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 40 });
    const get = () =>
      new Promise<number>((resolve) => {
        http
          .get({ host: '127.0.0.1', port, path: '/api/work', agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          })
          .on('error', () => resolve(0));
      });
    // 40 clients, each sending its next request as soon as the last is answered: at most 30 requests
    // each, and no longer than 3 s in all.
    const statuses: number[] = [];
    const stopAt = Date.now() + 3000;
    await Promise.all(
      Array.from({ length: 40 }, async () => {
        for (let i = 0; i < 30 && Date.now() < stopAt; i++) statuses.push(await get());
      }),
    );
    agent.destroy();
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    // Right after the flood: one call, on a new connection, is served.
    const after = await new Promise<number>((resolve) => {
      http
        .get({ host: '127.0.0.1', port, path: '/api/work', agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        })
        .on('error', () => resolve(0));
    });
    expect(after).toBe(200);
    expect(app.loadShedding!.state()).toEqual({ inFlight: 0, queued: 0 });
  });

  it('the app: a call right after a flood of an authenticated read answers 200', async () => {
    // A small place count and queue bound, so that the flood (inject, one process) is partly refused.
    const t = await makeTestApp({ SHED_MAX_IN_FLIGHT: '4', SHED_MAX_QUEUE_MS: '1', SHED_MAX_QUEUED: '16' });
    try {
      const user = await createTestUser(t);
      const flood = await Promise.all(
        Array.from({ length: 200 }, () =>
          t.app.inject({ method: 'GET', url: '/api/bots_activos_dca', headers: user.auth }),
        ),
      );
      const codes = flood.map((r) => r.statusCode);
      expect(codes.filter((c) => c === 200).length).toBeGreaterThan(0);
      expect(codes.filter((c) => c === 503).length).toBeGreaterThan(0);
      expect(codes.filter((c) => c !== 200 && c !== 503)).toEqual([]);
      const after = await t.app.inject({ method: 'GET', url: '/api/bots_activos_dca', headers: user.auth });
      expect(after.statusCode).toBe(200);
      expect(t.app.loadShedding!.state()).toEqual({ inFlight: 0, queued: 0 });
    } finally {
      await t.close();
    }
  });
});

/** While the queue refuses, a new request is answered 503 at the socket, before Fastify's hooks. */
describe('load shedding: the refusal at the socket', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  /** One request on a connection of its own: status, headers and body. */
  const call = (port: number, path: string, method = 'GET', body?: string) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path, method, agent: false }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });

  it('refuses at the socket with the same answer, passes exempt paths, and Fastify sees nothing of it', async () => {
    app = Fastify();
    const seen: string[] = [];
    app.addHook('onRequest', (request, _reply, done) => {
      seen.push(request.url);
      done();
    });
    await app.register(loadSheddingPlugin, { maxInFlight: 1, maxQueued: 1 });
    const held = gate();
    app.get('/api/work', async () => {
      await held.wait();
      return { ok: true };
    });
    app.post('/api/work', async () => ({ ok: true }));
    app.get('/api/health', { config: { shed: false } }, async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as AddressInfo).port;

    // Nothing waits: requests go to Fastify (one worked on, one queued).
    const first = call(port, '/api/work');
    await sleep(50);
    const second = call(port, '/api/work');
    await sleep(50);
    expect(app.loadShedding!.state()).toEqual({ inFlight: 1, queued: 1 });
    expect(seen).toEqual(['/api/work', '/api/work']);

    // The queue is full: refused at the socket, a body unread and the query string ignored.
    const refused = await call(port, '/api/work?x=1', 'POST', JSON.stringify({ big: 'x'.repeat(10_000) }));
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(refused.headers['x-content-type-options']).toBe('nosniff');
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(refused.body)).toEqual({
      success: false,
      ok: false,
      error: BUSY_MESSAGE,
      message: BUSY_MESSAGE,
    });
    // Exempt paths and paths outside the API pass on to Fastify.
    expect((await call(port, '/api/health')).status).toBe(200);
    expect((await call(port, '/nothing-here')).status).toBe(404);
    expect(seen).toEqual(['/api/work', '/api/work', '/api/health', '/nothing-here']);

    // Once the queue drains, requests reach Fastify again.
    held.releaseAll();
    expect((await first).status).toBe(200);
    await sleep(20);
    held.releaseAll();
    expect((await second).status).toBe(200);
    expect((await call(port, '/api/work', 'POST')).status).toBe(200);
    expect(seen.at(-1)).toBe('/api/work');
  });

  it('refuses in the hook as before when refuseAtSocket is false', async () => {
    app = Fastify();
    let hooked = 0;
    app.addHook('onRequest', (_request, _reply, done) => {
      hooked++;
      done();
    });
    await app.register(loadSheddingPlugin, { maxInFlight: 1, maxQueued: 1, refuseAtSocket: false });
    const held = gate();
    app.get('/api/work', async () => {
      await held.wait();
      return { ok: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as AddressInfo).port;
    const first = call(port, '/api/work');
    await sleep(50);
    const second = call(port, '/api/work');
    await sleep(50);
    expect((await call(port, '/api/work')).status).toBe(503);
    expect(hooked).toBe(3);
    held.releaseAll();
    await first;
    await sleep(20);
    held.releaseAll();
    await second;
  });
});
