/**
 * What the accessibility and layout test (e2e/a11y-layout.test.ts) and the screenshot script
 * (scripts/screens.ts) share: a logged-in paper account with bots running so every table has rows, the
 * list of routes (apps/web/src/app/router.tsx), a client-side visit of a route and the wait until the
 * page has shown what it read.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { RunningServer } from '../harness';
import { loginViaApi, registerViaApi } from './accounts';
import { apiCall } from './api';

/** Listed in SUPPORT_EMAILS: spot, futures and the wallet show their real screens, not "in development". */
export const SCREENS_EMAIL = 'a11y-e2e@example.com';
const PASSWORD = 'A11y-e2e-Passw0rd!';

/** The transaction page of a hash the embedded chain does not know (the chain is off under NODE_ENV=test). */
const CHAIN_TX = `/chain/tx/0x${'ab'.repeat(32)}`;

/** Every route of the router, open ones first; `guarded` ones redirect a logged-out visitor. */
export const ROUTES: { path: string; name: string; open: boolean }[] = [
  { path: '/', name: 'home', open: true },
  { path: '/forum', name: 'forum', open: true },
  { path: '/login', name: 'login', open: true },
  { path: '/registro', name: 'registro', open: true },
  { path: CHAIN_TX, name: 'chain-tx', open: true },
  { path: '/spot', name: 'spot', open: true },
  { path: '/futuros', name: 'futuros', open: true },
  { path: '/wallet', name: 'wallet', open: false },
  { path: '/settings', name: 'settings', open: false },
  { path: '/earnings-pools', name: 'earnings-pools', open: false },
  { path: '/LoansLiquidity', name: 'loans', open: false },
  { path: '/bot-dca', name: 'bot-dca', open: false },
  { path: '/dashboard', name: 'dashboard', open: false },
  { path: '/grid-bot', name: 'grid-bot', open: false },
  { path: '/arbitraje', name: 'arbitraje', open: false },
  { path: '/signalbot', name: 'signalbot', open: false },
  { path: '/GlobalPendingOrders', name: 'pending-orders', open: false },
  { path: '/historial-global', name: 'historial-global', open: false },
  { path: '/peliculas-series', name: 'peliculas-series', open: false },
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const WEB_DIST = path.resolve(import.meta.dirname, '../../apps/web/dist');

/**
 * A copy of the built web app for this run's server (its WEB_DIST_DIR): a run of minutes must not see
 * apps/web/dist emptied by another run's `vite build` (a 404 page then had no title, lang or h1). Taken
 * once index.html and every asset it names are there; the caller removes the folder.
 */
export async function privateWebDist(timeoutMs = 120_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bytx-web-dist-'));
    try {
      fs.cpSync(WEB_DIST, dir, { recursive: true });
      const html = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
      const assets = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((m) => m[1]!);
      if (assets.length > 0 && assets.every((a) => fs.existsSync(path.join(dir, a)))) return dir;
    } catch {
      // Being rebuilt: try again.
    }
    fs.rmSync(dir, { recursive: true, force: true });
    if (Date.now() > deadline) throw new Error(`no complete web build in ${WEB_DIST}`);
    await sleep(1_000);
  }
}

/** Polls `fn` until it is true; throws `what` after `timeoutMs`. */
async function until(what: string, fn: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

/**
 * Registers the account, connects paper Binance and Bybit and starts what fills the tables: a Grid Bot
 * DCA with open lots and a sold one (pending orders, global history), a classic DCA, a running grid and a
 * stopped one (grid History), a signal bot. Returns the session token. The server needs
 * SIMULATOR_CONTROL=1, BOT_RUNNER=1 and SUPPORT_EMAILS=SCREENS_EMAIL.
 */
export async function seedAccount(server: RunningServer): Promise<string> {
  await registerViaApi(server.baseUrl, server.outboxDir, SCREENS_EMAIL, PASSWORD);
  const token = await loginViaApi(server.baseUrl, SCREENS_EMAIL, PASSWORD);
  const call = (method: 'GET' | 'POST', path: string, body?: unknown) =>
    apiCall(server.baseUrl, token, method, path, body);
  const setPrice = (symbol: string, price: number) =>
    call('POST', '/api/dev/market/price', { exchange: 'binance', symbol, price });
  const openLots = async () =>
    Number(
      (await call('GET', `/api/dca/pending_orders?user_id=${SCREENS_EMAIL}&status=open&per_page=50`)).total ??
        0,
    );
  const sold = async () =>
    Number((await call('GET', `/api/dca/all_history?user_id=${SCREENS_EMAIL}`)).total ?? 0);

  await setPrice('BTC/USDT', 100_000);
  await setPrice('ETH/USDT', 3_000);
  for (const exchange of ['binance', 'bybit']) {
    await call('POST', '/api/conectar_exchange', { exchange, mode: 'paper', user_id: SCREENS_EMAIL });
  }
  // Grid Bot DCA: the entry, one ladder buy at 99,000 sold at its take profit, the entry still open.
  await call('POST', '/api/start_bot_dca', {
    symbol: 'BTC/USDT',
    amount: '20',
    tp: '1',
    separacion: '1',
    os: '3',
    exchange: 'binance',
    user_id: SCREENS_EMAIL,
    apartado: 'Spot',
  });
  await until('the Grid Bot DCA entry', async () => (await openLots()) >= 1);
  await setPrice('BTC/USDT', 98_500);
  await until('the ladder buy', async () => (await openLots()) >= 2);
  await setPrice('BTC/USDT', 100_100);
  await until('a sold lot', async () => (await sold()) >= 1);

  await call('POST', '/api/start_bot', {
    symbol: 'ETH/USDT',
    amount: 100,
    tp: 1,
    separacion: 1,
    os: 2,
    exchange: 'binance',
    user_id: SCREENS_EMAIL,
    r: false,
    trend_filter: false,
    apartado: 'Spot',
  });
  const grid = (pair: string, price: number) =>
    call('POST', '/api/gridbot/start', {
      user: SCREENS_EMAIL,
      exchange: 'binance',
      pair,
      marketType: 'spot',
      highPrice: price * 1.01,
      lowPrice: price * 0.99,
      amountPerLevel: 20,
      stepPercentage: 0.5,
      profitCurrency: 'quote',
      position: 'long',
      leverage: 1,
    });
  const stopped = await grid('ETH/USDT', 3_000);
  await call('POST', '/api/gridbot/detener', { grid_id: stopped.id, vender: true });
  await grid('BTC/USDT', 100_000);
  await call('POST', '/api/signalbot/bots', {
    exchange: 'binance',
    symbol: 'ETH/USDT',
    amount: 50,
    max_position: 200,
  });
  return token;
}

/** Puts the session token where the app keeps it (the page must be on the server's origin). */
export async function storeToken(page: Page, token: string | null): Promise<void> {
  // JavaScript text: the e2e tier is type-checked without the DOM library (tsconfig.json).
  const set = token
    ? `localStorage.setItem('token', ${JSON.stringify(token)})`
    : "localStorage.removeItem('token')";
  await page.evaluate(`${set}; localStorage.removeItem('user')`);
}

/** The interface language the app reads at its start (LanguageSwitch.tsx), for the next page load. */
export async function storeLanguage(page: Page, lang: 'en' | 'es'): Promise<void> {
  await page.evaluate(`localStorage.setItem('lang', '${lang}')`);
}

/** Requests in flight of a page, counted from its events (for `waitForPage`'s quiet moment). */
export function trackRequests(page: Page): () => number {
  const inFlight = new Set<unknown>();
  page.on('request', (r) => inFlight.add(r));
  const done = (r: unknown) => inFlight.delete(r);
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  // A long poll or stream never finishes: the navigation's own requests are what is waited for.
  page.on('framenavigated', () => inFlight.clear());
  return () => inFlight.size;
}

/**
 * Visits `path` the way a link in the app does (history.pushState and a popstate the router listens
 * to): no reload, the loaded chunks and catalogs are reused.
 */
export async function visit(page: Page, path: string): Promise<void> {
  await page.evaluate(
    `history.pushState(null, '', ${JSON.stringify(path)}); dispatchEvent(new PopStateEvent('popstate', { state: null }))`,
  );
}

/**
 * Waits until the page has shown what it read: its chunk loaded (no loading marker), a page title (the
 * h1), and no request for `quietMs`; at most `timeoutMs`, then it returns anyway (the checks that follow
 * say what is missing).
 */
export async function waitForPage(
  page: Page,
  inFlight: () => number,
  quietMs = 150,
  timeoutMs = 8_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let quietSince = 0;
  for (;;) {
    const ready = await page.evaluate<boolean>(
      `!document.querySelector('[data-testid="page-loading"], [data-testid="gp-splash"]') &&
        document.querySelector('main h1') !== null`,
    );
    const now = Date.now();
    if (ready && inFlight() === 0) {
      if (!quietSince) quietSince = now;
      if (now - quietSince >= quietMs) return;
    } else {
      quietSince = 0;
    }
    if (now > deadline) return;
    await sleep(50);
  }
}
