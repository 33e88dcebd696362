import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginInBrowser, registerViaApi } from './helpers/accounts';
import { hasChromium, openBrowser, startServer, type Browser, type RunningServer } from './harness';

/**
 * Exchanges, wallet and ticker in the browser against the real server on the simulated market:
 * a paper Binance account is connected in Settings, the wallet shows it, the ticker moves.
 */
/** The page needs a moment to load and ask the server: wait up to 15 s for the expected state. */
const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000, interval: 200 });

describe.skipIf(!hasChromium)('exchanges, wallet and ticker in the browser', () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  const email = `e2e-exch${Date.now().toString(36)}@example.com`;
  const password = 'exchange-Password-42';

  beforeAll(async () => {
    server = await startServer();
    browser = await openBrowser();
    page = browser.page;
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (err) => console.error('[browser]', err.message));
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    await registerViaApi(server.baseUrl, server.outboxDir, email, password);
    await loginInBrowser(page, server.baseUrl, email, password);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('connects a paper Binance account in settings and the badge turns green', async () => {
    await page.goto(`${server.baseUrl}/settings`);
    const badge = page.getByTestId('exchange-badge');
    await poll(() => badge.textContent()).toBe('❌ Not connected');
    // The badge and the list come from two separate calls: wait for each to have answered.
    await page.getByTestId('exchange-not-connected').waitFor();
    await page.getByTestId('exchange-list-empty').waitFor();

    // Live keys left empty: the spec's message, in red, nothing sent.
    await page.getByTestId('exchange-connect').click();
    await poll(() => page.getByTestId('exchange-note').textContent()).toBe(
      'Please complete API Key and API Secret before connecting.',
    );

    await page.getByText('Paper trading (no keys)').click();
    await page.getByTestId('exchange-connect').click();
    await poll(() => badge.textContent()).toBe('✅ Connected');
    await expect.poll(() => badge.getAttribute('data-connected')).toBe('true');
    await expect.poll(() => page.getByTestId('exchange-not-connected').count()).toBe(0);
    const row = page.getByTestId('exchange-row-binance');
    await row.waitFor();
    await expect.poll(() => row.textContent()).toContain('Paper');

    // The server agrees.
    const token = String(await page.evaluate("localStorage.getItem('token')"));
    const res = await fetch(`${server.baseUrl}/api/estado_conexion`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user_id: email }),
    });
    const body = (await res.json()) as { conexiones: Record<string, boolean> };
    expect(body.conexiones.binance).toBe(true);
    expect(Object.keys(body.conexiones)).toHaveLength(20);
  });

  it('shows the paper balances in the wallet, highest first, and a generated address', async () => {
    await page.goto(`${server.baseUrl}/wallet`);
    await poll(() => page.getByTestId('wallet-balance-USDT').textContent()).toBe('10,000.0000');
    const rows = page.locator('[data-testid^="wallet-row-"]');
    // Zero balances hidden by default: the paper account holds USDT only; its total and its marker.
    await expect.poll(() => rows.count()).toBe(1);
    await poll(() => page.getByTestId('wallet-total-value').textContent()).toBe('≈ 10,000.00 USDT');
    await expect.poll(() => page.getByTestId('wallet-paper-badge').textContent()).toBe('Paper');
    await page.getByTestId('wallet-hide-zero').click();
    await expect.poll(() => rows.count()).toBe(26);
    await expect.poll(() => rows.first().getAttribute('data-symbol')).toBe('USDT');
    await expect.poll(() => page.getByTestId('wallet-balance-BTC').textContent()).toBe('0.0000');
    await expect.poll(() => page.getByTestId('coin-logo-BTC').count()).toBe(1);

    // Addresses: known for a paper account, marked simulated (PAPER-, which no wallet accepts) in front
    // of a valid-format address per chain.
    await poll(() => page.getByTestId('wallet-address-BTC').textContent()).toMatch(/^PAPER-bc1/);
    await poll(() => page.getByTestId('wallet-simulated-BTC').count()).toBe(1);
    await page.getByTestId('wallet-generate-ETH').click();
    await poll(() => page.getByTestId('wallet-address-ETH').textContent()).toMatch(
      /^PAPER-0x[0-9a-fA-F]{40}$/,
    );

    // Deposit copies the address and says for 2 s that it is simulated.
    await page.getByTestId('wallet-deposit-ETH').click();
    const copied = page.getByTestId('wallet-copied-ETH');
    await copied.waitFor();
    await expect
      .poll(() => copied.textContent())
      .toBe('Simulated address copied: it is not a real deposit address, never send funds to it.');
    const clip = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(clip).toBe(await page.getByTestId('wallet-address-ETH').textContent());
    await copied.waitFor({ state: 'detached', timeout: 4000 });

    // Search narrows the rows.
    await page.getByPlaceholder('Search crypto (ex. BTC)').fill('bt');
    await poll(() => rows.count()).toBe(1);
    await expect.poll(() => rows.first().getAttribute('data-symbol')).toBe('BTC');

    // Withdraw explains that keys are trade-only and links to the exchange.
    await page.getByTestId('wallet-withdraw-BTC').click();
    const dialog = page.getByTestId('wallet-withdraw-dialog');
    await dialog.waitFor();
    await expect.poll(() => dialog.textContent()).toContain('trade-only');
    await expect
      .poll(() => page.getByTestId('wallet-withdraw-link').getAttribute('href'))
      .toContain('binance.com');
  });

  it('shows the 16 ticker assets and a price moves within about 15 s', async () => {
    await page.goto(`${server.baseUrl}/`);
    const items = page.locator('[data-testid^="ticker-item-"]');
    await poll(() => items.count()).toBe(16);
    const prices = page.locator('[data-testid^="ticker-price-"]');
    await poll(async () => (await prices.allTextContents()).every((p) => p.startsWith('$'))).toBe(true);
    const first = await prices.allTextContents();
    await expect
      .poll(async () => (await prices.allTextContents()).some((p, i) => p !== first[i]), {
        timeout: 25_000,
        interval: 1000,
      })
      .toBe(true);
  });
});
