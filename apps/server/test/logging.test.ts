import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, loggerOptions, type BuiltApp } from '../src/app';
import { prettyLine, requestLogLevel, resolveLogFormat } from '../src/lib/log-format';
import { openTestDatabase } from './db-snapshot';
import { testConfig } from './helpers';
import type { Database } from '../src/db/client';

/**
 * Logs a person can read (issue 37 point 15): a routine request is one line at debug, so the default
 * level (info) writes none; 4xx at info, slow (over 1 s) at warn, 5xx at error; a chain address under
 * a secret's name (the token contract's) is kept while passwords, secrets and tokens are redacted.
 */

interface Line {
  level: number;
  msg: string;
  req?: { url?: string };
  res?: { statusCode?: number };
  [k: string]: unknown;
}

let lines: Line[] = [];
let built: BuiltApp;
let database: Database;

beforeAll(async () => {
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Line);
      done();
    },
  });
  database = await openTestDatabase();
  built = await buildApp(testConfig(), { database, logger: loggerOptions('info', stream) });
  built.app.get('/api/test-log/boom', () => {
    throw new Error('an unexpected failure');
  });
  built.app.get('/api/test-log/slow', async () => {
    await new Promise((r) => setTimeout(r, 1_100));
    return { ok: true };
  });
  await built.app.ready();
});

afterAll(async () => {
  await built.app.close();
  await database.close();
});

const requestLines = (url: string) => lines.filter((l) => l.req?.url === url);
/** Lines are written on the response's end: give the stream a turn. */
const settle = () => new Promise((r) => setTimeout(r, 50));

describe('request logs', () => {
  it('a successful request at the default level (info) writes no line at info or above', async () => {
    lines = [];
    const res = await built.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
    await settle();
    expect(requestLines('/api/health')).toEqual([]);
    expect(lines.filter((l) => l.level >= 30 && JSON.stringify(l).includes('/api/health'))).toEqual([]);
  });

  it('a 500 writes an error line with its status', async () => {
    lines = [];
    const res = await built.app.inject({ method: 'GET', url: '/api/test-log/boom' });
    expect(res.statusCode).toBe(500);
    await settle();
    const [line] = requestLines('/api/test-log/boom').filter((l) => l.msg === 'request completed');
    expect(line).toMatchObject({ level: 50, res: { statusCode: 500 } });
  });

  it('a 4xx writes an info line, a slow request a warn line', async () => {
    lines = [];
    expect((await built.app.inject({ method: 'GET', url: '/api/no-such-route' })).statusCode).toBe(404);
    expect((await built.app.inject({ method: 'GET', url: '/api/test-log/slow' })).statusCode).toBe(200);
    await settle();
    expect(requestLines('/api/no-such-route')[0]).toMatchObject({ level: 30, res: { statusCode: 404 } });
    expect(requestLines('/api/test-log/slow')[0]).toMatchObject({ level: 40, res: { statusCode: 200 } });
  });

  it('levels by status and time', () => {
    expect(requestLogLevel(200, 5)).toBe('debug');
    expect(requestLogLevel(304, 5)).toBe('debug');
    expect(requestLogLevel(401, 5)).toBe('info');
    expect(requestLogLevel(200, 1_500)).toBe('warn');
    expect(requestLogLevel(503, 1_500)).toBe('error');
  });
});

describe('redaction', () => {
  it('keeps the token contract address and hides passwords, secrets and tokens', async () => {
    lines = [];
    const address = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
    built.app.log.info({ addresses: { token: address, sale: address } }, 'contracts deployed');
    built.app.log.info(
      { body: { password: 'hunter2-secret-pw', secret: 'whsec-abcdef', token: 'sess-0123456789abcdef' } },
      'a body',
    );
    await settle();
    const deployed = lines.find((l) => l.msg === 'contracts deployed');
    expect(deployed?.addresses).toEqual({ token: address, sale: address });
    const body = JSON.stringify(lines.find((l) => l.msg === 'a body'));
    expect(body).not.toContain('hunter2-secret-pw');
    expect(body).not.toContain('whsec-abcdef');
    expect(body).not.toContain('sess-0123456789abcdef');
    expect(body).toContain('[redacted]');
  });
});

describe('formats', () => {
  it('pretty on a terminal, json elsewhere, LOG_FORMAT first', () => {
    expect(resolveLogFormat(undefined, true)).toBe('pretty');
    expect(resolveLogFormat(undefined, false)).toBe('json');
    expect(resolveLogFormat('json', true)).toBe('json');
    expect(resolveLogFormat('pretty', false)).toBe('pretty');
  });

  it('a pretty line is one readable line', () => {
    const json = JSON.stringify({
      level: 50,
      time: Date.UTC(2026, 0, 2, 12, 4, 5, 120),
      pid: 1,
      hostname: 'h',
      reqId: 'req-1',
      req: { method: 'GET', url: '/api/x' },
      res: { statusCode: 500 },
      responseTime: 3.1,
      msg: 'request completed',
    });
    expect(prettyLine(json)).toBe('12:04:05.120 ERROR request completed reqId=req-1 GET /api/x 500 3.1ms\n');
    expect(prettyLine('not json')).toBe('not json\n');
    // A record's own `time` (the simulator's) is shown as a field, the line keeps a clock.
    const own = prettyLine(JSON.stringify({ level: 30, time: '2026-01-02T00:00:00.000Z', msg: 'ready' }));
    expect(own).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}ready time=2026-01-02T00:00:00.000Z\n$/);
  });
});
