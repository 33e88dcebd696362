// Every route of the router (issue 40 points 4 and 6) at 1280 and 390 px, in English and Spanish,
// logged out (the open routes) and logged in with a paper account whose bots fill the tables: axe-core
// (the WCAG 2 A/AA rules, plus one h1 and the heading order) finds no serious or critical violation,
// and nothing overflows: the page does not scroll sideways, no box cuts its content off without a
// visible scrollbar, no text is cut to an ellipsis.
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, openBrowser, startServer, type Browser, type RunningServer } from './harness';
import {
  privateWebDist,
  ROUTES,
  SCREENS_EMAIL,
  seedAccount,
  storeLanguage,
  storeToken,
  trackRequests,
  visit,
  waitForPage,
} from './helpers/screens';

const AXE_SOURCE = fs.readFileSync(
  path.resolve(import.meta.dirname, '../node_modules/axe-core/axe.min.js'),
  'utf8',
);
const WIDTHS = [1280, 390] as const;
/** A second state of a route checked too: what this control shows (a tab, the closed bots' dialog). */
const SECOND_STATE: Record<string, string> = {
  '/grid-bot': 'grid-tab-history',
  '/bot-dca': 'dca-closed-btn',
  '/dashboard': 'dash-closed-btn',
};
const LANGS = ['en', 'es'] as const;
/** Reported whatever their impact: the issue names them (no h1 on 15 pages, heading order on 13). */
const ALWAYS = new Set(['page-has-heading-one', 'heading-order']);

interface AxeNode {
  target: string[];
}
interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: AxeNode[];
}

/*
 * The code run in the page is JavaScript text: this tier is type-checked without the DOM library
 * (tsconfig.json), as the other browser tests' `page.evaluate("...")` calls.
 */

/** axe-core on the whole document; the rules of WCAG 2.0/2.1 A and AA and the two heading rules. */
const AXE_RUN = `(async () => {
  const res = await window.axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    rules: { 'page-has-heading-one': { enabled: true }, 'heading-order': { enabled: true } },
    resultTypes: ['violations'],
  });
  return res.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    nodes: v.nodes.map((n) => ({ target: n.target.map(String) })),
  }));
})()`;

const axeViolations = (page: Page) => page.evaluate<AxeViolation[]>(AXE_RUN);

/**
 * What does not fit, measured in the page: the document wider than the viewport; a visible box that
 * cuts its content off (overflow hidden or clip) or cuts text to an ellipsis; a box that scrolls
 * sideways over a table without a visible scrollbar.
 */
const LAYOUT_CHECK = `(() => {
  const out = [];
  const name = (el) => {
    const id = el.getAttribute('data-testid');
    const cls = typeof el.className === 'string' ? el.className.split(' ')[0] : '';
    return el.tagName.toLowerCase() + (id ? '[data-testid=' + id + ']' : cls ? '.' + cls : '');
  };
  const where = (el) => {
    const parts = [];
    for (let e = el; e && parts.length < 3 && e !== document.body; e = e.parentElement) parts.unshift(name(e));
    return parts.join(' > ');
  };
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth + 1) {
    // The boxes past the right edge, to say which one pushes the page (in main: the ticker's items
    // past its edge are inside its own scroll box).
    const past = [...document.querySelectorAll('main *')]
      .filter((e) => e.getBoundingClientRect().right > root.clientWidth + 1)
      .slice(-3)
      .map(where);
    out.push('page is ' + root.scrollWidth + 'px wide in ' + root.clientWidth + 'px: ' + past.join(' | '));
  }
  for (const el of document.querySelectorAll('body *')) {
    if (!(el instanceof HTMLElement)) continue;
    // Mantine's ScrollArea bar: its thumb is wider than its box by design.
    if (el.closest('.mantine-ScrollArea-scrollbar')) continue;
    const over = el.scrollWidth - el.clientWidth;
    if (over <= 1 || el.clientWidth === 0 || el.clientHeight === 0) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden' || el.closest('[aria-hidden="true"]')) continue;
    const text = (el.textContent || '').trim().slice(0, 30);
    if (cs.overflowX === 'hidden' || cs.overflowX === 'clip') {
      const kind = cs.textOverflow === 'ellipsis' ? 'text cut to an ellipsis' : 'content cut off';
      out.push(kind + ' (' + over + 'px): ' + where(el) + ' "' + text + '"');
    } else if ((cs.overflowX === 'auto' || cs.overflowX === 'scroll') && el.querySelector('table')) {
      const border = parseFloat(cs.borderTopWidth) + parseFloat(cs.borderBottomWidth);
      const nativeBar = el.offsetHeight - el.clientHeight - border > 0;
      // Mantine's ScrollArea draws its own bar beside the viewport.
      const area = el.closest('.mantine-ScrollArea-root');
      const bar = area && area.querySelector('.mantine-ScrollArea-scrollbar[data-orientation="horizontal"]');
      const mantineBar = !!bar && getComputedStyle(bar).display !== 'none' && bar.offsetHeight > 0;
      if (!nativeBar && !mantineBar) {
        out.push('table scrolls sideways without a visible scrollbar (' + over + 'px): ' + where(el));
      }
    }
  }
  return out;
})()`;

const layoutProblems = (page: Page) => page.evaluate<string[]>(LAYOUT_CHECK);

describe.skipIf(!hasChromium)('accessibility and layout of every route', () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let token = '';
  let webDist = '';
  let inFlight: () => number;
  /** Uncaught errors of the page since the last route was checked. */
  const errors: string[] = [];

  beforeAll(async () => {
    webDist = await privateWebDist();
    server = await startServer({
      SIMULATOR_CONTROL: '1',
      BOT_RUNNER: '1',
      SUPPORT_EMAILS: SCREENS_EMAIL,
      WEB_DIST_DIR: webDist,
      // Not a test of the load shedding: a busy machine's 503s would show as pages without their data.
      SHED_MAX_QUEUE_MS: '0',
    });
    browser = await openBrowser();
    page = browser.page;
    page.setDefaultTimeout(15_000);
    inFlight = trackRequests(page);
    page.on('pageerror', (err) => errors.push(err.message));
    await page.addInitScript({ content: AXE_SOURCE });
    token = await seedAccount(server);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (webDist) fs.rmSync(webDist, { recursive: true, force: true });
  });

  /** Walks `routes` in both languages and widths; returns every problem, one line each. */
  async function walk(loggedIn: boolean): Promise<string[]> {
    const problems = new Map<string, Set<string>>();
    const add = (line: string, at: string) => {
      if (!problems.has(line)) problems.set(line, new Set());
      problems.get(line)!.add(at);
    };
    /** axe, the page's uncaught errors and the layout of what is on screen now. */
    const check = async (at: string) => {
      for (const e of errors.splice(0)) add(`page error: ${e}`, at);
      const t1 = Date.now();
      const violations = await axeViolations(page);
      if (process.env.A11Y_TIMES) console.log(`${at} axe ${Date.now() - t1} ms`);
      for (const v of violations) {
        if (v.impact !== 'serious' && v.impact !== 'critical' && !ALWAYS.has(v.id)) continue;
        for (const n of v.nodes) add(`axe ${v.id} (${v.impact}) ${n.target.join(' ')}`, at);
      }
      for (const p of await layoutProblems(page)) add(`layout ${p}`, at);
    };
    const routes = ROUTES.filter((r) => loggedIn || r.open);
    for (const lang of LANGS) {
      await page.goto(`${server.baseUrl}/`);
      await storeToken(page, loggedIn ? token : null);
      await storeLanguage(page, lang);
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: width > 500 ? 900 : 844 });
        await page.goto(`${server.baseUrl}/`);
        for (const route of routes) {
          const t0 = Date.now();
          await visit(page, route.path);
          await waitForPage(page, inFlight);
          // A route that sends this visitor elsewhere (/login, /peliculas-series) is checked where it lands.
          const landed = new URL(page.url()).pathname;
          const at = `${route.path}${landed === route.path ? '' : ` (at ${landed})`} ${width}px ${lang}`;
          if (process.env.A11Y_TIMES) console.log(`${at} ready after ${Date.now() - t0} ms`);
          await check(at);
          const control = SECOND_STATE[route.path];
          if (control && landed === route.path) {
            await page.getByTestId(control).click();
            await waitForPage(page, inFlight);
            await check(`${at} after ${control}`);
            // Closes the dialog (a tab stays: the next route replaces it).
            await page.keyboard.press('Escape');
          }
        }
      }
    }
    return [...problems].map(
      ([line, at]) =>
        `${line}\n    on ${[...at].slice(0, 4).join('; ')}${at.size > 4 ? ` (+${at.size - 4})` : ''}`,
    );
  }

  /** The whole list on the console (the assertion's diff is cut short), then the assertion. */
  const expectNone = (problems: string[]) => {
    if (problems.length > 0) console.log(`${problems.length} problems:\n${problems.join('\n')}`);
    expect(problems.join('\n')).toBe('');
  };

  it('logged out: the open routes', async () => {
    expectNone(await walk(false));
  }, 120_000);

  it('logged in with bots running: every route', async () => {
    expectNone(await walk(true));
  }, 240_000);
});
