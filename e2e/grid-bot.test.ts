import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginInBrowser, registerViaApi } from './helpers/accounts';
import { apiCall } from './helpers/api';
import { hasChromium, openBrowser, startServer, type Browser, type RunningServer } from './harness';

const EMAIL = 'grid-e2e@example.com';
const PASSWORD = 'Sup3r-Secret-Passw0rd!';
/** The page's refresh of the grids and of the selected grid's levels (GRID_POLL_MS), ms. */
const POLL_MS = 5_000;

/**
 * The Grid bot from `/grid-bot` on a paper account (issue 14 §3 "Tests"): start a grid, move the simulated
 * price across its levels (the dev control endpoint), see the round's PNL and the levels on the chart,
 * then stop it with 'Sell All to Market & Close' and find it in History.
 *
 * The range 99,000 – 101,000 at 0.5 % steps has 5 levels: 99,000, 99,495, 99,992.48, 100,492.44 and
 * 100,994.9. At 100,000 the level nearest the price (99,992.48) stays empty: 2 buys below, 2 sells above.
 */
describe.skipIf(!hasChromium)('Grid bot from /grid-bot on a paper account', () => {
  let server: RunningServer;
  let browser: Browser;
  let token = '';

  const post = (path: string, body: unknown) => apiCall(server.baseUrl, token, 'POST', path, body);
  const setPrice = (price: number) =>
    post('/api/dev/market/price', { exchange: 'binance', symbol: 'BTC/USDT', price });
  /** The user's one grid as the server has it: its PNL (the list) and its open orders (its detail). */
  const serverGrid = async () => {
    const { bots } = (await post('/api/gridbot/activos', { user_id: EMAIL })) as {
      bots: { id: string; pnl_quote: number }[];
    };
    const grid = bots[0]!;
    const { bot } = (await apiCall(server.baseUrl, token, 'GET', `/api/gridbot/${grid.id}`)) as {
      bot: { orders: { side: string }[] };
    };
    const count = (side: string) => bot.orders.filter((o) => o.side === side).length;
    return { pnl: grid.pnl_quote, buys: count('buy'), sells: count('sell') };
  };
  /** Once the server is there (`poll` passes), the page's next refresh now instead of at its 5 s timer. */
  const refreshWhen = async (poll: () => Promise<unknown>) => {
    await poll();
    await browser.page.clock.fastForward(POLL_MS);
  };

  beforeAll(async () => {
    server = await startServer({ SIMULATOR_CONTROL: '1', BOT_RUNNER: '1' });
    browser = await openBrowser();
    // The page's timers are the browser clock's (flowing as real time): a step brings the page's next
    // refresh forward once the server has done what it waits for (as e2e/dashboard.test.ts).
    await browser.page.clock.install();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('starts a grid, fills a buy and its sell, shows the PNL and the levels, and stops with Sell All', async () => {
    const { page } = browser;
    await registerViaApi(server.baseUrl, server.outboxDir, EMAIL, PASSWORD);
    token = await loginInBrowser(page, server.baseUrl, EMAIL, PASSWORD);
    await setPrice(100_000);
    await post('/api/conectar_exchange', { exchange: 'binance', mode: 'paper', user_id: EMAIL });

    await page.goto(`${server.baseUrl}/grid-bot`);
    await page.getByText('Real-Time Grid Data').waitFor({ timeout: 15_000 });
    await expect
      .poll(() => page.getByTestId('grid-chart-empty').textContent())
      .toBe('Select a pair to view chart');
    const exchangeOptions = page.locator('[data-testid="grid-exchange"] option');
    await expect.poll(() => exchangeOptions.count()).toBe(20);
    const options = await exchangeOptions.allTextContents();
    expect(options).not.toContain('Bybit_Testnet');

    await page.getByTestId('grid-exchange').selectOption('binance');
    await expect
      .poll(() => page.getByTestId('grid-exchange-badge').textContent(), { timeout: 15_000 })
      .toBe('Connected');

    // Picking the pair fills high +5 %, low −5 % and step 0.5 % from the price.
    const pair = page.getByTestId('grid-pair');
    await pair.click();
    await pair.pressSequentially('btc/u');
    await expect.poll(() => pair.inputValue()).toBe('BTC/U');
    const suggestion = page.getByTestId('grid-pair-suggestion').filter({ hasText: /^BTC\/USDT$/ });
    await suggestion.waitFor({ timeout: 15_000 });
    await suggestion.click();
    await expect.poll(() => page.getByTestId('grid-high').inputValue(), { timeout: 15_000 }).toBe('105000');
    await expect.poll(() => page.getByTestId('grid-low').inputValue()).toBe('95000');
    await expect.poll(() => page.getByTestId('grid-step').inputValue()).toBe('0.5');
    // The chart (lazy) shows the candles and the levels the settings would start.
    const canvas = page.getByTestId('grid-chart-canvas');
    await canvas.waitFor({ timeout: 20_000 });
    await expect
      .poll(async () => Number(await canvas.getAttribute('data-candles')), { timeout: 20_000 })
      .toBeGreaterThan(0);
    // The chart library draws on canvases it adds itself: polled, not read once (CI once read none).
    await expect
      .poll(() => page.locator('[data-testid="grid-chart"] canvas').count(), { timeout: 10_000 })
      .toBeGreaterThan(0);

    await page.getByTestId('grid-high').fill('101000');
    await page.getByTestId('grid-low').fill('99000');
    await page.getByTestId('grid-amount').fill('20');
    const legend = page.getByTestId('grid-chart-legend');
    await expect
      .poll(() => legend.textContent(), { timeout: 15_000 })
      .toBe('BTC/USDT · High 101000 · Low 99000 · 5 levels (2 buy, 2 sell)');
    // Every level plus the high and low lines.
    await expect.poll(() => canvas.getAttribute('data-lines')).toBe('7');

    await page.getByTestId('grid-start').click();
    await page.getByText('Grid bot started: BTC/USDT on Binance.').waitFor({ timeout: 30_000 });
    const row = page.getByTestId('grid-bot-row').filter({ hasText: 'BTC/USDT' });
    await row.waitFor({ timeout: 15_000 });
    await expect.poll(() => row.getByTestId('grid-bot-market').textContent()).toBe('Spot');
    const pnl = row.getByTestId('grid-bot-pnl');
    await expect.poll(async () => Number(await pnl.getAttribute('data-pnl'))).toBe(0);
    // The chart now follows the running grid: its levels and open orders.
    await expect
      .poll(() => legend.textContent(), { timeout: 20_000 })
      .toBe('BTC/USDT · High 101000 · Low 99000 · 5 levels (2 open buys, 2 open sells)');
    await expect.poll(() => canvas.getAttribute('data-lines')).toBe('7');

    // Down through the buy at 99,495: it fills and re-arms a sell one level up (99,992.48).
    await setPrice(99_400);
    await refreshWhen(() => expect.poll(async () => (await serverGrid()).sells, { timeout: 30_000 }).toBe(3));
    await expect.poll(() => legend.getAttribute('data-sells'), { timeout: 30_000 }).toBe('3');
    await expect.poll(() => legend.getAttribute('data-buys')).toBe('1');
    // Up through 99,992.48: that sell fills, one round closes with its profit (step − 2 × fee).
    await setPrice(100_100);
    await refreshWhen(() =>
      expect.poll(async () => (await serverGrid()).pnl, { timeout: 30_000 }).toBeGreaterThan(0),
    );
    await expect
      .poll(async () => Number(await pnl.getAttribute('data-pnl')), { timeout: 30_000 })
      .toBeGreaterThan(0);
    const round = Number(await pnl.getAttribute('data-pnl'));
    // 20 USDT × (0.5 % − 2 × 0.1 % taker/maker fee at most): between 0.05 and 0.1 USDT.
    expect(round).toBeGreaterThan(0.05);
    expect(round).toBeLessThan(0.1);
    await expect.poll(() => pnl.textContent()).toMatch(/^0\.\d{4} USDT$/);
    await expect
      .poll(() => page.getByTestId('grid-chart-pnl').textContent(), { timeout: 15_000 })
      .toMatch(/^PNL 0\.\d{4} USDT · Rounds: 1$/);

    // Stop with 'Sell All to Market & Close' (the dialog defaults to keep).
    // The row's actions are in its menu.
    await row.getByTestId('grid-bot-actions').click();
    await page.getByTestId('grid-bot-stop').click();
    const keep = page.getByRole('radio', { name: 'Keep Assets & Close' });
    await keep.waitFor();
    await expect.poll(() => keep.isChecked()).toBe(true);
    await page.getByRole('radio', { name: 'Sell All to Market & Close' }).check();
    await page.getByTestId('grid-stop-confirm').click();
    await page.getByText('Grid bot BTC/USDT stopped.').waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByTestId('grid-bot-row').count(), { timeout: 20_000 }).toBe(0);
    await expect.poll(() => page.getByTestId('grid-chart-legend').textContent()).toContain('5 levels');

    // History lists the closed grid with its round; its PnL also counts the market sell of the base held.
    await page.getByTestId('grid-tab-history').click();
    const hist = page.getByTestId('grid-history-row').filter({ hasText: 'BTC/USDT' });
    await hist.waitFor({ timeout: 15_000 });
    await expect.poll(() => hist.getByTestId('grid-history-rounds').textContent()).toBe('1');
    await expect
      .poll(() => hist.getByTestId('grid-history-pnl').textContent())
      .toMatch(/^-?\d+\.\d{4} USDT$/);

    // 'Sell All' sold the base the grid held: the closed grid holds nothing and lists no open order.
    const closed = (await post('/api/gridbot/historial', { user_id: EMAIL })) as {
      history: { id: string }[];
    };
    const detail = (await apiCall(server.baseUrl, token, 'GET', `/api/gridbot/${closed.history[0]!.id}`)) as {
      bot: { orders: unknown[]; status: string; stop_reason: string | null; base_held: number };
    };
    expect(detail.bot.orders).toEqual([]);
    expect(detail.bot.status).toBe('stopped');
    expect(detail.bot.stop_reason).toBe('user_close_market');
    expect(detail.bot.base_held).toBe(0);
  }, 240_000);
});
