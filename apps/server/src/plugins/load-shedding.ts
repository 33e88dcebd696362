import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
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
}

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

  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/api/') || request.routeOptions.config.shed === false) return;
    if ((opts.maxInFlight > 0 && inFlight >= opts.maxInFlight) || lagging) {
      reply.header('retry-after', String(RETRY_AFTER_S));
      return reply
        .status(503)
        .send({ success: false, ok: false, error: BUSY_MESSAGE, message: BUSY_MESSAGE });
    }
    inFlight++;
    counted.add(request);
    return undefined;
  });
  // Released once, by whichever comes first: the answer sent, or the client gone before it.
  const release = async (request: FastifyRequest) => {
    if (counted.delete(request)) inFlight--;
  };
  app.addHook('onResponse', release);
  app.addHook('onRequestAbort', release);
});
