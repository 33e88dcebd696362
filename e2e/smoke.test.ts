import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, openBrowser, startServer, type Browser, type RunningServer } from './harness';

describe.skipIf(!hasChromium)('smoke: the built app is served', () => {
  let server: RunningServer;
  let browser: Browser;
  beforeAll(async () => {
    // An empty DATA_DIR, as `npm start` on a new machine (the other files start from the migrated snapshot).
    server = await startServer({}, undefined, { fresh: true });
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('serves the app on any non-API path and JSON 404 under /api', async () => {
    await browser.page.goto(`${server.baseUrl}/some/deep/path`);
    await browser.page.waitForURL(`${server.baseUrl}/`);
    expect(await browser.page.title()).toContain('BYTX');
    const res = await fetch(`${server.baseUrl}/api/unknown`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toMatch(/No such API route/);
  });
});
