import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginInBrowser, registerViaApi } from './helpers/accounts';
import { apiCall } from './helpers/api';
import { hasChromium, openBrowser, startServer, type Browser, type RunningServer } from './harness';

const SUPPORT = 'support-e2e@example.com';
const PASSWORD = 'Sup3r-Secret-Passw0rd!';
const SWAP = 'BTC/USDT:USDT';
const PRICE = 60_000;
const LEVERAGE = 5;
const QTY = 0.001;

/** A displayed number in English (the house style groups thousands: "60,000.00"). */
const numOf = (text: string | null) => Number((text ?? '').trim().replace(/,/g, ''));
/** '12.34 USDT' → 12.34. */
const amountOf = (text: string | null) => numOf((text ?? '').trim().split(/\s+/)[0] ?? '');

interface Position {
  symbol: string;
  side: string;
  contracts: number;
  entry_price: number;
  liquidation_price: number | null;
  margin: number;
  leverage: number;
}

/**
 * The futures screen `/futuros` (issue 16) on paper Binance as a support account: set the leverage with
 * the dialog, open a Long at market with a small quantity, read the position panel (size, entry,
 * liquidation price, margin, unrealized PnL) against `GET /api/wallet/derivatives`, close it at market
 * through the confirmation: the position is gone.
 */
describe.skipIf(!hasChromium)('futures screen /futuros on paper Binance', () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let token = '';

  const call = (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) =>
    apiCall(server.baseUrl, token, method, path, body);
  const text = (testId: string) => page.getByTestId(testId).textContent();
  const positions = async () =>
    ((await call('GET', '/api/wallet/derivatives?exchange=binance')).positions as Position[]).filter(
      (p) => p.symbol === SWAP,
    );

  beforeAll(async () => {
    server = await startServer({ SUPPORT_EMAILS: SUPPORT, SIMULATOR_CONTROL: '1', BOT_RUNNER: '1' });
    browser = await openBrowser();
    page = browser.page;
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (err) => console.error('[browser]', err.message));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('sets the leverage, opens a Long at market, shows the position, closes it at market', async () => {
    await registerViaApi(server.baseUrl, server.outboxDir, SUPPORT, PASSWORD);
    token = await loginInBrowser(page, server.baseUrl, SUPPORT, PASSWORD);
    await call('POST', '/api/dev/market/price', { exchange: 'binance', symbol: SWAP, price: PRICE });
    await call('POST', '/api/conectar_exchange', { exchange: 'binance', mode: 'paper', user_id: SUPPORT });

    await page.goto(`${server.baseUrl}/futuros`);
    await page.locator('[data-testid="trade-screen"][data-market="swap"]').waitFor();
    await expect.poll(() => text('trade-symbol')).toBe(SWAP);
    await expect.poll(() => text('trade-side-buy')).toBe('Long');
    await expect.poll(() => text('trade-side-sell')).toBe('Short');
    await page.getByTestId('trade-order-reduce-only').waitFor();
    await page.getByTestId('futures-position-none').waitFor();
    await page.getByTestId('futures-funding-rate').waitFor();
    await expect.poll(() => text('futures-funding-countdown')).toMatch(/^\d{2}:\d{2}:\d{2}$/);

    // Leverage 1x → 5x with the dialog: the panel and the order form both show it, and it is stored.
    await expect.poll(() => text('futures-leverage-value')).toBe('1x');
    await page.getByTestId('futures-leverage-btn').click();
    const input = page.getByTestId('futures-leverage-input');
    await input.fill(String(LEVERAGE));
    await page.getByTestId('futures-leverage-confirm').click();
    await page.getByText(`Leverage configured to ${LEVERAGE}x`).first().waitFor();
    await expect.poll(() => text('futures-leverage-value')).toBe(`${LEVERAGE}x`);
    await expect.poll(() => text('trade-leverage')).toBe(`${LEVERAGE}x`);
    const stored = await call('GET', '/api/set_leverage?exchange=binance&symbol=BTC/USDT');
    expect(stored.leverage).toBe(LEVERAGE);

    // A Long of 0.001 BTC at market, through the confirmation dialog.
    await page.getByTestId('trade-side-buy').click();
    await page.getByTestId('trade-type-market').click();
    await page.getByTestId('trade-market-price').waitFor();
    await page.getByTestId('trade-order-quantity').fill(String(QTY));
    await page.getByTestId('trade-order-submit').click();
    const ok = page.getByTestId('trade-confirm-ok');
    await ok.waitFor();
    await expect.poll(() => text('trade-confirm-side')).toBe('Long');
    await expect.poll(() => text('trade-confirm-symbol')).toBe(SWAP);
    await expect.poll(() => text('trade-confirm-type')).toBe('Market');
    await expect.poll(() => text('trade-confirm-quantity')).toBe('0.001000');
    const value = numOf(await text('trade-confirm-value'));
    expect(value).toBeGreaterThan(PRICE * QTY * 0.99);
    expect(value).toBeLessThan(PRICE * QTY * 1.01);
    await page.keyboard.press('Enter');
    await ok.waitFor({ state: 'detached' });
    await page
      .getByTestId('trade-toast')
      .filter({ hasText: /^✅ Order filled: Long 0\.001 BTC at \d+(\.\d+)? USDT\.$/ })
      .first()
      .waitFor();

    // The position panel: size, entry, liquidation below the entry, margin = value / 5, PnL.
    const card = page.locator('[data-testid="futures-position"][data-side="long"]');
    await card.waitFor({ timeout: 20_000 });
    await expect.poll(() => text('futures-position-side')).toBe('Long');
    await expect.poll(() => text('futures-position-leverage')).toBe(`${LEVERAGE}x`);
    await expect.poll(() => text('futures-position-size')).toBe('0.001000 BTC');
    const entry = numOf(await text('futures-position-entry'));
    expect(entry).toBeGreaterThan(PRICE * 0.99);
    expect(entry).toBeLessThan(PRICE * 1.01);
    const liquidation = numOf(await text('futures-position-liquidation'));
    // At 5x a long is liquidated about 20 % below its entry (less the maintenance margin).
    expect(liquidation).toBeGreaterThan(entry * 0.75);
    expect(liquidation).toBeLessThan(entry * 0.85);
    const margin = amountOf(await text('futures-position-margin'));
    expect(margin).toBeGreaterThan(((entry * QTY) / LEVERAGE) * 0.95);
    expect(margin).toBeLessThan(((entry * QTY) / LEVERAGE) * 1.05);
    await expect.poll(() => text('futures-position-margin')).toMatch(/ USDT$/);
    await expect
      .poll(() => text('futures-position-pnl'))
      .toMatch(/^[+-]?\d+\.\d{2} USDT \([+-]?\d+\.\d{2}%\)$/);
    await expect.poll(() => text('futures-position-mark')).toMatch(/^\d{1,3}(,\d{3})*\.\d{2}$/);
    // The same figures as the server's.
    const [pos] = await positions();
    expect(pos).toBeDefined();
    expect(pos!.side).toBe('long');
    expect(pos!.contracts).toBeCloseTo(QTY, 8);
    expect(pos!.leverage).toBe(LEVERAGE);
    expect(pos!.entry_price.toFixed(2)).toBe(entry.toFixed(2));
    expect(pos!.liquidation_price?.toFixed(2)).toBe(liquidation.toFixed(2));
    expect(pos!.margin.toFixed(2)).toBe(margin.toFixed(2));

    // Close at market, confirmed: the position is gone from the panel and the server.
    await page.getByTestId('futures-position-close').click();
    await page.getByTestId('futures-close-confirm').waitFor();
    await expect
      .poll(() => text('futures-close-text'))
      .toBe(`Close your Long position of 0.001000 BTC on ${SWAP} with a market order?`);
    await page.getByTestId('futures-close-confirm').click();
    await page.getByText('✅ Closing the position at market.').first().waitFor();
    await page.getByTestId('futures-position-none').waitFor({ timeout: 20_000 });
    await expect.poll(() => card.count()).toBe(0);
    await expect.poll(positions, { timeout: 15_000 }).toEqual([]);
    // Both orders in the fills: the Long's entry and the reduce-only close.
    await page.getByTestId('trade-orders-tab-fills').click();
    const fills = page.getByTestId('trade-fill');
    await expect
      .poll(async () =>
        (await Promise.all((await fills.all()).map((f) => f.getAttribute('data-role')))).sort(),
      )
      .toEqual(['close', 'entry']);
    await expect.poll(() => page.getByTestId('trade-open-order').count()).toBe(0);
  }, 110_000);
});
