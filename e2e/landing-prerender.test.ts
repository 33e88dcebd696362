import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, openBrowser, startServer, type Browser, type RunningServer } from './harness';

/*
 * `/` is pre-rendered at build time (apps/web/vite.config.ts `prerenderLanding`, docs/web-shell.md
 * "First page size"): the server answers it with the landing's HTML, the browser paints it before the
 * script runs, and React hydrates it (main.tsx) without drawing it again. Other routes get the empty
 * index.html. A visitor who chose Spanish or has a cached user never sees the English, logged-out HTML.
 */

/** Holds every script of the build back until the returned function is called. */
async function holdScripts(page: Page): Promise<() => Promise<void>> {
  let release: () => void = () => {};
  const held = new Promise<void>((r) => (release = r));
  await page.route('**/assets/*.js', async (route) => {
    await held;
    await route.continue();
  });
  return async () => {
    release();
    await Promise.resolve();
  };
}

const isHidden = "document.documentElement.classList.contains('bytx-no-prerender')";

describe.skipIf(!hasChromium)('pre-rendered landing', () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    server = await startServer();
    browser = await openBrowser();
    page = browser.page;
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('the server answers / with the landing rendered into #root, other routes with the empty app', async () => {
    const home = await (await fetch(`${server.baseUrl}/`)).text();
    const root = /<div id="root">([\s\S]*)<\/div>\s*<\/body>/.exec(home)?.[1] ?? '';
    expect(root).toContain('data-testid="header-buy-token"');
    expect(root).toContain('Spot, futures and bots are still in development');
    expect(home).toContain('<script src="/landing-gate.js"></script>');
    const other = await (await fetch(`${server.baseUrl}/forum`)).text();
    expect(other).toContain('<div id="root"></div>');
    expect(other).not.toContain('landing-gate.js');
  });

  it('paints before any script runs and hydrates the same nodes without an error', async () => {
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    const release = await holdScripts(page);
    // 'commit': the held module script would keep DOMContentLoaded back.
    await page.goto(`${server.baseUrl}/`, { waitUntil: 'commit' });
    await page.getByText('Spot, futures and bots are still in development').waitFor({ state: 'visible' });
    const button = await page.getByTestId('header-buy-token').elementHandle();
    await release();
    // Hydrated: React adopted the pre-rendered nodes (a fresh render would have replaced them) and
    // their handlers work.
    await page.getByText('Spot, futures and bots are still in development').waitFor({ state: 'visible' });
    // The very node the HTML made, not a new one drawn over it, and React has adopted it (its fiber is
    // on the node): a click before that finds no handler yet (React attaches them when hydrateRoot runs,
    // which on a loaded machine came after the click, and the dialog never opened).
    await expect
      .poll(
        () =>
          button?.evaluate(
            (el: object & { isConnected: boolean }) =>
              el.isConnected && Object.keys(el).some((k) => k.startsWith('__reactFiber$')),
          ),
        { timeout: 30_000 },
      )
      .toBe(true);
    await page.getByTestId('header-buy-token').click();
    await page.getByRole('dialog').waitFor({ state: 'visible' });
    // A hydration mismatch or a boundary that suspended on the server is a console error (React #418/#419).
    expect(errors).toEqual([]);
    await page.unrouteAll({ behavior: 'wait' });
  }, 60_000);

  it('a visitor who chose Spanish gets the Spanish landing, never the English HTML', async () => {
    await page.goto(`${server.baseUrl}/forum`);
    await page.evaluate("localStorage.setItem('lang', 'es')");
    const release = await holdScripts(page);
    await page.goto(`${server.baseUrl}/`, { waitUntil: 'commit' });
    await page.locator('#root').waitFor({ state: 'attached' });
    await expect.poll(() => page.evaluate(isHidden)).toBe(true);
    await expect.poll(() => page.locator('#root').isVisible()).toBe(false);
    await release();
    await page.getByText('Spot, futuros y bots siguen en desarrollo').waitFor({ state: 'visible' });
    await expect.poll(() => page.evaluate(isHidden)).toBe(false);
    await expect
      .poll(() => page.getByText('Spot, futures and bots are still in development').count())
      .toBe(0);
    await page.evaluate("localStorage.removeItem('lang')");
    await page.unrouteAll({ behavior: 'wait' });
  }, 60_000);
});
