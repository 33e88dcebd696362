import { monitorEventLoopDelay } from 'node:perf_hooks';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestAbortHookHandler,
  onRequestHookHandler,
  onResponseHookHandler,
} from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: never shed (health, login, /api/me: what a person needs to see the server is there). */
    shed?: boolean;
  }
}

export interface LoadSheddingOptions {
  /** API requests being answered at once, above which new ones get 503 (0: no limit). */
  maxInFlight: number;
  /** Event-loop delay (ms, mean over the last sampling period) above which new ones get 503 (0: off). */
  maxEventLoopDelayMs: number;
  /** Sampling period of the event-loop delay (ms). */
  sampleMs?: number;
  /**
   * Sheddable API requests that start their work in one turn of the event loop (0: no limit). The
   * others wait, in arrival order, for the next turns; see "A fair share of the event loop" below.
   */
  maxPerTurn?: number;
  /** Requests waiting for a turn, above which new ones get 503 (default 4 × maxPerTurn, at least 256). */
  maxWaiting?: number;
}

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

export const BUSY_MESSAGE = 'The server is busy right now. Please try again in a moment.';
/** Seconds a shed client is asked to wait. */
export const RETRY_AFTER_S = 2;

/**
 * Refuses work early instead of queueing it (issue: starvation under load). A request that would
 * make the API exceed `maxInFlight` requests in progress, or that arrives while the event loop is
 * late by more than `maxEventLoopDelayMs`, is answered at once with 503 and `Retry-After`, before its
 * body is read or any database work starts. Routes marked `config: { shed: false }` (health, login,
 * the session check) are always admitted, so they stay fast while a flood is refused. Static files
 * and the web app are not counted.
 */
export const loadSheddingPlugin = fp(async (app: FastifyInstance, opts: LoadSheddingOptions) => {
  let inFlight = 0;
  const counted = new WeakSet<FastifyRequest>();
  let lagging = false;
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  if (opts.maxEventLoopDelayMs > 0) {
    histogram.enable();
    const timer = setInterval(() => {
      lagging = histogram.mean / 1e6 > opts.maxEventLoopDelayMs;
      histogram.reset();
    }, opts.sampleMs ?? 500);
    timer.unref();
    app.addHook('onClose', async () => {
      clearInterval(timer);
      histogram.disable();
    });
  }

  // A fair share of the event loop. Keep-alive clients that send their next request as soon as the last
  // is answered (a dashboard's polls, a flood) all have a request ready at every turn of the loop, and
  // Node reads every ready socket in one turn: with 200 of them a turn runs 200 handlers before the
  // loop gets back to a new connection, so a person arriving (health, login) waits for all of them, and
  // more with every connection added. So at most `maxPerTurn` sheddable requests start per turn; the
  // others wait in arrival order for the next turns (released from setImmediate, after the sockets
  // were read), and exempt routes never wait. The same work is done in shorter turns: a newcomer
  // waits for one short turn instead of one long one.
  const maxPerTurn = opts.maxPerTurn ?? 0;
  const maxWaiting = opts.maxWaiting ?? Math.max(256, 4 * maxPerTurn);
  const waiting: { request: FastifyRequest; done: HookHandlerDoneFunction }[] = [];
  let startedThisTurn = 0;
  let turnScheduled = false;
  const admit = (request: FastifyRequest, done: HookHandlerDoneFunction) => {
    inFlight++;
    counted.add(request);
    done();
  };
  const nextTurn = () => {
    turnScheduled = false;
    startedThisTurn = 0;
    while (startedThisTurn < maxPerTurn && waiting.length > 0) {
      startedThisTurn++;
      const next = waiting.shift()!;
      admit(next.request, next.done);
    }
    // Only while there is work: one more turn resets the count of the requests just started. An
    // immediate scheduled at every turn would keep the loop from ever waiting for I/O: a core spent
    // spinning while the server is idle (it was, until found by a bench process that never exited).
    if (startedThisTurn > 0 || waiting.length > 0) scheduleTurn();
  };
  const scheduleTurn = () => {
    if (turnScheduled) return;
    turnScheduled = true;
    setImmediate(nextTurn);
  };
  const busy = (reply: FastifyReply) => {
    reply.header('retry-after', String(RETRY_AFTER_S));
    return reply.status(503).send({ success: false, ok: false, error: BUSY_MESSAGE, message: BUSY_MESSAGE });
  };

  // Callback style: an async hook costs a promise and a microtask turn per request (issue 18). A shed
  // request is answered here and never calls `done`.
  const shed: onRequestHookHandler = (request, reply, done) => {
    if ((opts.maxInFlight > 0 && inFlight >= opts.maxInFlight) || lagging) return void busy(reply);
    if (maxPerTurn === 0) return admit(request, done);
    if (waiting.length === 0 && startedThisTurn < maxPerTurn) {
      startedThisTurn++;
      scheduleTurn();
      return admit(request, done);
    }
    if (waiting.length >= maxWaiting) return void busy(reply);
    waiting.push({ request, done });
    scheduleTurn();
  };
  // Released once, by whichever comes first: the answer sent, or the client gone before it.
  const onResponse: onResponseHookHandler = (request, _reply, done) => {
    if (counted.delete(request)) inFlight--;
    done();
  };
  const onRequestAbort: onRequestAbortHookHandler = (request, done) => {
    if (counted.delete(request)) inFlight--;
    done();
  };

  // The hooks go on the sheddable routes only, chosen once when each route is added: the routes that
  // are never shed (health, login, /api/me) and the web app's files run no shedding code at all, and
  // none reads `request.routeOptions` (a getter that builds an object on every read). With every rule
  // off, no route gets them. Registered after the auth plugin (app.ts), so that the shedding comes
  // first, before the session lookup.
  const enabled = opts.maxInFlight > 0 || opts.maxEventLoopDelayMs > 0 || maxPerTurn > 0;
  app.addHook('onRoute', (route) => {
    if (!enabled || !route.url.startsWith('/api/') || route.config?.shed === false) return;
    route.onRequest = [shed, ...asArray(route.onRequest)];
    route.onResponse = [...asArray(route.onResponse), onResponse];
    route.onRequestAbort = [...asArray(route.onRequestAbort), onRequestAbort];
  });
});
