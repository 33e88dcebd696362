import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import type { Database } from '../src/db/client';
import { createEarlyServer, listen, STARTING_MESSAGE, type EarlyServer } from '../src/early-server';
import { chainModules } from '../src/modules/chain/routes';
import { APP_VERSION } from '../src/version';
import { openTestDatabase } from './db-snapshot';
import { testConfig } from './helpers';

/**
 * Back fast after a crash (issue 45 point 5): main.ts listens before it loads and builds the app; the
 * early listener answers health from memory and 503 to the rest, then hands the same socket over.
 */
describe('the early listener of a starting server', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  // One database for the apps of this file (opening one from the snapshot is most of an app's cost).
  let database: Database;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => database.close());

  /** One keep-alive connection for every call: the handover must not need a new one. */
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  afterAll(() => agent.destroy());
  function get(port: number, url: string, method = 'GET') {
    return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; socket: unknown }>(
      (resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path: url, method, agent }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body, socket: req.socket }),
          );
        });
        req.on('error', reject);
        req.end();
      },
    );
  }

  async function early(): Promise<{
    early: EarlyServer;
    port: number;
    config: ReturnType<typeof testConfig>;
  }> {
    const config = testConfig();
    const e = createEarlyServer(config, { version: APP_VERSION, db: 'pglite' });
    await listen(e.server, 0, '127.0.0.1');
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          e.server.closeAllConnections();
          e.server.close(() => resolve());
        }),
    );
    return { early: e, port: (e.server.address() as AddressInfo).port, config };
  }

  it('answers health 200, ready 503 and every other call 503 + Retry-After before the app exists', async () => {
    const { port } = await early();
    const health = await get(port, '/api/health');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual({ ok: true, version: APP_VERSION, db: 'pglite' });
    expect((await get(port, '/api/health', 'HEAD')).status).toBe(200);

    const ready = await get(port, '/api/ready');
    expect(ready.status).toBe(503);
    expect(ready.headers['retry-after']).toBe('1');
    expect(JSON.parse(ready.body)).toMatchObject({ ok: false, database: 'starting', runner: 'starting' });

    const me = await get(port, '/api/me?x=1');
    expect(me.status).toBe(503);
    expect(me.headers['retry-after']).toBe('1');
    expect(JSON.parse(me.body)).toMatchObject({ ok: false, error: STARTING_MESSAGE });
    const page = await get(port, '/bot-dca');
    expect(page.status).toBe(503);
    expect(page.body).toBe(STARTING_MESSAGE);
    expect(() => createEarlyServer(testConfig(), { version: 'x', db: 'pglite' }).handOver()).toThrow();
  });

  it('keeps answering health while the app builds, then hands the same connection over to it', async () => {
    const { early: e, port, config } = await early();
    const first = await get(port, '/api/health');
    // The app is built while the listener serves (main.ts imports it only now).
    const building = buildApp(config, { database, logger: false, serverFactory: (h) => e.adopt(h) });
    const during = await get(port, '/api/health');
    expect(during.status).toBe(200);
    expect((await get(port, '/api/ready')).status).toBe(503);
    const { app } = await building;
    cleanups.push(() => app.close());
    await app.ready();
    // Built and ready but not handed over: still the early answers.
    expect((await get(port, '/api/ready')).status).toBe(503);
    e.handOver();

    const ready = await get(port, '/api/ready');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toEqual({
      ok: true,
      version: APP_VERSION,
      db: 'pglite',
      database: 'up',
      runner: 'off',
    });
    // The app's own answers now: its 404 for an unknown API route, its security headers.
    const unknown = await get(port, '/api/no-such-route');
    expect(unknown.status).toBe(404);
    expect(unknown.headers['x-content-type-options']).toBe('nosniff');
    // One connection throughout: keep-alive sockets opened during the start go on to the app.
    expect(ready.socket).toBe(first.socket);
    expect(during.socket).toBe(first.socket);
  });

  it("is ready before the embedded chain's start is over; the chain's calls say so meanwhile", async () => {
    const config = testConfig({ CHAIN: 'embedded' });
    const { app, ctx } = await buildApp(config, { database, logger: false });
    cleanups.push(() => app.close());
    await app.ready();
    const m = chainModules.get(ctx)!;
    // Ready (the app serves) while the node is still starting.
    expect(m.runtime.ready).toBe(false);
    const info = await app.inject('/api/chain');
    expect(info.statusCode).toBe(200);
    expect(info.json()).toMatchObject({ mode: 'embedded', ready: false, addresses: null });
    expect((await app.inject('/api/ready')).statusCode).toBe(200);
    await m.started;
    expect(m.runtime.ready).toBe(true);
    expect((await app.inject('/api/chain')).json()).toMatchObject({ ready: true });
  }, 60_000); // anvil's start and the contracts' deployment, as in chain-api.test.ts
});
