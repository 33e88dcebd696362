import { apiCall } from './helpers/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginInBrowser, registerViaApi } from './helpers/accounts';
import { hasChromium, openBrowser, startServer, type Browser, type RunningServer } from './harness';

const EMAIL = 'dashboard-e2e@example.com';
const PASSWORD = 'Sup3r-Secret-Passw0rd!';
const ENTRY = 100_000;
/** The page's refresh of the bot list and of its figures (POLL_MS in DashboardPage.tsx), ms. */
const POLL_BOTS_MS = 5_000;
const POLL_FIGURES_MS = 10_000;

describe.skipIf(!hasChromium)('classic DCA bot from /dashboard on a paper account', () => {
  let server: RunningServer;
  let browser: Browser;
  let token = '';

  const post = (path: string, body: unknown) => apiCall(server.baseUrl, token, 'POST', path, body);
  const setPrice = (price: number) =>
    post('/api/dev/market/price', { exchange: 'binance', symbol: 'BTC/USDT', price });
  /** The average entry the server has for the bot (what the page's 10 s refresh will read). */
  const serverDca = async () => {
    const { dcas } = (await post('/api/dcas_actuales', {
      user_id: EMAIL,
      bots: [{ exchange: 'binance', symbol: 'BTC/USDT' }],
    })) as { dcas: { dca: number | null }[] };
    return dcas[0]?.dca ?? NaN;
  };
  const activeBots = async () =>
    ((await apiCall(server.baseUrl, token, 'GET', `/api/bots_activos?user_id=${EMAIL}`)).bots as unknown[])
      .length;

  beforeAll(async () => {
    server = await startServer({ SIMULATOR_CONTROL: '1', BOT_RUNNER: '1' });
    browser = await openBrowser();
    // The page's timers are the browser clock's (flowing as real time): once the server has done what a
    // step waits for, the test brings the page's next refresh (5 s, 10 s) forward instead of waiting for it.
    await browser.page.clock.install();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('starts a bot, averages down through the first safety order, sells at the take profit and lists the closed bot', async () => {
    const { page } = browser;
    await registerViaApi(server.baseUrl, server.outboxDir, EMAIL, PASSWORD);
    token = await loginInBrowser(page, server.baseUrl, EMAIL, PASSWORD);
    await setPrice(ENTRY);
    await post('/api/conectar_exchange', { exchange: 'binance', mode: 'paper', user_id: EMAIL });

    await page.goto(`${server.baseUrl}/dashboard`);
    const exchange = page.getByTestId('dash-exchange');
    await exchange.waitFor();
    await expect
      .poll(async () => page.locator('[data-testid="dash-exchange"] option[value="binance"]').textContent(), {
        timeout: 15_000,
      })
      .toContain('✅ Connected');
    await exchange.selectOption('binance');
    await expect.poll(() => page.getByTestId('dash-exchange-badge').textContent()).toBe('Connected');

    const pair = page.getByTestId('dash-pair');
    await pair.click();
    await pair.pressSequentially('btc/u');
    await expect.poll(() => pair.inputValue()).toBe('BTC/U');
    const suggestion = page.getByTestId('dash-pair-suggestion').filter({ hasText: /^BTC\/USDT$/ });
    await suggestion.waitFor({ timeout: 15_000 });
    await expect.poll(() => page.getByTestId('dash-pair-suggestion').count()).toBeLessThanOrEqual(10);
    await suggestion.click();
    await expect.poll(() => pair.inputValue()).toBe('BTC/USDT');

    await page.getByTestId('dash-amount').fill('100');
    await page.getByTestId('dash-tp').fill('1');
    await page.getByTestId('dash-sep').fill('1');
    await page.getByTestId('dash-os').fill('2');
    // Trend rule off: the first buy does not wait for 70 one-minute candles. R stays off.
    const trend = page.getByTestId('dash-form-trend');
    await expect.poll(() => trend.isChecked()).toBe(true);
    await trend.dispatchEvent('click');
    await expect.poll(() => trend.isChecked()).toBe(false);
    await expect.poll(() => page.getByTestId('dash-form-r').isChecked()).toBe(false);
    await page.getByTestId('dash-start').click();
    await page.getByText('Bot started successfully').waitFor({ timeout: 20_000 });

    const row = page.getByTestId('dash-bot-row').filter({ hasText: 'BTC/USDT' });
    await row.waitFor({ timeout: 15_000 });
    await expect
      .poll(() => row.getByTestId('dash-bot-summary').textContent())
      .toContain('binance · BTC/USDT · TP 1% · 100 USDT · OS 2 · Sep 1%');
    const dcaOf = async () => {
      const v = await row.getByTestId('dash-bot-dca').getAttribute('data-value');
      return v ? Number(v) : NaN;
    };
    // The base order fills at the entry: the average entry is the entry (plus the buy fee).
    await expect.poll(serverDca, { timeout: 30_000 }).toBeGreaterThanOrEqual(ENTRY * 0.999);
    await page.clock.fastForward(POLL_FIGURES_MS);
    await expect.poll(dcaOf, { timeout: 30_000 }).toBeGreaterThanOrEqual(ENTRY * 0.999);
    await expect.poll(() => dcaOf()).toBeLessThan(ENTRY * 1.01);

    // Down through the first safety level (entry × 0.99): the average entry drops below the entry.
    await setPrice(98_950);
    await expect.poll(serverDca, { timeout: 40_000 }).toBeLessThan(ENTRY);
    await page.clock.fastForward(POLL_FIGURES_MS);
    await expect.poll(dcaOf, { timeout: 40_000 }).toBeLessThan(ENTRY);
    const dca = await dcaOf();
    expect(dca).toBeGreaterThan(98_950);

    // Up above the take profit (dca × 1.01): the cycle sells; with R off the bot stops.
    await setPrice(Math.ceil(dca * 1.015));
    await expect.poll(activeBots, { timeout: 45_000 }).toBe(0);
    await page.clock.fastForward(POLL_BOTS_MS);
    await expect.poll(() => row.count(), { timeout: 45_000 }).toBe(0);

    await page.getByTestId('dash-closed-btn').click();
    const closed = page.getByTestId('dash-closed-row');
    await expect.poll(() => closed.count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => closed.first().textContent()).toContain('BTC/USDT');
    const pnl = Number(await closed.first().getByTestId('dash-closed-pnl').getAttribute('data-pnl'));
    expect(pnl).toBeGreaterThan(0);
  }, 240_000);
});
