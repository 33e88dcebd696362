import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * How the server's log reads (issue 37 point 15, README "Logs"): pino's JSON lines for machines, or one
 * readable line per record for a person at a terminal. LOG_FORMAT decides; unset, a terminal on stdout
 * gets `pretty` and anything else (a file, a pipe, a container's log collector) `json`.
 */
export type LogFormat = 'json' | 'pretty';

export function resolveLogFormat(
  configured: LogFormat | undefined,
  isTty: boolean = process.stdout.isTTY,
): LogFormat {
  return configured ?? (isTty ? 'pretty' : 'json');
}

/** A request slower than this is logged at warn whatever its status (ms). */
export const SLOW_REQUEST_MS = 1_000;

/**
 * The level of a request's one log line: 5xx error (ours to fix), slow ones warn, 4xx info (a client's
 * mistake or a refusal: worth seeing, nothing to fix here), everything else debug (23,000 info lines in
 * 45 minutes of a fresh install were the routine 2xx of the app's own polling).
 */
export function requestLogLevel(status: number, ms: number): 'error' | 'warn' | 'info' | 'debug' {
  if (status >= 500) return 'error';
  if (ms > SLOW_REQUEST_MS) return 'warn';
  if (status >= 400) return 'info';
  return 'debug';
}

/**
 * Fastify's request lines, one per finished request at {@link requestLogLevel} (Fastify's own are two
 * at info: "incoming request" and "request completed"). The incoming line is kept at trace.
 */
export class AppLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.trace({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const ms = reply.elapsedTime;
    const level = error ? 'error' : requestLogLevel(reply.statusCode, ms);
    request.log[level](
      { req: request, res: reply, responseTime: Math.round(ms * 10) / 10, ...(error ? { err: error } : {}) },
      error ? 'request errored' : 'request completed',
    );
  }
}

/** A 20-byte chain address (a contract's, a wallet's): public by nature, never a secret. */
const CHAIN_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * The redaction's censor: a logged value under a secret's name is replaced, except a chain address
 * (the token contract's address is logged as `addresses.token` and read `[redacted]`; a session token,
 * an API key or a private key never has that form).
 */
export function censor(value: unknown): unknown {
  return typeof value === 'string' && CHAIN_ADDRESS.test(value) ? value : '[redacted]';
}

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
/** pino's own fields, shown in the line's head or left out. */
const HIDDEN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'v']);

function short(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value) ?? String(value);
}

/**
 * One pino JSON record as a readable line: `12:04:05.120 INFO  message key=value …`. A request line
 * reads `GET /api/x 404 3.1ms`; an error's stack follows on its own lines.
 */
export function prettyLine(json: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  // A record's own `time` field replaces pino's: then the line shows the clock now and that field.
  const ownTime = typeof rec.time === 'number' ? null : rec.time;
  const at = typeof rec.time === 'number' ? rec.time : Date.now();
  const time = new Date(at).toISOString().slice(11, 23);
  const level = (LEVELS[Number(rec.level)] ?? String(rec.level)).padEnd(5);
  const parts: string[] = [`${time} ${level}`, typeof rec.msg === 'string' ? rec.msg : ''];
  const req = rec.req as { method?: string; url?: string } | undefined;
  const res = rec.res as { statusCode?: number } | undefined;
  let stack = '';
  if (ownTime !== null && ownTime !== undefined) parts.push(`time=${short(ownTime)}`);
  for (const [k, v] of Object.entries(rec)) {
    if (HIDDEN.has(k) || v === undefined) continue;
    if (k === 'req' && req?.method) {
      parts.push(`${req.method} ${req.url ?? ''}`);
      continue;
    }
    if (k === 'res' && res?.statusCode !== undefined) {
      parts.push(String(res.statusCode));
      continue;
    }
    if (k === 'responseTime' && typeof v === 'number') {
      parts.push(`${v}ms`);
      continue;
    }
    if (k === 'err' && v && typeof v === 'object') {
      const e = v as { message?: string; stack?: string };
      parts.push(`err=${short(e.message ?? '')}`);
      if (e.stack) stack = `\n    ${e.stack.split('\n').join('\n    ')}`;
      continue;
    }
    parts.push(`${k}=${short(v)}`);
  }
  return `${parts.filter((p) => p !== '').join(' ')}${stack}\n`;
}

/** A pino destination writing {@link prettyLine}s to `out` (stdout by default). */
export function prettyStream(out: NodeJS.WritableStream = process.stdout): { write(line: string): void } {
  return {
    write(line: string) {
      out.write(prettyLine(line));
    },
  };
}
