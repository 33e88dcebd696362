import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginInBrowser, registerViaApi } from './helpers/accounts';
import { apiCall } from './helpers/api';
import {
  hasChromium,
  openBrowser,
  pointUntil,
  startServer,
  type Browser,
  type RunningServer,
} from './harness';

const SUPPORT = 'support-e2e@example.com';
const OTHER = 'spot-other-e2e@example.com';
const PASSWORD = 'Sup3r-Secret-Passw0rd!';
const SYMBOL = 'ETH/USDT';
const PRICE = 3000;

/** One attribute of every element the locator finds, in page order. */
const attrs = async (l: Locator, name: string) =>
  Promise.all((await l.all()).map((e) => e.getAttribute(name)));
/** A displayed number in English (the house style groups thousands: "10,000.00"). */
const numOf = (text: string | null) => Number((text ?? '').trim().replace(/,/g, ''));
/** '10,000.00 USDT' → 10000. */
const amountOf = (text: string | null) => numOf((text ?? '').trim().split(/\s+/)[0] ?? '');

/**
 * The spot screen `/spot` (issue 16 "Tests") on paper Binance: as a support account (SUPPORT_EMAILS)
 * pick a pair from the list, mark it favourite, see the chart's candles and a 10 + 10 level book, click a
 * book price into the order form, buy through the confirmation dialog (fee 0.4 %, net × 0.996), see the
 * toast and the open order, cancel it, buy at market and see the fill and the lower balance (the page and
 * `GET /api/wallet`), the spec's validation texts, and the remembered pair and order type after a
 * reload. As anyone else: the header's Trade → Spot opens the 'Platform in Development' modal.
 */
describe.skipIf(!hasChromium)('spot screen /spot on paper Binance', () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let token = '';

  const call = (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) =>
    apiCall(server.baseUrl, token, method, path, body);
  const url = (path: string) => `${server.baseUrl}${path}`;
  const pairRow = (symbol: string) => page.locator(`[data-testid="trade-pair"][data-symbol="${symbol}"]`);
  const pairSymbols = () => attrs(page.locator('[data-testid="trade-pair"]'), 'data-symbol');
  const text = (testId: string) => page.getByTestId(testId).textContent();
  const available = async () => amountOf(await text('trade-available'));

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

  it('support: pair, favourite, chart, book → limit buy with the dialog, cancel, market buy, balance, rules, reload', async () => {
    await registerViaApi(server.baseUrl, server.outboxDir, SUPPORT, PASSWORD);
    token = await loginInBrowser(page, server.baseUrl, SUPPORT, PASSWORD);
    await call('POST', '/api/dev/market/price', { exchange: 'binance', symbol: SYMBOL, price: PRICE });
    await call('POST', '/api/conectar_exchange', { exchange: 'binance', mode: 'paper', user_id: SUPPORT });

    // The screen, BTC/USDT by default.
    await page.goto(url('/spot'));
    await page.locator('[data-testid="trade-screen"][data-market="spot"]').waitFor();
    await page.getByTestId('trade-pairs').waitFor();
    await expect.poll(() => text('trade-symbol')).toBe('BTC/USDT');
    await expect.poll(() => pairRow('BTC/USDT').getAttribute('data-selected')).toBe('true');
    await expect.poll(() => page.getByTestId('trade-exchange').inputValue()).toBe('binance');

    // Pick ETH/USDT through the search.
    await page.getByTestId('trade-pair-search').fill('eth');
    await expect.poll(pairSymbols).toEqual([SYMBOL]);
    await pairRow(SYMBOL).getByTestId('trade-pair-select').click();
    await expect.poll(() => text('trade-symbol')).toBe(SYMBOL);
    await expect.poll(() => pairRow(SYMBOL).getAttribute('data-selected')).toBe('true');
    await page.getByTestId('trade-pair-search').fill('');
    await expect.poll(async () => (await pairSymbols()).length).toBe(24);

    // Favourites float to the top (each group in the coin order: ETH comes before SOL).
    const solIndex = (await pairSymbols()).indexOf('SOL/USDT');
    expect(solIndex).toBeGreaterThan(2);
    await pairRow('SOL/USDT').getByTestId('trade-pair-star').click();
    await expect.poll(async () => (await pairSymbols())[0]).toBe('SOL/USDT');
    await expect.poll(() => pairRow('SOL/USDT').getAttribute('data-favorite')).toBe('true');
    await pairRow(SYMBOL).getByTestId('trade-pair-star').click();
    await expect
      .poll(async () => (await pairSymbols()).slice(0, 3))
      .toEqual([SYMBOL, 'SOL/USDT', 'BYTX/USDT']);
    await expect.poll(() => pairRow(SYMBOL).getAttribute('data-favorite')).toBe('true');
    await expect
      .poll(async () => [...((await call('GET', '/api/spot/favorites')).favorites as string[])].sort())
      .toEqual([SYMBOL, 'SOL/USDT']);

    // The chart's candles, and the timeframes (15M by default).
    const canvas = page.getByTestId('trade-chart-canvas');
    await canvas.waitFor();
    await expect.poll(async () => Number(await canvas.getAttribute('data-candles'))).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('trade-tf-15M').getAttribute('aria-pressed')).toBe('true');
    await expect
      .poll(() => canvas.getAttribute('aria-label'))
      .toMatch(/^ETH\/USDT candles, 15M, \d+ candles$/);
    await expect.poll(() => canvas.locator('canvas').count()).toBeGreaterThan(0);
    await page.getByTestId('trade-tf-1H').click();
    await expect
      .poll(() => canvas.getAttribute('aria-label'))
      .toMatch(/^ETH\/USDT candles, 1H, \d+ candles$/);
    await expect.poll(() => page.getByTestId('trade-tf-1H').getAttribute('aria-pressed')).toBe('true');
    await expect.poll(async () => Number(await canvas.getAttribute('data-candles'))).toBeGreaterThan(0);
    await page.getByTestId('trade-tf-15M').click();
    await expect.poll(() => canvas.getAttribute('aria-label')).toMatch(/, 15M, /);

    // The book: 10 asks above 10 bids; the best bid below the best ask.
    const asks = page.getByTestId('trade-book-ask');
    const bids = page.getByTestId('trade-book-bid');
    await expect.poll(() => asks.count()).toBe(10);
    await expect.poll(() => bids.count()).toBe(10);
    const bestAsk = Number(await asks.last().getAttribute('data-price'));
    const bestBid = Number(await bids.first().getAttribute('data-price'));
    expect(bestBid).toBeLessThan(bestAsk);
    expect(bestBid).toBeGreaterThan(PRICE * 0.99);
    expect(bestBid).toBeLessThan(PRICE);

    // Click the best bid: the Limit price input holds it.
    await bids.first().click();
    const priceInput = page.getByTestId('trade-order-price');
    await expect.poll(async () => Number(await priceInput.inputValue())).toBe(bestBid);
    await expect.poll(() => page.getByTestId('trade-type-limit').getAttribute('aria-pressed')).toBe('true');
    await expect.poll(available).toBe(10_000);

    // A limit buy of 0.01 ETH at that bid: the dialog's figures.
    await page.getByTestId('trade-order-quantity').fill('0.01');
    await page.getByTestId('trade-order-submit').click();
    const dialog = page.getByTestId('trade-confirm-ok');
    await dialog.waitFor();
    const value = bestBid * 0.01;
    await expect.poll(() => text('trade-confirm-side')).toBe('Buy');
    await expect.poll(() => text('trade-confirm-symbol')).toBe(SYMBOL);
    await expect.poll(() => text('trade-confirm-type')).toBe('Limit');
    await expect.poll(async () => numOf(await text('trade-confirm-price'))).toBe(bestBid);
    await expect.poll(() => text('trade-confirm-quantity')).toBe('0.010000');
    await expect.poll(() => text('trade-confirm-value')).toBe(value.toFixed(2));
    await expect.poll(() => text('trade-confirm-fee')).toBe((value * 0.004).toFixed(2));
    await expect.poll(() => text('trade-confirm-net')).toBe((value * 0.996).toFixed(2));

    // Enter confirms: the toast, then the order in Open orders.
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await page
      .getByTestId('trade-toast')
      .filter({ hasText: /^✅ Order placed: Buy / })
      .first()
      .waitFor();
    const open = page.getByTestId('trade-open-order');
    await expect.poll(() => open.count()).toBe(1);
    await expect.poll(() => open.first().getAttribute('data-status')).toBe('open');
    await expect.poll(() => open.first().textContent()).toContain(SYMBOL);
    // The cost is held for the resting buy: the page shows the free quote less it.
    await expect.poll(available).toBeCloseTo(10_000 - value, 1);

    // Cancel it: gone from Open orders, cancelled in the history, the funds free again.
    await open.first().getByTestId('trade-order-cancel').click();
    await page.getByTestId('trade-toast').filter({ hasText: '✅ Order cancelled.' }).first().waitFor();
    await expect.poll(() => open.count()).toBe(0);
    await page.getByTestId('trade-orders-empty').waitFor();
    await page.getByTestId('trade-orders-tab-recent').click();
    await page.locator('[data-testid="trade-recent-order"][data-status="cancelled"]').waitFor();
    await expect.poll(available).toBe(10_000);

    // A market buy of 0.01 ETH: filled at once, the fill listed, the quote lower by about the cost.
    await page.getByTestId('trade-type-market').click();
    await page.getByTestId('trade-market-price').waitFor();
    await page.getByTestId('trade-order-quantity').fill('0.01');
    await page.getByTestId('trade-order-submit').click();
    await dialog.waitFor();
    // Escape cancels: nothing is sent; the button asks again.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect((await call('GET', `/api/spot/orders?exchange=binance&symbol=${SYMBOL}`)).fills).toEqual([]);
    await page.getByTestId('trade-order-submit').click();
    await dialog.waitFor();
    await expect.poll(() => text('trade-confirm-type')).toBe('Market');
    const marketValue = numOf(await text('trade-confirm-value'));
    expect(marketValue).toBeGreaterThan(PRICE * 0.01 * 0.99);
    expect(marketValue).toBeLessThan(PRICE * 0.01 * 1.01);
    await expect.poll(() => text('trade-confirm-fee')).toBe((marketValue * 0.004).toFixed(2));
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await page
      .getByTestId('trade-toast')
      .filter({ hasText: /^✅ Order filled: Buy / })
      .first()
      .waitFor();
    await page.getByTestId('trade-orders-tab-fills').click();
    const fill = page.locator('[data-testid="trade-fill"][data-role="entry"]');
    await expect.poll(() => fill.count()).toBe(1);
    await expect.poll(() => fill.first().textContent()).toContain('Buy');
    await expect.poll(available).toBeLessThan(10_000);
    const after = await available();
    // About the cost (0.01 ETH near 3000: 30 USDT), the taker fee aside.
    expect(10_000 - after).toBeGreaterThan(marketValue * 0.98);
    expect(10_000 - after).toBeLessThan(marketValue * 1.02);
    const wallet = (await call('GET', '/api/wallet?exchange=binance')) as {
      balances: Record<string, number>;
    };
    expect(wallet.balances.USDT).toBeCloseTo(after, 2);
    expect(wallet.balances.ETH).toBeGreaterThan(0.0098);
    expect(wallet.balances.ETH).toBeLessThanOrEqual(0.01);

    // The spec's validation texts, before anything is sent.
    const error = page.getByTestId('trade-order-error');
    await page.getByTestId('trade-type-limit').click();
    await priceInput.fill('0');
    await page.getByTestId('trade-order-quantity').fill('0.01');
    await page.getByTestId('trade-order-submit').click();
    await expect
      .poll(() => error.textContent())
      .toBe('❌ Price must be a valid positive number for limit orders.');
    await priceInput.fill(String(bestBid));
    await page.getByTestId('trade-order-quantity').fill('0');
    await page.getByTestId('trade-order-submit').click();
    await expect.poll(() => error.textContent()).toBe('❌ Quantity must be a positive number.');
    await page.getByTestId('trade-order-quantity').fill('100');
    await page.getByTestId('trade-order-submit').click();
    await expect
      .poll(() => error.textContent())
      .toBe(
        `❌ Insufficient balance. Required: ${(bestBid * 100).toFixed(2)}, Available: ${after.toFixed(2)}`,
      );
    await page.getByTestId('trade-order-quantity').fill('0.01');
    await page.getByTestId('trade-order-tp').fill(String(bestBid - 100));
    await page.getByTestId('trade-order-submit').click();
    await expect
      .poll(() => error.textContent())
      .toBe('❌ For a buy, Take Profit must be above the entry price.');
    await page.getByTestId('trade-order-tp').fill('');
    await expect.poll(() => page.getByTestId('trade-confirm-ok').count()).toBe(0);
    expect((await call('GET', `/api/spot/orders?exchange=binance&symbol=${SYMBOL}`)).open).toEqual([]);

    // The pair and the order type are remembered (spec: lastPair, orderType), the favourites too.
    await page.getByTestId('trade-type-market').click();
    await page.reload();
    await page.getByTestId('trade-order-panel').waitFor();
    await expect.poll(() => text('trade-symbol')).toBe(SYMBOL);
    await expect.poll(() => page.getByTestId('trade-type-market').getAttribute('aria-pressed')).toBe('true');
    await page.getByTestId('trade-market-price').waitFor();
    await expect
      .poll(() => page.evaluate("localStorage.getItem('lastPair')"))
      .toBe('{"base":"ETH","quote":"USDT"}');
    await expect.poll(() => page.evaluate("localStorage.getItem('orderType')")).toBe('Market');
    await expect.poll(async () => (await pairSymbols()).slice(0, 2)).toEqual([SYMBOL, 'SOL/USDT']);
  }, 110_000);

  it('another user: Trade → Spot and Futures in the header open the in-development modal', async () => {
    await page.evaluate('localStorage.clear()');
    await registerViaApi(server.baseUrl, server.outboxDir, OTHER, PASSWORD);
    const other = await loginInBrowser(page, server.baseUrl, OTHER, PASSWORD);
    await page.goto(url('/'));
    await page.getByTestId('header-logout').waitFor();
    await pointUntil(page, page.getByTestId('nav-trade'));
    for (const link of ['nav-spot', 'nav-futures']) {
      await page.getByTestId('nav-trade').click();
      await page.getByTestId(link).click();
      const modal = page.getByTestId('dev-modal');
      await page.getByText('Platform in Development', { exact: true }).first().waitFor();
      expect(new URL(page.url()).pathname).toBe('/');
      await expect.poll(() => modal.getByTestId('dev-modal-pools').isVisible()).toBe(true);
      await page.keyboard.press('Escape');
      await page.getByText('Platform in Development', { exact: true }).first().waitFor({ state: 'hidden' });
    }
    // Typed in the address bar: the page says it is in development, and the calls refuse.
    await page.goto(url('/spot'));
    await page.getByTestId('spot-in-development').waitFor();
    await expect.poll(() => page.getByTestId('trade-screen').count()).toBe(0);
    const res = await fetch(url(`/api/spot/market?exchange=binance&symbol=${SYMBOL}`), {
      headers: { authorization: `Bearer ${other}` },
    });
    expect(res.status).toBe(403);
  }, 60_000);
});
