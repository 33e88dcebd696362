import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestAbortHookHandler,
  onRequestHookHandler,
  onResponseHookHandler,
} from 'fastify';
import fp from 'fastify-plugin';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { API_HEADERS } from './security-headers';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * false: never shed (health, readiness, /api/me: what a person needs to see the server is there).
     * A lane: the route has its own small budget beside the shared queue (the login, see LOGIN_LANE).
     */
    shed?: boolean | ShedLane;
  }
}

/**
 * A route's own lane (issue 45 point 3): at most `maxInFlight` of its requests are worked on at once,
 * up to `maxQueued` more wait in arrival order, and the excess gets 503 + Retry-After at once. It never
 * waits behind the shared queue of the API, and a flood of it never takes more than its budget.
 */
export interface ShedLane {
  lane: string;
  maxInFlight: number;
  maxQueued: number;
}

/**
 * The login's lane: a person signing in is not queued behind a flood of reads, and a flood of logins
 * (each an argon2id check of ~7 MiB on the thread pool, whose default is 4 threads) runs at most 4
 * checks at once instead of taking every thread and the loop's turns from everything else.
 */
export const LOGIN_LANE: ShedLane = { lane: 'login', maxInFlight: 4, maxQueued: 64 };

export interface LoadSheddingOptions {
  /** API requests worked on at once; the next ones wait in arrival order for a free place (0: no limit). */
  maxInFlight: number;
  /**
   * A new request is refused (503) while the oldest waiting one has waited longer than this (ms; 0: no
   * such rule). It bounds the wait of those admitted, and the time to drain the queue once a flood stops.
   */
  maxQueueMs?: number;
  /** Requests waiting at once, above which new ones are refused (default 1024). */
  maxQueued?: number;
  /**
   * Sheddable API requests that start their work in one turn of the event loop (0: no limit). The
   * others wait, in arrival order, for the next turns; see "A fair share of the event loop" below.
   */
  maxPerTurn?: number;
  /**
   * Milliseconds of the event loop the sheddable requests started in one turn may take, counted as the
   * synchronous time of starting each (routing, hooks, the handler up to its first wait: for an answer
   * from memory, the whole answer); once spent, the others wait for the next turns (0: no limit). A
   * budget in time rather than in requests: a count that keeps the turns short for a 2 ms call throttles a
   * 0.1 ms one, whose turns are then mostly the reading of new requests (docs/limits.md).
   */
  maxTurnMs?: number;
  /** How often a summary of the refused requests is logged (ms; default 10 s). */
  summaryMs?: number;
  /**
   * Refuse at the socket (default true): while the queue refuses, a new API request is answered 503
   * by the HTTP server's own listener, before Fastify (see "The refusal at the socket" below).
   */
  refuseAtSocket?: boolean;
}

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

export const BUSY_MESSAGE = 'The server is busy right now. Please try again in a moment.';
/** Seconds a shed client is asked to wait: the queue drains within maxQueueMs once a flood stops. */
export const RETRY_AFTER_S = 1;
/** The 503's body, serialized once (the refusal is the cheapest answer the server gives). */
const BUSY_BODY = JSON.stringify({ success: false, ok: false, error: BUSY_MESSAGE, message: BUSY_MESSAGE });

export const SHED_DEFAULTS = { maxQueued: 1024, summaryMs: 10_000 } as const;

interface Waiting {
  request: FastifyRequest;
  done: HookHandlerDoneFunction;
  /** performance.now() at arrival. */
  at: number;
}

/** Whether the client of a waiting request is gone (it is then dropped, never started). */
const gone = (request: FastifyRequest) => request.raw.aborted || request.raw.socket?.destroyed === true;

/**
 * Admission control of the API (issue 45 point 3: serve up to capacity, refuse only the excess).
 *
 * At most `maxInFlight` sheddable API requests are worked on at once; the next ones wait in arrival
 * order and start as places free up, so the server keeps working at its capacity however many come.
 * Only the excess is refused, at once, with 503 and `Retry-After` before its body is read or any
 * database work starts: a request that arrives while the oldest waiting one has waited more than
 * `maxQueueMs` (the queue then holds more than the server gets through in that time), or while
 * `maxQueued` wait. Nothing is latched: a request is refused only for the queue as it is when it
 * arrives, so once a flood stops the queue drains (within about `maxQueueMs`) and the next request is
 * served. (Before issue 45 a mean event-loop delay over 500 ms refused every request for the next half
 * second, and a full in-flight count refused every arrival at once: keep-alive clients then spun on
 * 503s that took the event loop from the work, and the goodput fell to a fraction of the capacity.)
 *
 * Routes marked `config: { shed: false }` (health, readiness, the session check) never wait and are
 * never refused; a route with a lane (`config: { shed: LOGIN_LANE }`) waits only for its own lane. Static files and the web app are not counted. A refused request is not logged one
 * by one (a flood would write as many error lines as it sends requests): a summary line is logged at
 * warn every `summaryMs` while requests are refused.
 */
export const loadSheddingPlugin = fp(async (app: FastifyInstance, opts: LoadSheddingOptions) => {
  const limit = opts.maxInFlight > 0 ? opts.maxInFlight : Infinity;
  const maxQueueMs = opts.maxQueueMs ?? 0;
  const maxQueued = opts.maxQueued ?? SHED_DEFAULTS.maxQueued;
  // A fair share of the event loop. Keep-alive clients that send their next request as soon as the last
  // is answered (a dashboard's polls, a flood) all have a request ready at every turn of the loop, and
  // Node reads every ready socket in one turn: with 200 of them a turn runs 200 handlers before the
  // loop gets back to a new connection, so a person arriving (health, login) waits for all of them, and
  // more with every connection added. So the sheddable requests started in one turn are bounded, by
  // their synchronous time (`maxTurnMs`) and or their count (`maxPerTurn`); the others wait in arrival
  // order for the next turns (released from setImmediate, after the sockets were read), and exempt
  // routes never wait. The same work is done in shorter turns: a newcomer waits for one short turn
  // instead of one long one.
  const perTurn = (opts.maxPerTurn ?? 0) > 0 ? opts.maxPerTurn! : Infinity;
  const turnMs = (opts.maxTurnMs ?? 0) > 0 ? opts.maxTurnMs! : Infinity;
  const shared = perTurn !== Infinity || turnMs !== Infinity;

  let inFlight = 0;
  const counted = new WeakSet<FastifyRequest>();
  // The waiting requests: queue[head..] (a shifted prefix is cut off now and then).
  let queue: Waiting[] = [];
  let head = 0;
  const queued = () => queue.length - head;
  const shift = (): Waiting => {
    const w = queue[head]!;
    queue[head++] = undefined as unknown as Waiting;
    if (head > 1024 && head * 2 > queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
    return w;
  };
  let startedThisTurn = 0;
  /** Synchronous ms spent starting requests in this turn (only counted with a time budget). */
  let spentThisTurn = 0;
  let turnScheduled = false;
  let refused = 0;
  let dropped = 0;

  const start = (request: FastifyRequest, done: HookHandlerDoneFunction) => {
    inFlight++;
    counted.add(request);
    if (!shared) return done();
    startedThisTurn++;
    scheduleTurn();
    if (turnMs === Infinity) return done();
    const t0 = performance.now();
    done();
    spentThisTurn += performance.now() - t0;
  };
  /** Whether this turn still has room for a start (its count and its time). */
  const roomThisTurn = () => startedThisTurn < perTurn && spentThisTurn < turnMs;
  /** Starts waiting requests while there is room in this turn and a free place. */
  const pump = () => {
    while (queued() > 0 && inFlight < limit && roomThisTurn()) {
      const next = shift();
      if (gone(next.request)) {
        dropped++;
        continue;
      }
      start(next.request, next.done);
    }
    // Out of this turn's share: the next turn goes on. Out of places: a request's end calls again.
    if (queued() > 0 && inFlight < limit) scheduleTurn();
  };
  const nextTurn = () => {
    turnScheduled = false;
    startedThisTurn = 0;
    spentThisTurn = 0;
    pump();
    // Only while there is work (pump and start schedule the next one): an immediate scheduled at every
    // turn would keep the loop from ever waiting for I/O: a core spent spinning while the server is idle.
  };
  const scheduleTurn = () => {
    if (turnScheduled) return;
    turnScheduled = true;
    setImmediate(nextTurn);
  };

  // Refused requests are counted, not logged one by one (see above).
  const quiet: FastifyBaseLogger = app.log.child({}, { level: 'silent' });
  const busy = (request: FastifyRequest, reply: FastifyReply) => {
    refused++;
    request.log = quiet;
    return reply
      .status(503)
      .header('retry-after', String(RETRY_AFTER_S))
      .type('application/json; charset=utf-8')
      .send(BUSY_BODY);
  };
  const summary = setInterval(() => {
    if (refused === 0 && dropped === 0) return;
    app.log.warn(
      { refused, dropped, inFlight, queued: queued() },
      'load shedding: requests refused with 503 (the server was at capacity)',
    );
    refused = 0;
    dropped = 0;
  }, opts.summaryMs ?? SHED_DEFAULTS.summaryMs);
  summary.unref();
  app.addHook('onClose', async () => clearInterval(summary));

  // The lanes (ShedLane): a budget of their own per name, apart from the shared queue above.
  interface LaneState {
    opts: ShedLane;
    inFlight: number;
    waiting: { request: FastifyRequest; done: HookHandlerDoneFunction }[];
  }
  const lanes = new Map<string, LaneState>();
  const inLane = new WeakMap<FastifyRequest, LaneState>();
  const laneHook =
    (lane: LaneState): onRequestHookHandler =>
    (request, reply, done) => {
      if (lane.inFlight < lane.opts.maxInFlight) {
        lane.inFlight++;
        inLane.set(request, lane);
        return done();
      }
      if (lane.waiting.length >= lane.opts.maxQueued) return void busy(request, reply);
      lane.waiting.push({ request, done });
    };
  const laneRelease = (request: FastifyRequest) => {
    const lane = inLane.get(request);
    if (!lane) return;
    inLane.delete(request);
    lane.inFlight--;
    while (lane.waiting.length > 0 && lane.inFlight < lane.opts.maxInFlight) {
      const next = lane.waiting.shift()!;
      if (gone(next.request)) {
        dropped++;
        continue;
      }
      lane.inFlight++;
      inLane.set(next.request, lane);
      next.done();
    }
  };
  const laneOnResponse: onResponseHookHandler = (request, _reply, done) => {
    laneRelease(request);
    done();
  };
  const laneOnAbort: onRequestAbortHookHandler = (request, done) => {
    laneRelease(request);
    done();
  };

  // Callback style: an async hook costs a promise and a microtask turn per request (issue 18). A refused
  // or waiting request is not passed on here (`done` is called when it starts, or never).
  const shed: onRequestHookHandler = (request, reply, done) => {
    if (queued() === 0 && inFlight < limit && roomThisTurn()) return start(request, done);
    // The oldest waiting request whose client is gone says nothing about the wait: drop it first.
    while (queued() > 0 && gone(queue[head]!.request)) {
      shift();
      dropped++;
    }
    const now = performance.now();
    if (queued() >= maxQueued || (maxQueueMs > 0 && queued() > 0 && now - queue[head]!.at > maxQueueMs))
      return void busy(request, reply);
    queue.push({ request, done, at: now });
    if (inFlight < limit) scheduleTurn();
  };
  // Released once, by whichever comes first: the answer sent, or the client gone before it.
  const release = (request: FastifyRequest) => {
    if (!counted.delete(request)) return;
    inFlight--;
    if (queued() > 0) scheduleTurn();
  };
  const onResponse: onResponseHookHandler = (request, _reply, done) => {
    release(request);
    done();
  };
  const onRequestAbort: onRequestAbortHookHandler = (request, done) => {
    release(request);
    done();
  };

  // The hooks go on the sheddable routes only, chosen once when each route is added: the routes that
  // are never shed (health, login, /api/me) and the web app's files run no shedding code at all, and
  // none reads `request.routeOptions` (a getter that builds an object on every read). With every rule
  // off, no route gets them. Registered after the auth plugin (app.ts), so that the shedding comes
  // first, before the session lookup.
  const enabled = limit !== Infinity || shared;
  /** Paths of the routes that are never shed or have a lane of their own (the refusal at the socket passes them). */
  const exempt = new Set<string>();
  app.addHook('onRoute', (route) => {
    const shedConfig = route.config?.shed;
    if (typeof shedConfig === 'object') {
      // A lane applies whatever the shared rules are (its budget is its own).
      let lane = lanes.get(shedConfig.lane);
      if (!lane) lanes.set(shedConfig.lane, (lane = { opts: shedConfig, inFlight: 0, waiting: [] }));
      exempt.add(route.url);
      route.onRequest = [laneHook(lane), ...asArray(route.onRequest)];
      route.onResponse = [...asArray(route.onResponse), laneOnResponse];
      route.onRequestAbort = [...asArray(route.onRequestAbort), laneOnAbort];
      return;
    }
    if (shedConfig === false) exempt.add(route.url);
    if (!enabled || !route.url.startsWith('/api/') || shedConfig === false) return;
    route.onRequest = [shed, ...asArray(route.onRequest)];
    route.onResponse = [...asArray(route.onResponse), onResponse];
    route.onRequestAbort = [...asArray(route.onRequestAbort), onRequestAbort];
  });

  // The refusal at the socket. A refused request costs its HTTP parsing and its answer, and when the
  // call under load is itself cheap (an answer from memory, ~0.1 ms) that cost decides how much is
  // left for the work: refusing 4 requests for every one served takes as long as serving it. Through
  // Fastify a refusal also pays the request and reply objects, the router, the global hooks (security
  // headers) and the send path; here, while the queue refuses (its oldest waited over maxQueueMs, or
  // maxQueued wait), a new request to a sheddable path is answered by the server's own listener before
  // Fastify sees it: the same 503, the same headers and body. The paths of exempt and lane routes
  // (health, ready, login, /api/me: all without parameters) are passed on, and so is everything
  // while nothing waits. `app.inject` does not go through the server: there the hook refuses as before.
  const refusesNow = (): boolean => {
    while (queued() > 0 && gone(queue[head]!.request)) {
      shift();
      dropped++;
    }
    if (queued() === 0) return false;
    return queued() >= maxQueued || (maxQueueMs > 0 && performance.now() - queue[head]!.at > maxQueueMs);
  };
  const socketHeaders = {
    ...API_HEADERS,
    'retry-after': String(RETRY_AFTER_S),
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(BUSY_BODY)),
  };
  const refusedAtSocket = (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '/';
    if (!url.startsWith('/api/') || !refusesNow()) return false;
    const q = url.indexOf('?');
    if (exempt.has(q === -1 ? url : url.slice(0, q))) return false;
    refused++;
    // The body is not read (the answer does not depend on it); the socket stays usable.
    req.resume();
    res.writeHead(503, socketHeaders).end(BUSY_BODY);
    return true;
  };
  if (enabled && opts.refuseAtSocket !== false) {
    app.addHook('onReady', async () => {
      // The server's own listeners (Fastify's handler, or main.ts's early listener that hands over to
      // it) run after the refusal, in their order.
      const server = app.server;
      const listeners = server.listeners('request') as RequestListener[];
      server.removeAllListeners('request');
      server.on('request', (req: IncomingMessage, res: ServerResponse) => {
        if (refusedAtSocket(req, res)) return;
        for (const listener of listeners) listener.call(server, req, res);
      });
    });
  }

  /** What the shedding holds now (tests and the bench). */
  app.decorate('loadShedding', {
    state: () => ({ inFlight, queued: queued() }),
    lane: (name: string) => {
      const lane = lanes.get(name);
      return lane ? { inFlight: lane.inFlight, queued: lane.waiting.length } : null;
    },
  });
});

declare module 'fastify' {
  interface FastifyInstance {
    /** The load shedding's current counts (plugins/load-shedding.ts). */
    loadShedding?: {
      state(): { inFlight: number; queued: number };
      /** A lane's counts (ShedLane), null before a route of it was added. */
      lane(name: string): { inFlight: number; queued: number } | null;
    };
  }
}
