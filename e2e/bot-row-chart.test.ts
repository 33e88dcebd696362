import { apiCall } from './helpers/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginInBrowser, registerViaApi } from './helpers/accounts';
import { hasChromium, openBrowser, startServer, type Browser, type RunningServer } from './harness';

const EMAIL = 'row-chart-e2e@example.com';
const PASSWORD = 'Sup3r-Secret-Passw0rd!';

describe.skipIf(!hasChromium)("a Grid Bot DCA row's price chart (issue 40 pt 3)", () => {
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

  it("draws the pair's last day with the bot's levels and axes, from one candles request", async () => {
    const { page } = browser;
    await registerViaApi(server.baseUrl, server.outboxDir, EMAIL, PASSWORD);
    token = await loginInBrowser(page, server.baseUrl, EMAIL, PASSWORD);
    await post('/api/dev/market/price', { exchange: 'binance', symbol: 'BTC/USDT', price: 100_000 });
    await post('/api/conectar_exchange', { exchange: 'binance', mode: 'paper', user_id: EMAIL });
    const started = await post('/api/start_bot_dca', {
      symbol: 'BTC/USDT',
      amount: '20',
      tp: '1',
      separacion: '1',
      os: '3',
      exchange: 'binance',
      user_id: EMAIL,
      apartado: 'Spot',
    });
    expect(started.success).toBe(true);

    const candleRequests: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/market/candles')) candleRequests.push(r.url());
    });
    await page.goto(`${server.baseUrl}/bot-dca`);
    const row = page.getByTestId('dca-bot-row').filter({ hasText: 'BTC/USDT' });
    const chart = row.getByRole('img', {
      name: "Price of BTC/USDT over the last 24 h with the bot's levels",
    });
    await chart.waitFor({ timeout: 20_000 });
    // The real server's answer: 24 hourly closes, a line through them, three ticks on each axis.
    await expect.poll(() => chart.locator('path').getAttribute('d')).toMatch(/^M[\d.,]+( L[\d.,]+){23}$/);
    await expect.poll(() => chart.getByTestId('row-chart-price-tick').count()).toBe(3);
    await expect.poll(() => chart.getByTestId('row-chart-time-tick').count()).toBe(3);
    // The anchor and the range's ends of a 1 % TP, 1 % separation, 3 OS ladder (service.ts rangeOf).
    const entry = Number(await chart.getByTestId('row-chart-level-entry').getAttribute('data-value'));
    const high = Number(await chart.getByTestId('row-chart-level-high').getAttribute('data-value'));
    const low = Number(await chart.getByTestId('row-chart-level-low').getAttribute('data-value'));
    expect(entry).toBeGreaterThan(0);
    expect(high).toBeCloseTo(entry * 1.01, 0);
    expect(low).toBeCloseTo(entry * 0.99 ** 3, 0);
    await expect
      .poll(() => chart.getByTestId('row-chart-level-high').textContent())
      .toMatch(/^TP [\d,]+\.\d{2}$/);
    expect(candleRequests).toHaveLength(1);
    expect(candleRequests[0]).toContain('timeframe=1h');
  });
});
