import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginInBrowser, registerViaApi } from './helpers/accounts';
import { apiCall } from './helpers/api';
import { hasChromium, openBrowser, startServer, type Browser, type RunningServer } from './harness';

const EMAIL = 'signal-e2e@example.com';
const PASSWORD = 'Sup3r-Secret-Passw0rd!';
const SYMBOL = 'ETH/USDT';

/**
 * The Signal bot from `/signalbot` on paper Binance (issue 15 "Tests"): create a bot, read its webhook URL
 * and secret from the page, post a buy signal to the webhook with `fetch` (as TradingView would), see it
 * executed in the log and the position move; the same signal id again is a duplicate that trades nothing.
 * The secret is shown once (issue 37 point 9): after "I saved it" the page cannot show it again; Rotate
 * shows a new one once, and the old one is refused.
 */
describe.skipIf(!hasChromium)('Signal bot from /signalbot on paper Binance', () => {
  let server: RunningServer;
  let browser: Browser;
  let token = '';

  const post = (path: string, body: unknown) => apiCall(server.baseUrl, token, 'POST', path, body);
  /**
   * The page's next refresh of the bots and the open log (SIGNAL_POLL_MS, 5 s) now, once the server has
   * what the step waits for: the page's timers are Playwright's clock (installed in beforeAll, flowing as
   * real time). Too early, it costs nothing but the wait for the refresh after.
   */
  const refreshNow = () => browser.page.clock.fastForward(5_000);
  const webhook = async (url: string, body: unknown) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    // A public address other than the one the browser uses: the URL shown must come from it (issue 37 #13).
    server = await startServer({
      SIMULATOR_CONTROL: '1',
      BOT_RUNNER: '1',
      PUBLIC_URL: 'https://bots.example.test',
    });
    browser = await openBrowser();
    await browser.page.clock.install();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('creates a bot, executes a webhook buy, shows it in the log and the position, and refuses a replay', async () => {
    const { page } = browser;
    await registerViaApi(server.baseUrl, server.outboxDir, EMAIL, PASSWORD);
    token = await loginInBrowser(page, server.baseUrl, EMAIL, PASSWORD);
    await post('/api/dev/market/price', { exchange: 'binance', symbol: SYMBOL, price: 3000 });
    await post('/api/conectar_exchange', { exchange: 'binance', mode: 'paper', user_id: EMAIL });

    await page.goto(`${server.baseUrl}/signalbot`);
    await page.getByTestId('signal-no-bots').waitFor({ timeout: 15_000 });
    const exchange = page.getByTestId('signal-exchange');
    await expect
      .poll(() => page.locator('[data-testid="signal-exchange"] option').allTextContents(), {
        timeout: 15_000,
      })
      .toEqual(['Select a connected exchange', 'Binance']);
    await exchange.selectOption('binance');
    await page.getByTestId('signal-symbol').fill(SYMBOL);
    await page.getByTestId('signal-amount').fill('50');
    await page.getByTestId('signal-max-position').fill('200');
    await page.getByTestId('signal-create-submit').click();
    await page.getByText('Signal bot created. Send signals to its webhook URL.').waitFor({ timeout: 30_000 });

    const card = page.getByTestId('signal-bot').first();
    await card.waitFor({ timeout: 15_000 });
    await expect.poll(() => card.getByTestId('signal-bot-symbol').textContent()).toBe(SYMBOL);
    const url = (await card.getByTestId('signal-webhook-url').textContent()) ?? '';
    expect(url).toMatch(/\/api\/signalbot\/webhook\/[0-9a-f-]{36}$/);
    // On PUBLIC_URL, not on the Host the browser sent (127.0.0.1:PORT).
    expect(url.startsWith('https://bots.example.test/api/signalbot/webhook/')).toBe(true);
    const secretEl = card.getByTestId('signal-secret');
    await expect.poll(() => secretEl.getAttribute('data-shown'), { timeout: 15_000 }).toBe('1');
    const secret = (await secretEl.textContent()) ?? '';
    expect(secret.length).toBeGreaterThanOrEqual(32);
    await expect
      .poll(() => card.getByTestId('signal-secret-once').textContent())
      .toBe('Copy this secret now: you will not see it again. Only its hash is stored.');
    // The TradingView alert message carries the bot's values.
    await expect
      .poll(
        async () => JSON.parse((await card.getByTestId('signal-template').textContent()) ?? '') as unknown,
      )
      .toEqual({
        secret,
        action: '{{strategy.order.action}}',
        symbol: SYMBOL,
        id: '{{timenow}}',
        time: '{{timenow}}',
      });
    await expect
      .poll(async () => Number(await card.getByTestId('signal-position-qty').getAttribute('data-value')))
      .toBe(0);

    // The webhook is the server's own address (the browser page and the test reach the same server).
    const target = `${server.baseUrl}${new URL(url).pathname}`;
    const first = await webhook(target, {
      secret,
      action: 'buy',
      symbol: SYMBOL,
      id: 'e2e-buy-1',
      time: new Date().toISOString(),
    });
    // 200 executed, or 202 accepted (recorded; the runner executes it right after).
    expect([200, 202]).toContain(first.status);
    expect(first.body.success).toBe(true);
    expect(first.body.duplicate).not.toBe(true);

    // The row's actions are in its menu.
    await card.getByTestId('signal-bot-actions').click();
    await page.getByTestId('signal-log-toggle').click();
    const executed = card.locator(
      '[data-testid="signal-log-row"][data-signal-id="e2e-buy-1"][data-status="executed"]',
    );
    await executed.waitFor({ timeout: 30_000 });
    // Executed: the server holds the position the card shows at its next refresh.
    await refreshNow();
    await expect.poll(() => executed.getByTestId('signal-log-status').textContent()).toBe('Executed');
    await expect
      .poll(() => executed.getByTestId('signal-log-orders').textContent())
      .toMatch(/^Buy [0-9.]+ @ [0-9.]+/);
    await expect
      .poll(async () => Number(await card.getByTestId('signal-position-qty').getAttribute('data-value')), {
        timeout: 20_000,
      })
      .toBeGreaterThan(0);
    const qty = Number(await card.getByTestId('signal-position-qty').getAttribute('data-value'));
    // 50 USDT at about 3000: about 0.0166 ETH.
    expect(qty).toBeGreaterThan(0.015);
    expect(qty).toBeLessThan(0.0175);

    // The same id again: a duplicate, nothing traded.
    const again = await webhook(target, { secret, action: 'buy', symbol: SYMBOL, id: 'e2e-buy-1' });
    expect(again.status).toBe(200);
    expect(again.body.duplicate).toBe(true);
    await refreshNow();
    const duplicate = card.locator('[data-testid="signal-log-row"][data-status="duplicate"]');
    await duplicate.waitFor({ timeout: 20_000 });
    await expect.poll(() => duplicate.getByTestId('signal-log-status').textContent()).toBe('Duplicate');
    // Kept: nothing must trade in these 2 s; then one more refresh so the card reads the position anew.
    await page.waitForTimeout(2_000);
    await refreshNow();
    await expect
      .poll(async () => Number(await card.getByTestId('signal-position-qty').getAttribute('data-value')))
      .toBe(qty);

    // A wrong secret is refused and logged as rejected with its reason.
    const wrong = await webhook(target, { secret: 'nope', action: 'buy', symbol: SYMBOL, id: 'e2e-bad' });
    expect(wrong.status).toBeGreaterThanOrEqual(400);
    expect(wrong.status).toBeLessThan(500);
    await refreshNow();
    const rejected = card.locator('[data-testid="signal-log-row"][data-status="rejected"]');
    await rejected.waitFor({ timeout: 20_000 });
    await expect
      .poll(() => rejected.getByTestId('signal-log-reason').textContent())
      .toContain('Wrong secret');

    // "I saved it": the page forgets the secret and nothing shows it again.
    await card.getByTestId('signal-secret-hide').click();
    await expect.poll(() => secretEl.getAttribute('data-shown')).toBe('0');
    await expect.poll(() => card.getByTestId('signal-template').textContent()).not.toContain(secret);
    await page.reload();
    await card.waitFor({ timeout: 15_000 });
    await expect.poll(() => card.getByTestId('signal-secret').getAttribute('data-shown')).toBe('0');
    // Rotate (the session signed in a moment ago: no password asked): a new secret, shown once.
    // The row's actions are in its menu.
    await card.getByTestId('signal-bot-actions').click();
    await page.getByTestId('signal-secret-rotate').click();
    await page.getByTestId('signal-rotate-confirm').click();
    await expect
      .poll(() => card.getByTestId('signal-secret').getAttribute('data-shown'), { timeout: 15_000 })
      .toBe('1');
    const rotated = (await card.getByTestId('signal-secret').textContent()) ?? '';
    expect(rotated).not.toBe(secret);
    expect((await webhook(target, { secret, action: 'close', symbol: SYMBOL })).status).toBe(401);
    const withNew = await webhook(target, {
      secret: rotated,
      action: 'buy',
      symbol: SYMBOL,
      id: 'e2e-buy-2',
    });
    expect(withNew.body.success).toBe(true);

    // Stop (sell the position, the default).
    // The row's actions are in its menu.
    await card.getByTestId('signal-bot-actions').click();
    await page.getByTestId('signal-bot-stop').click();
    await page.getByTestId('signal-stop-confirm').click();
    await page.getByText('Signal bot stopped.').waitFor({ timeout: 30_000 });
    await expect.poll(() => card.getAttribute('data-status'), { timeout: 30_000 }).toBe('stopped');
  }, 240_000);
});
