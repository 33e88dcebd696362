import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { BUSY_MESSAGE, loadSheddingPlugin } from '../src/plugins/load-shedding';

/**
 * The event-loop-delay rule of load shedding, on a bare Fastify app (the in-process API tests turn
 * this rule off: their loop is shared with PGlite and the test code, see helpers.testConfig).
 */
describe('load shedding: event-loop delay', () => {
  const apps: FastifyInstance[] = [];
  afterEach(async () => {
    for (const a of apps.splice(0)) await a.close();
  });

  async function appWith(maxEventLoopDelayMs: number) {
    const app = Fastify();
    apps.push(app);
    await app.register(loadSheddingPlugin, { maxInFlight: 0, maxEventLoopDelayMs, sampleMs: 100 });
    app.get('/api/work', async () => ({ ok: true }));
    app.get('/api/health', { config: { shed: false } }, async () => ({ ok: true }));
    await app.ready();
    return app;
  }

  /** Keeps the loop busy for `ms` (a synchronous stall, like a long CPU-bound task). */
  function stall(ms: number) {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      /* busy */
    }
  }
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('answers 503 with Retry-After after the loop stalled, spares unshed routes, and recovers', async () => {
    const app = await appWith(20);
    expect((await app.inject('/api/work')).statusCode).toBe(200);
    await sleep(250); // the monitor measures from its previous sample: let it take a few first
    // One 1 s stall among ~10 quiet 10 ms samples: the next 100 ms sample's mean is ~100 ms, above 20.
    // (Stalled up to three times: on a loaded machine a sampling period can straddle the stall.)
    let shed = await app.inject('/api/work');
    for (let attempt = 0; attempt < 3 && shed.statusCode !== 503; attempt++) {
      stall(1000);
      for (let i = 0; i < 50 && shed.statusCode !== 503; i++) {
        await sleep(10);
        shed = await app.inject('/api/work');
      }
    }
    expect(shed.statusCode).toBe(503);
    expect(shed.headers['retry-after']).toBe('2');
    expect(shed.json<{ error: string }>().error).toBe(BUSY_MESSAGE);
    expect((await app.inject('/api/health')).statusCode).toBe(200);
    // Quiet samples clear the flag again.
    let status = 503;
    for (let i = 0; i < 40 && status === 503; i++) {
      await sleep(100);
      status = (await app.inject('/api/work')).statusCode;
    }
    expect(status).toBe(200);
  });

  it('never sheds on delay when the rule is off (0)', async () => {
    const app = await appWith(0);
    await sleep(250);
    stall(1000);
    for (let i = 0; i < 30; i++) {
      expect((await app.inject('/api/work')).statusCode).toBe(200);
      await sleep(10);
    }
  });
});

/** The per-turn share (maxPerTurn): a burst is started a few requests a turn, exempt routes never wait. */
describe('load shedding: a fair share of the event loop', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  /** A bare app with only the per-turn share and the waiting bound, and one sheddable route. */
  async function shareApp(maxPerTurn: number, maxWaiting: number) {
    app = Fastify();
    await app.register(loadSheddingPlugin, {
      maxInFlight: 0,
      maxEventLoopDelayMs: 0,
      maxPerTurn,
      maxWaiting,
    });
    app.get('/api/work', async () => ({ ok: true }));
    await app.ready();
    return app;
  }

  it('starts at most maxPerTurn requests a turn, answers them all in order, and lets health through at once', async () => {
    app = Fastify();
    await app.register(loadSheddingPlugin, {
      maxInFlight: 0,
      maxEventLoopDelayMs: 0,
      maxPerTurn: 3,
      maxWaiting: 100,
    });
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

  it('goes quiet once nothing waits: no turn is scheduled while the server is idle', async () => {
    await shareApp(2, 100);
    await Promise.all(Array.from({ length: 10 }, () => app!.inject('/api/work')));
    await new Promise((r) => setTimeout(r, 50));
    // A turn scheduled at every turn would keep one immediate pending for ever (and a core spinning).
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Immediate')).toEqual([]);
  });

  it('answers 503 with Retry-After when too many wait for a turn', async () => {
    await shareApp(1, 5);
    const res = await Promise.all(Array.from({ length: 20 }, () => app!.inject('/api/work')));
    const shed = res.filter((r) => r.statusCode === 503);
    expect(shed.length).toBeGreaterThan(0);
    expect(res.filter((r) => r.statusCode === 200).length).toBeGreaterThanOrEqual(6);
    expect(shed[0]!.headers['retry-after']).toBe('2');
  });
});
