import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config';
import { makeTestApp, type TestApp } from './helpers';
import { API_HEADERS } from '../src/plugins/security-headers';

describe('platform basics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp();
  });
  afterAll(async () => t.close());

  it('answers /api/health with version and database kind', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, version: expect.stringMatching(/^\d+\.\d+\.\d+/), db: 'pglite' });
  });

  it('answers an unknown /api path with 404 JSON naming it', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/nope?x=1' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ success: false, error: 'No such API route: GET /api/nope' });
  });

  it('serves the OpenAPI document generated from the contract schemas', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json<{ openapi: string; paths: Record<string, unknown> }>();
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toContain('/api/health');
  });

  it('sends the security headers of a document on pages and files', async () => {
    // The web app's pages (built or not: a 503 page without a build). The Swagger UI at /api/docs
    // sends its own policy (@fastify/swagger-ui's staticCSP).
    for (const url of ['/', '/bot-dca']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.headers['content-security-policy'], url).toContain("frame-ancestors 'none'");
      expect(res.headers['content-security-policy'], url).toMatch(/connect-src 'self'(;|$)/);
      expect(res.headers['content-security-policy'], url).toContain("script-src 'self'");
      expect(res.headers['strict-transport-security'], url).toContain('max-age=31536000');
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['referrer-policy'], url).toBe('no-referrer');
    }
  });

  it("sends an API's security headers on every API answer, errors included", async () => {
    const answers = [
      await t.app.inject({ method: 'GET', url: '/api/health' }),
      await t.app.inject({ method: 'GET', url: '/api/bots_activos_dca' }), // 401
      await t.app.inject({ method: 'GET', url: '/api/no-such-route' }), // 404
    ];
    expect(answers.map((r) => r.statusCode)).toEqual([200, 401, 404]);
    for (const res of answers) {
      for (const [name, value] of Object.entries(API_HEADERS)) expect(res.headers[name], name).toBe(value);
      // The document policies are not sent where nothing is rendered.
      expect(res.headers['referrer-policy']).toBeUndefined();
      expect(res.headers['x-dns-prefetch-control']).toBeUndefined();
    }
    expect(API_HEADERS['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
  });

  it('lets the browser read a configured real chain: its origin joins connect-src', async () => {
    const address = (n: number) => `0x${String(n).repeat(40)}`;
    const rpc = await makeTestApp({
      CHAIN_RPC_URL: 'http://127.0.0.1:9/rpc/key',
      TOKEN_ADDRESS: address(1),
      SALE_ADDRESS: address(2),
      POOL_ADDRESS: address(3),
      PLANS_ADDRESS: address(4),
      USDT_ADDRESS: address(5),
      USDC_ADDRESS: address(6),
    });
    try {
      const res = await rpc.app.inject({ method: 'GET', url: '/' });
      expect(res.headers['content-security-policy']).toMatch(
        /connect-src 'self' http:\/\/127\.0\.0\.1:9(;|$)/,
      );
    } finally {
      await rpc.close();
    }
  });
});

describe('configuration', () => {
  it('names every bad variable', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'abc',
        MARKET_DATA: 'maybe',
        SUPPORT_EMAILS: 'not-an-email',
        DATABASE_URL: 'mysql://x',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/PORT/);
    expect(problems).toMatch(/MARKET_DATA/);
    expect(problems).toMatch(/SUPPORT_EMAILS/);
    expect(problems).toMatch(/DATABASE_URL/);
  });

  it('uses the documented defaults', () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(3000);
    expect(c.MARKET_DATA).toBe('simulated');
    expect(c.REGISTRATION_OPEN).toBe(true);
    expect(c.SIMULATOR_CONTROL).toBe(false);
    expect(c.mailOutboxDir).toBe(`${c.dataDir}/outbox`);
  });

  it('refuses the simulator control in production mode', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', SIMULATOR_CONTROL: '1' })).toThrow(/SIMULATOR_CONTROL/);
  });
});
