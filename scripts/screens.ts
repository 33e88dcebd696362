/**
 * Screenshots of every screen at 1280 and 390 px wide, in English, into docs/screens/ (issue 40 "Done
 * when"), with the account and bots the accessibility test uses (e2e/helpers/screens.ts) so the tables
 * have rows. Run by hand after a web build:
 *
 *   npm run build -w @bytx/web && nice -n 19 npx tsx scripts/screens.ts
 *
 * One server on a free port and one Chromium (e2e/harness.ts), both ended by the script. JPEG at quality
 * 70, the whole page: <route>-<width>.jpg, listed in docs/screens/README.md (written here too).
 */
import fs from 'node:fs';
import path from 'node:path';
import { openBrowser, startServer } from '../e2e/harness';
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
} from '../e2e/helpers/screens';

const OUT = path.resolve(import.meta.dirname, '../docs/screens');
const WIDTHS = [1280, 390] as const;
/** Shown to a visitor who is not logged in (a logged-in one is sent home from them). */
const LOGGED_OUT = new Set(['/login', '/registro']);

async function main(): Promise<void> {
  const webDist = await privateWebDist();
  const server = await startServer({
    SIMULATOR_CONTROL: '1',
    BOT_RUNNER: '1',
    SUPPORT_EMAILS: SCREENS_EMAIL,
    WEB_DIST_DIR: webDist,
    SHED_MAX_QUEUE_MS: '0',
  });
  const browser = await openBrowser();
  const rows: string[] = [];
  try {
    const { page } = browser;
    const inFlight = trackRequests(page);
    const token = await seedAccount(server);
    fs.mkdirSync(OUT, { recursive: true });
    for (const f of fs.readdirSync(OUT)) if (f.endsWith('.jpg')) fs.rmSync(path.join(OUT, f));
    for (const loggedIn of [false, true]) {
      const routes = ROUTES.filter((r) => LOGGED_OUT.has(r.path) !== loggedIn);
      await page.goto(`${server.baseUrl}/`);
      await storeToken(page, loggedIn ? token : null);
      await storeLanguage(page, 'en');
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: width > 500 ? 900 : 844 });
        await page.goto(`${server.baseUrl}/`);
        for (const route of routes) {
          await visit(page, route.path);
          await waitForPage(page, inFlight, 400);
          const landed = new URL(page.url()).pathname;
          if (landed !== route.path) {
            console.log(`${route.path} sends this visitor to ${landed}: no screenshot`);
            continue;
          }
          // Charts draw after their data: a moment more.
          await new Promise((r) => setTimeout(r, 500));
          const file = `${route.name}-${width}.jpg`;
          await page.screenshot({ path: path.join(OUT, file), type: 'jpeg', quality: 70, fullPage: true });
          rows.push(
            `| \`${route.path}\` | ${width} px | ${loggedIn ? 'logged in' : 'logged out'} | [${file}](${file}) |`,
          );
          console.log(file);
        }
      }
    }
  } finally {
    await browser.close();
    await server.stop();
    fs.rmSync(server.dataDir, { recursive: true, force: true });
    fs.rmSync(webDist, { recursive: true, force: true });
  }
  rows.sort();
  fs.writeFileSync(
    path.join(OUT, 'README.md'),
    [
      '# Screens',
      '',
      'Every route of `apps/web/src/app/router.tsx` at 1280 and 390 px wide, in English, the whole page.',
      'Logged in as a paper account with a Grid Bot DCA (open lots and a sold one), a classic DCA, a running',
      'and a stopped grid and a signal bot (`e2e/helpers/screens.ts`); `/login` and `/registro` logged out',
      '(a logged-in visitor is sent home from them). Made by `scripts/screens.ts`:',
      '',
      '```sh',
      'npm run build -w @bytx/web && nice -n 19 npx tsx scripts/screens.ts',
      '```',
      '',
      'JPEG at quality 70 to keep the folder small. In a whole-page capture the fixed price bar (the footer)',
      'shows where the first screen ends, not at the bottom. The same routes, widths and both languages are checked',
      'for accessibility (axe-core) and overflow by `e2e/a11y-layout.test.ts`.',
      '',
      '| Route | Width | Visitor | File |',
      '| --- | --- | --- | --- |',
      ...rows,
      '',
    ].join('\n'),
  );
}

await main();
