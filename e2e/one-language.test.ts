// One language at a time (issue 40 point 1): every route of the router (apps/web/src/app/router.tsx),
// logged in with a paper account whose bots fill the tables, in English and then in Spanish (switched
// with the header's language switch, as a visitor does): the visible text has no word of the other
// language (the word lists of the catalog test, apps/web/src/shared/i18n/languageWords.ts) and no
// catalog key shown raw (a text missing from the catalogs). One server, one browser, client-side visits.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { otherLanguageWords, type Lng } from '../apps/web/src/shared/i18n/languageWords';
import { hasChromium, openBrowser, startServer, type Browser, type RunningServer } from './harness';
import {
  ROUTES,
  SCREENS_EMAIL,
  seedAccount,
  storeLanguage,
  storeToken,
  trackRequests,
  visit,
} from './helpers/screens';

/** A catalog key shown instead of its text: `area.key` of one of the catalogs' areas (not in a URL). */
const RAW_KEY =
  /(?<![\w/@.:-])(?:shell|common|bots|trading|backtest|onchain|session|arbitrage|auth|chain|classic-dca|earnings|forum|futures|grid-dca|grid|history|landing|loans|movies|pending|settings|signal|spot|token|wallet)\.[A-Za-z][\w.-]*[A-Za-z]\b/g;

/** The visible text of the page (what `innerText` renders: hidden elements left out). */
const bodyText = (page: Page) => page.evaluate<string>('document.body.innerText');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A copy of the web build for this file's server: every e2e run builds apps/web/dist anew, and a run
 * beside this one (the shared working tree) would replace the chunks this page asks for later (the
 * Spanish catalogs are fetched at the switch) by chunks of other names. Copied again if the build
 * changed while it was copied, or if the copy's index.html names an asset it does not have.
 */
async function snapshotWebBuild(): Promise<string> {
  const dist = path.resolve(import.meta.dirname, '../apps/web/dist');
  for (let attempt = 0; attempt < 20; attempt++) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bytx-one-language-web-'));
    const before = fs.readdirSync(path.join(dist, 'assets')).sort().join();
    fs.cpSync(dist, dir, { recursive: true });
    const after = fs.readdirSync(path.join(dist, 'assets')).sort().join();
    const index = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
    const named = [...index.matchAll(/"\/(assets\/[^"]+)"/g)].map((m) => m[1]!);
    if (before === after && named.every((f) => fs.existsSync(path.join(dir, f)))) return dir;
    fs.rmSync(dir, { recursive: true, force: true });
    await sleep(500);
  }
  throw new Error('apps/web/dist kept changing: no consistent copy of the web build');
}

/**
 * Waits until the page has shown what it read: its chunk and the pending orders' splash gone and no
 * request for `quietMs` (at most `timeoutMs`; then the check reads what is there). Unlike the layout
 * test's wait, no h1 is needed: a page without one is checked as soon as it is quiet.
 */
async function settled(page: Page, inFlight: () => number, quietMs = 250, timeoutMs = 6_000) {
  const deadline = Date.now() + timeoutMs;
  let quietSince = 0;
  while (Date.now() < deadline) {
    const loading = await page.evaluate<boolean>(
      `!!document.querySelector('[data-testid="page-loading"], [data-testid="gp-splash"]')`,
    );
    if (!loading && inFlight() === 0) {
      quietSince ||= Date.now();
      if (Date.now() - quietSince >= quietMs) return;
    } else quietSince = 0;
    await sleep(50);
  }
}

describe.skipIf(!hasChromium)('one language at a time on every route', () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let token = '';
  let inFlight: () => number;
  let webDir = '';

  beforeAll(async () => {
    webDir = await snapshotWebBuild();
    server = await startServer({
      SIMULATOR_CONTROL: '1',
      BOT_RUNNER: '1',
      SUPPORT_EMAILS: SCREENS_EMAIL,
      WEB_DIST_DIR: webDir,
    });
    browser = await openBrowser();
    page = browser.page;
    page.setDefaultTimeout(15_000);
    inFlight = trackRequests(page);
    token = await seedAccount(server);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (webDir) fs.rmSync(webDir, { recursive: true, force: true });
  });

  /** Clicks the header's language switch; the document says the new language. */
  async function switchTo(label: 'EN' | 'ES') {
    await page.getByTestId('lang-switch').getByText(label, { exact: true }).click();
    await expect.poll(() => page.evaluate<string>('document.documentElement.lang')).toBe(label.toLowerCase());
  }

  /** Visits every route in the page's current language; one line per text of the other language. */
  async function walk(lng: Lng): Promise<string[]> {
    const problems: string[] = [];
    for (const route of ROUTES) {
      await visit(page, route.path);
      await settled(page, inFlight);
      const text = await bodyText(page);
      const landed = new URL(page.url()).pathname;
      const at = `${lng} ${route.path}${landed === route.path ? '' : ` (at ${landed})`}`;
      for (const line of text.split('\n')) {
        // A "quoted" literal is code the user copies (the signal bot's alert JSON), not a text to read.
        const words = otherLanguageWords(line.replace(/"[^"]*"/g, ' '), lng);
        if (words.length) problems.push(`${at}: ${words.join(', ')} in "${line.trim().slice(0, 140)}"`);
        for (const key of line.match(RAW_KEY) ?? []) problems.push(`${at}: raw catalog key ${key}`);
      }
    }
    return problems;
  }

  it('shows every route in English, then in Spanish, with no text of the other language', async () => {
    await page.goto(`${server.baseUrl}/`);
    await storeToken(page, token);
    await storeLanguage(page, 'en');
    await page.goto(`${server.baseUrl}/`);
    // The header's switch both ways on a page: the page's texts follow at once, either way.
    await visit(page, '/forum');
    const title = page.locator('main h1');
    await expect.poll(() => title.textContent()).toBe('Forum');
    await switchTo('ES');
    await expect.poll(() => title.textContent()).toBe('Foro');
    await switchTo('EN');
    await expect.poll(() => title.textContent()).toBe('Forum');
    const english = await walk('en');

    // The header's switch, as a visitor changes the language: the open page and the next ones follow.
    await visit(page, '/');
    await switchTo('ES');
    const spanish = await walk('es');

    expect([...english, ...spanish]).toEqual([]);
  }, 120_000);
});
