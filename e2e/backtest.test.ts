import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginInBrowser, registerViaApi } from './helpers/accounts';
import { apiCall } from './helpers/api';
import { hasChromium, openBrowser, startServer, type Browser, type RunningServer } from './harness';

const EMAIL = 'backtest-e2e@example.com';
const PASSWORD = 'Sup3r-Secret-Passw0rd!';

/**
 * A backtest from `/bot-dca` (issue 19 "Tests"): the form's settings over the last 7 days of the
 * simulated market's own history at 1m, the progress bar while it runs, then the summary, the equity
 * and price charts drawn (their canvases), the trades, and "Start this bot" starting the same bot.
 */
describe.skipIf(!hasChromium)('Backtest from /bot-dca on the simulated market', () => {
  let server: RunningServer;
  let browser: Browser;
  let token = '';

  const post = (path: string, body: unknown) => apiCall(server.baseUrl, token, 'POST', path, body);

  beforeAll(async () => {
    server = await startServer({ SIMULATOR_CONTROL: '1', BOT_RUNNER: '1' });
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('runs the last 7 days, shows the progress, the summary, the charts and the trades, then starts the bot', async () => {
    const { page } = browser;
    await registerViaApi(server.baseUrl, server.outboxDir, EMAIL, PASSWORD);
    token = await loginInBrowser(page, server.baseUrl, EMAIL, PASSWORD);
    await post('/api/dev/market/price', { exchange: 'binance', symbol: 'BTC/USDT', price: 100_000 });
    await post('/api/conectar_exchange', { exchange: 'binance', mode: 'paper', user_id: EMAIL });

    await page.goto(`${server.baseUrl}/bot-dca`);
    const exchange = page.getByTestId('dca-exchange');
    await expect
      .poll(async () => page.locator('[data-testid="dca-exchange"] option[value="binance"]').textContent(), {
        timeout: 15_000,
      })
      .toContain('✅ Connected');
    await exchange.selectOption('binance');
    const pair = page.getByTestId('dca-pair');
    await pair.click();
    await pair.pressSequentially('btc/u');
    const suggestion = page.getByTestId('dca-pair-suggestion').filter({ hasText: /^BTC\/USDT$/ });
    await suggestion.waitFor({ timeout: 15_000 });
    await suggestion.click();
    await page.getByTestId('dca-amount').fill('100');
    await page.getByTestId('dca-tp').fill('0.5');
    await page.getByTestId('dca-sep').fill('0.5');
    await page.getByTestId('dca-os').fill('3');

    await page.getByTestId('backtest-button').click();
    // The modal's root box has no size of its own: its content is what shows.
    await page.getByTestId('backtest-dialog').waitFor({ state: 'attached' });
    await page.getByTestId('backtest-run').waitFor();
    await expect.poll(() => page.getByTestId('backtest-period-7').getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => page.getByTestId('backtest-interval').inputValue()).toBe('1m');
    await page.getByTestId('backtest-run').click();
    // The bar shows from the click until the result (the page asks every 500 ms).
    await page.getByTestId('backtest-progress').waitFor({ timeout: 10_000 });
    await expect.poll(() => page.getByTestId('backtest-cancel').isVisible()).toBe(true);

    await page.getByTestId('backtest-result').waitFor({ timeout: 60_000 });
    await expect
      .poll(() => page.getByTestId('backtest-net-pnl').textContent())
      .toMatch(/^[+-]?\d+(\.\d+)? USDT$/);
    await expect.poll(() => page.getByTestId('backtest-return').textContent()).toMatch(/^[+-]?\d+\.\d{2} %$/);
    for (const id of [
      'max-drawdown',
      'fees',
      'closed-trades',
      'capital-peak',
      'time-in-market',
      'open-position',
      'buy-hold',
    ]) {
      await expect
        .poll(async () => (await page.getByTestId(`backtest-${id}`).textContent())?.length)
        .toBeGreaterThan(0);
    }
    // Both charts are drawn by lightweight-charts (its canvases), the price chart with the fills.
    const equity = page.getByTestId('backtest-equity-chart');
    await equity.waitFor({ timeout: 15_000 });
    await expect.poll(() => equity.locator('canvas').count()).toBeGreaterThan(0);
    await expect.poll(async () => Number(await equity.getAttribute('data-points'))).toBeGreaterThan(1);
    const price = page.getByTestId('backtest-price-chart');
    await expect.poll(() => price.locator('canvas').count()).toBeGreaterThan(0);
    await expect.poll(async () => Number(await price.getAttribute('data-candles'))).toBeGreaterThan(100);
    await expect.poll(async () => Number(await price.getAttribute('data-markers'))).toBeGreaterThan(0);
    // The closed trades, as many rows as the summary counts (up to a page).
    const closed = Number(await page.getByTestId('backtest-closed-trades').textContent());
    expect(closed).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('backtest-trade-row').count()).toBe(Math.min(closed, 20));
    await expect
      .poll(() => page.getByTestId('backtest-assumptions').locator('li').count())
      .toBeGreaterThan(0);

    // "Start this bot": the form's own start with the same settings.
    await page.getByTestId('backtest-start').click();
    await page.getByText('Bot started successfully').waitFor({ timeout: 20_000 });
    const row = page.getByTestId('dca-bot-row').filter({ hasText: 'BTC/USDT' });
    await row.waitFor({ timeout: 15_000 });
    await expect.poll(() => row.getByTestId('dca-bot-summary').textContent()).toContain('TP 0.5%');
  });
});
