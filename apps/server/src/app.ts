import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Config } from './config';
import type { AppContext } from './context';
import { createHttpServer } from './early-server';
import { openDatabase, type Database } from './db/client';
import { MaintenanceJob } from './db/maintenance';
import { AppLogController, censor, prettyStream, resolveLogFormat } from './lib/log-format';
import { SecretBox } from './lib/crypto';
import { markStart } from './lib/start-phases';
import { loadMasterKeys, resealStale } from './lib/master-key';
import { modules } from './modules/index';
import { authPlugin } from './plugins/auth';
import { registerErrorHandler } from './plugins/errors';
import { inputPlugin } from './plugins/input';
import { loadSheddingPlugin } from './plugins/load-shedding';
import { registerSecurityHeaders } from './plugins/security-headers';
import { APP_VERSION } from './version';

/**
 * Paths whose values never reach a log line (DESIGN.md principle 7). A chain address under one of these
 * names (the token contract's `addresses.token`) is public and kept: see `censor`.
 */
export const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.password',
  '*.apiSecret',
  '*.apiKey',
  '*.secret',
  '*.token',
  '*.tempToken',
  '*.code',
  '*.codigo',
  '*.nueva_password',
  '*.email_code',
  '*.twofa_code',
  '*.passphrase',
  '*.privateKey',
];

/** Query parameters whose values never reach a log line: they name a person or carry a secret. */
const REDACTED_QUERY = new Set(['user_id', 'user', 'email', 'token']);

/** The request URL as logged: values of REDACTED_QUERY parameters replaced. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const parts = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq < 0 ? pair : pair.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // A malformed escape is logged as sent, but its value still hidden below if the name matches.
      }
      return REDACTED_QUERY.has(name.toLowerCase()) ? `${rawName}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}

/** pino options of the app (tests pass a level and a stream to read the lines). */
export function loggerOptions(level: string, stream?: NodeJS.WritableStream | { write(line: string): void }) {
  return {
    level,
    redact: { paths: REDACT, censor },
    serializers: {
      req: (req: { method: string; url: string; hostname?: string; ip?: string }) => ({
        method: req.method,
        url: redactUrl(req.url),
        hostname: req.hostname,
        remoteAddress: req.ip,
      }),
    },
    ...(stream ? { stream } : {}),
  };
}

export interface BuildAppOptions {
  /** Reuse an open database (tests that restart the app on the same data). */
  database?: Database;
  /** Pino options override (tests pass `false` or a stream). */
  logger?: boolean | Record<string, unknown>;
  /** The HTTP server to serve on, given the app's handler (main.ts: its early listener). */
  serverFactory?: (handler: http.RequestListener) => http.Server;
}

export interface BuiltApp {
  app: FastifyInstance;
  ctx: AppContext;
}

export async function buildApp(config: Config, opts: BuildAppOptions = {}): Promise<BuiltApp> {
  const app = Fastify({
    logger:
      opts.logger ??
      loggerOptions(
        config.LOG_LEVEL,
        resolveLogFormat(config.LOG_FORMAT) === 'pretty' ? prettyStream() : undefined,
      ),
    // One line per request, at a level by status and time (lib/log-format.ts), not two at info.
    logController: new AppLogController(),
    trustProxy: config.TRUST_PROXY,
    // Slow or half-sent requests cannot hold a connection (docs/limits.md, early-server.ts). main.ts
    // passes the server it already listens on (the early listener), which hands over to this app's
    // handler once it is ready.
    serverFactory: (handler) => opts.serverFactory?.(handler) ?? createHttpServer(config, handler),
    connectionTimeout: config.HTTP_IDLE_TIMEOUT_MS,
    keepAliveTimeout: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
    bodyLimit: 256 * 1024,
    // The spec's clients send user_id in query strings; keep arrays out of it.
    routerOptions: { maxParamLength: 200 },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);

  // MASTER_KEY and/or the key file outside DATA_DIR (an old DATA_DIR/master.key is moved out first);
  // before the database opens, so a key problem stops the start before anything is created.
  const masterKeys = loadMasterKeys(config);
  const database =
    opts.database ?? (await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir }));
  if (!opts.database) app.addHook('onClose', async () => database.close());

  const secretBox = new SecretBox(masterKeys.keys);
  if (masterKeys.legacy || masterKeys.created) {
    app.log.warn(
      { file: config.masterKeyFile, legacy: masterKeys.legacy },
      'master key file: back it up apart from DATA_DIR',
    );
  }
  // v1 values (before issue 37) and values of an interrupted rotation are re-sealed under the current key.
  const sealed = await resealStale(database.db, secretBox, { skipUnreadable: true });
  if (sealed.resealed > 0)
    app.log.info({ resealed: sealed.resealed }, 'sealed secrets rewritten under the current master key');
  if (sealed.unreadable.length > 0)
    app.log.error({ values: sealed.unreadable }, 'sealed secrets no loaded master key opens');
  markStart('secrets');
  const ctx: AppContext = {
    config,
    database,
    db: database.db,
    secretBox,
    log: app.log,
    services: {},
    hooks: { beforeUserDelete: [], beforeConnectionChange: [], afterKeyCheck: [] },
  };

  registerSecurityHeaders(app, {
    connectSrc: config.chain.rpcUrl ? [new URL(config.chain.rpcUrl).origin] : [],
  });
  // Limits are opt-in per route (`config: { rateLimit: {...} }`): login, code sends, 2FA, forum posts.
  await app.register(fastifyRateLimit, {
    global: false,
    errorResponseBuilder: (_req, context) => {
      const message = `Too many requests. Please try again in ${Math.ceil(context.ttl / 1000)} seconds.`;
      return { statusCode: 429, success: false, ok: false, error: message, message };
    },
  });

  await app.register(fastifySwagger, {
    openapi: {
      info: {
        title: 'BYTX trading-bot platform API',
        version: APP_VERSION,
        description: 'Generated from the zod schemas in packages/contract.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/docs', staticCSP: true });

  await app.register(inputPlugin);
  await app.register(authPlugin, { ctx });
  // After the auth plugin: both put hooks on each route as it is added, and the shedding's must run
  // first (a refused request costs no session lookup).
  await app.register(loadSheddingPlugin, {
    maxInFlight: config.SHED_MAX_IN_FLIGHT,
    maxQueueMs: config.SHED_MAX_QUEUE_MS,
    maxQueued: config.SHED_MAX_QUEUED,
    maxPerTurn: config.SHED_MAX_PER_TURN,
    maxTurnMs: config.SHED_MAX_TURN_MS,
    refuseAtSocket: config.SHED_REFUSE_AT_SOCKET,
  });
  for (const mod of modules) {
    await app.register(mod.plugin, { ctx });
  }
  markStart('plugins');
  // Retention of events and candles, and VACUUM + CHECKPOINT on PGlite, every 10 min (docs/database.md).
  const maintenance = new MaintenanceJob({
    database,
    retentionDays: config.RETENTION_DAYS,
    holder: `${process.pid}:${Math.random().toString(36).slice(2, 8)}`,
    log: app.log,
  });
  maintenance.start();
  app.addHook('onClose', () => maintenance.close());

  const indexHtml = path.join(config.webDistDir, 'index.html');
  const hasWeb = fs.existsSync(indexHtml);
  // `/` pre-rendered at build time (apps/web/vite.config.ts `prerenderLanding`): it paints before its script.
  const hasLanding = hasWeb && fs.existsSync(path.join(config.webDistDir, 'landing.html'));
  if (hasWeb) {
    // preCompressed: the build writes .br and .gz beside each asset (apps/web/vite.config.ts).
    await app.register(fastifyStatic, {
      root: config.webDistDir,
      wildcard: false,
      index: false,
      preCompressed: true,
    });
  }
  app.setNotFoundHandler((request, reply) => {
    const url = request.url.split('?')[0] ?? '/';
    if (url === '/api' || url.startsWith('/api/')) {
      const message = `No such API route: ${request.method} ${url}`;
      return reply.status(404).send({ success: false, ok: false, error: message, message });
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return reply.status(404).send({ success: false, ok: false, error: 'Not found', message: 'Not found' });
    }
    if (!hasWeb) {
      return reply
        .status(503)
        .type('text/plain')
        .send('The web app is not built yet: run `npm run build` (npm start does it for you).');
    }
    if (url === '/' && hasLanding) {
      return reply.type('text/html').header('cache-control', 'no-cache').sendFile('landing.html');
    }
    // Every client-side route answers the app; react-router decides what to show.
    return reply.type('text/html').header('cache-control', 'no-cache').sendFile('index.html');
  });

  markStart('web assets');
  return { app, ctx };
}
