import http from 'node:http';
import type { Config } from './config';

/** The HTTP settings both the early listener and the app's server use (docs/limits.md). */
export type HttpServerConfig = Pick<
  Config,
  | 'HTTP_HEADERS_TIMEOUT_MS'
  | 'HTTP_REQUEST_TIMEOUT_MS'
  | 'HTTP_KEEP_ALIVE_TIMEOUT_MS'
  | 'HTTP_IDLE_TIMEOUT_MS'
>;

/**
 * The server's HTTP server: slow or half-sent requests cannot hold a connection (docs/limits.md); node
 * checks the header and request deadlines every second; an idle socket ends after HTTP_IDLE_TIMEOUT_MS.
 */
export function createHttpServer(config: HttpServerConfig, handler?: http.RequestListener): http.Server {
  const server = http.createServer(
    {
      headersTimeout: config.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeout: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: 1_000,
    },
    handler,
  );
  server.setTimeout(config.HTTP_IDLE_TIMEOUT_MS);
  return server;
}

/** What the early listener says about the process while the app is still being built. */
export interface EarlyInfo {
  version: string;
  db: 'pglite' | 'postgres';
}

export const STARTING_MESSAGE = 'The server is starting. Please try again in a moment.';

export interface EarlyServer {
  server: http.Server;
  /** For `buildApp`'s `serverFactory`: keeps the app's handler until {@link EarlyServer.handOver}. */
  adopt(handler: http.RequestListener): http.Server;
  /** From now on every request goes to the adopted handler (the app is ready). */
  handOver(): void;
}

/**
 * The listener of a starting server (issue 45 point 5: back fast after a crash).
 *
 * `main.ts` listens on PORT before it loads the rest of the server: importing ~300 modules, opening the
 * database (PGlite's recovery after a SIGKILL), the migrations check and the plugins take seconds, and
 * a supervisor or load balancer that sees no listener for that long calls the process dead. Until the
 * app is ready, this handler answers from memory (and `GET /api/health` for the process's whole life): `/api/health` 200 (alive, the same body as the app's),
 * `/api/ready` 503 with `database: 'starting'`, and every other request 503 + `Retry-After: 1` (nothing
 * is queued: a client asked to come back costs nothing here). Then the app's handler takes over the
 * same listening socket (`handOver`), with no moment where the port is closed, and keep-alive
 * connections opened meanwhile go on to the app.
 */
export function createEarlyServer(config: HttpServerConfig, info: EarlyInfo): EarlyServer {
  const health = JSON.stringify({ ok: true, version: info.version, db: info.db });
  const ready = JSON.stringify({
    ok: false,
    version: info.version,
    db: info.db,
    database: 'starting',
    runner: 'starting',
    error: STARTING_MESSAGE,
    message: STARTING_MESSAGE,
  });
  const busy = JSON.stringify({
    success: false,
    ok: false,
    error: STARTING_MESSAGE,
    message: STARTING_MESSAGE,
  });
  const early: http.RequestListener = (req, res) => {
    // Nothing is read from the body: the answer does not depend on it, and the socket is kept usable.
    req.resume();
    const url = (req.url ?? '/').split('?')[0];
    const head = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
    const json = { ...head, 'content-type': 'application/json; charset=utf-8' };
    if (url === '/api/health' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(200, json).end(req.method === 'HEAD' ? undefined : health);
    } else if (url === '/api/ready') {
      res.writeHead(503, { ...json, 'retry-after': '1' }).end(ready);
    } else if (url === '/api' || url?.startsWith('/api/')) {
      res.writeHead(503, { ...json, 'retry-after': '1' }).end(busy);
    } else {
      res
        .writeHead(503, { ...head, 'content-type': 'text/plain; charset=utf-8', 'retry-after': '1' })
        .end(STARTING_MESSAGE);
    }
  };
  let current: http.RequestListener = early;
  let adopted: http.RequestListener | null = null;
  const server = createHttpServer(config, (req, res) => {
    // Health is answered here for the process's whole life, before the app's router, hooks and load
    // shedding (issue 45 point 3: a lane that queues behind nothing). The app's own route answers the
    // same body (app.inject, and a URL with a query string).
    if (req.url === '/api/health' && (req.method === 'GET' || req.method === 'HEAD')) {
      req.resume();
      res
        .writeHead(200, {
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
          'content-type': 'application/json; charset=utf-8',
        })
        .end(req.method === 'HEAD' ? undefined : health);
      return;
    }
    current(req, res);
  });
  return {
    server,
    adopt(handler) {
      adopted = handler;
      return server;
    },
    handOver() {
      if (!adopted) throw new Error('no app handler to hand the server over to');
      current = adopted;
    },
  };
}

/** Listens on `port` and `host`; rejects on an error such as EADDRINUSE. */
export function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}
