// The global history page (/historial-global) in Chromium, on trades a real Grid Bot DCA made on a
// paper account: the simulated market is moved with the dev control so the bot buys down its ladder
// and sells every lot at its take profit (one history row per sale). Then: paging, the CSV of a page
// (the download captured), a row delete and Eliminar todo, each checked against the server.
import fs from 'node:fs';
import { apiCall } from './helpers/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginInBrowser, registerViaApi } from './helpers/accounts';
import { hasChromium, openBrowser, startServer, type Browser, type RunningServer } from './harness';

const EMAIL = 'history-e2e@example.com';
const PASSWORD = 'Sup3r-Secret-Passw0rd!';
const ENTRY = 100_000;
/** BTC bot: TP 0.5 %, separation 0.5 %, 14 ladder buys: the entry + 14 lots sell → 15 rows; ETH: 1 more. */
const OS = 14;
const ROWS = OS + 2;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON answers read loosely

describe.skipIf(!hasChromium)('global history page on a paper account', () => {
  let server: RunningServer;
  let browser: Browser;
  let token = '';

  const call = (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) =>
    apiCall(server.baseUrl, token, method, path, body) as Promise<Json>;
  const setPrice = (symbol: string, price: number) =>
    call('POST', '/api/dev/market/price', { exchange: 'binance', symbol, price });
  const history = (query = '') => call('GET', `/api/dca/all_history?user_id=${EMAIL}${query}`);
  const openLots = async (symbol: string) =>
    Number(
      (
        await call(
          'GET',
          `/api/dca/pending_orders?user_id=${EMAIL}&exchange=binance&symbol=${encodeURIComponent(symbol)}&per_page=50`,
        )
      ).total ?? 0,
    );
  const start = (symbol: string, os: number) =>
    call('POST', '/api/start_bot_dca', {
      symbol,
      amount: '10',
      tp: '0.5',
      separacion: '0.5',
      os: String(os),
      exchange: 'binance',
      user_id: EMAIL,
      apartado: 'Spot',
    });

  beforeAll(async () => {
    server = await startServer({ SIMULATOR_CONTROL: '1', BOT_RUNNER: '1' });
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('pages, exports a page as CSV, deletes a row and then everything', async () => {
    const { page } = browser;
    await registerViaApi(server.baseUrl, server.outboxDir, EMAIL, PASSWORD);
    token = await loginInBrowser(page, server.baseUrl, EMAIL, PASSWORD);
    await call('POST', '/api/conectar_exchange', { exchange: 'binance', mode: 'paper', user_id: EMAIL });

    // Seed: the BTC bot buys its entry and its 14 ladder levels on the way down, then sells all 15 lots.
    await setPrice('BTC/USDT', ENTRY);
    await setPrice('ETH/USDT', 3_000);
    await start('BTC/USDT', OS);
    await start('ETH/USDT', 1);
    await setPrice('BTC/USDT', Math.floor(ENTRY * 0.995 ** OS) - 50);
    await expect.poll(() => openLots('BTC/USDT'), { timeout: 60_000, interval: 500 }).toBe(OS + 1);
    await setPrice('BTC/USDT', ENTRY * 1.01);
    await setPrice('ETH/USDT', 3_030);
    await expect
      .poll(async () => (await history()).total as number, { timeout: 60_000, interval: 500 })
      .toBe(ROWS);

    await page.evaluate("localStorage.setItem('lang', 'es')");
    await page.goto(`${server.baseUrl}/historial-global`);
    await expect
      .poll(() => page.getByTestId('gh-title').textContent())
      .toBe('Historial global — Todos tus bots');
    await expect.poll(() => page.getByTestId('gh-user').textContent()).toContain(EMAIL);
    const rows = page.getByTestId('gh-row');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(12);
    await expect.poll(() => page.getByTestId('gh-page-info').textContent()).toBe('Página 1 de 2');
    const first = (await history('&page=1&per_page=12')).history as Json[];
    await expect.poll(() => rows.first().getAttribute('data-id')).toBe(String(first[0]!.id));

    // Tokens panel: both symbols with their tags and a USD value (USDT counts as 1).
    const btc = page.locator('[data-testid="gh-token"][data-symbol="BTC/USDT"]');
    await btc.waitFor();
    await expect.poll(() => btc.getByTestId('gh-token-base').textContent()).toBe('BTC');
    await expect.poll(() => btc.getByTestId('gh-token-quote').textContent()).toBe('USDT');
    // The page is in Spanish: its separators (shared/ui/numbers).
    await expect.poll(() => btc.getByTestId('gh-token-usd').textContent()).toMatch(/^≈ \d+,\d{2} USD$/);
    await expect.poll(() => page.locator('[data-testid="gh-token"][data-symbol="ETH/USDT"]').count()).toBe(1);
    await expect
      .poll(async () => Number(await page.getByTestId('gh-card-total-value').getAttribute('data-value')))
      .toBeGreaterThan(0);
    await page.getByTestId('gh-chart').waitFor({ timeout: 15_000 });

    // Paging: next shows the last 4 rows, first goes back.
    await page.getByTestId('gh-next').click();
    await expect.poll(() => page.getByTestId('gh-page-info').textContent()).toBe('Página 2 de 2');
    await expect.poll(() => rows.count()).toBe(ROWS - 12);
    await page.getByTestId('gh-first').click();
    await expect.poll(() => page.getByTestId('gh-page-info').textContent()).toBe('Página 1 de 2');
    await page.getByTestId('gh-last').click();
    await expect.poll(() => page.getByTestId('gh-page-info').textContent()).toBe('Página 2 de 2');
    await expect.poll(() => rows.count()).toBe(ROWS - 12);

    // CSV of the page shown: its name names the page, its rows are the page's, at full precision.
    const second = (await history('&page=2&per_page=12')).history as Json[];
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('gh-export').click(),
    ]);
    expect(download.suggestedFilename()).toBe('historial-global-pagina-2.csv');
    const csv = fs
      .readFileSync(await download.path(), 'utf8')
      .trim()
      .split('\r\n');
    expect(csv[0]).toBe('id,bot_id,symbol,exchange,qty,buy_price,sell_price,buy_time,sell_time,pnl_net');
    expect(csv.slice(1).map((l) => Number(l.split(',')[0]))).toEqual(second.map((r) => r.id as number));
    const cells = csv[1]!.split(',');
    expect(cells).toEqual([
      String(second[0]!.id),
      second[0]!.bot_id,
      second[0]!.symbol,
      'binance',
      String(second[0]!.qty),
      String(second[0]!.buy_price),
      String(second[0]!.sell_price),
      second[0]!.buy_time,
      second[0]!.sell_time,
      String(second[0]!.pnl_net),
    ]);

    // Delete one row (the spec's confirm): gone from the page and from the server.
    const victim = Number(await rows.first().getAttribute('data-id'));
    // The app's own dialog asks (no native confirm), in the interface's language.
    const question = page.getByTestId('confirm-dialog-text');
    await rows.first().getByTestId('gh-row-delete').click();
    await expect.poll(() => question.textContent()).toBe('¿Eliminar este registro de historial?');
    await page.getByTestId('confirm-dialog-ok').click();
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(ROWS - 13);
    const after = await history('&per_page=600');
    expect(after.total).toBe(ROWS - 1);
    expect((after.history as Json[]).map((r) => r.id as number)).not.toContain(victim);

    // Eliminar todo (its confirm): the page is empty and so is the server's history.
    await question.waitFor({ state: 'detached' });
    await page.getByTestId('gh-delete-all').click();
    await expect.poll(() => question.textContent()).toBe('Esto eliminará TODO tu historial. ¿Continuar?');
    await page.getByTestId('confirm-dialog-ok').click();
    await page.getByTestId('gh-empty').waitFor({ timeout: 15_000 });
    await expect.poll(() => page.getByTestId('gh-empty').textContent()).toBe('No hay registros.');
    await expect.poll(() => page.getByTestId('gh-page-info').textContent()).toBe('Página 1 de 1');
    expect((await history()).total).toBe(0);
    await expect.poll(() => page.getByTestId('gh-token').count()).toBe(0);
  }, 240_000);
});
