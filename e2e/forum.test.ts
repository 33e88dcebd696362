import type { Dialog, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, openBrowser, startServer, type Browser, type RunningServer } from './harness';
import { loginInBrowser, registerViaApi } from './helpers/accounts';

/** The spec's 'Acceso denegado. Solo usuarios autorizados.' in the English interface (the default). */
const DENIED = 'Access denied. Authorised users only.';
const ALLOWED = 'logo-allowed@example.com';
const REFUSED = 'logo-refused@example.com';
const PASSWORD = 'Forum e2e passphrase 42!';

/** Collects every native dialog the page opens (none is expected: the app has its own). */
function recordDialogs(page: Page): string[] {
  const seen: string[] = [];
  page.on('dialog', (d: Dialog) => {
    seen.push(d.message());
    void d.accept();
  });
  return seen;
}

/** The app's own alert (shared/ui/ConfirmDialog) says the denial; it is closed. */
async function denied(page: Page) {
  await expect.poll(() => page.getByTestId('confirm-dialog-text').textContent()).toBe(DENIED);
  await page.getByTestId('confirm-dialog-ok').click();
  await page.getByTestId('confirm-dialog-text').waitFor({ state: 'detached' });
}

describe.skipIf(!hasChromium)('forum in the browser', () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let dialogs: string[];

  beforeAll(async () => {
    server = await startServer({ LOGO_ALLOWLIST_EMAILS: ALLOWED });
    browser = await openBrowser();
    page = browser.page;
    dialogs = recordDialogs(page);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('writes a post, replies to it, and sees both after a reload', async () => {
    await page.goto(`${server.baseUrl}/forum`);
    await page.getByTestId('forum-empty').waitFor();

    // A blank post is ignored: the button stays disabled and nothing is sent.
    await page.getByTestId('forum-post-box-input').fill('    ');
    await expect.poll(() => page.getByTestId('forum-post-box-submit').isDisabled()).toBe(true);

    await page.getByTestId('forum-post-box-input').fill('Hello from the browser test');
    await page.getByTestId('forum-post-box-submit').click();
    const post = page.getByTestId('forum-post').filter({ hasText: 'Hello from the browser test' });
    await post.waitFor();
    await expect.poll(() => post.innerText()).toContain('Anonymous');
    await expect.poll(() => page.getByTestId('forum-post-box-input').inputValue()).toBe('');

    // The reply box opens from the post's Reply button (collapsed by default).
    await expect.poll(() => post.getByTestId('forum-reply-box').count()).toBe(0);
    await post.getByTestId('forum-reply-open').click();
    await post.getByTestId('forum-reply-box-input').fill('A reply to it');
    await post.getByTestId('forum-reply-box-submit').click();
    await post.getByTestId('forum-reply').filter({ hasText: 'A reply to it' }).waitFor();

    await page.reload();
    const again = page.getByTestId('forum-post').filter({ hasText: 'Hello from the browser test' });
    await again.waitFor();
    await expect
      .poll(() => again.getByTestId('forum-post-content').innerText())
      .toBe('Hello from the browser test');
    await expect
      .poll(() => again.getByTestId('forum-reply-content').allInnerTexts())
      .toEqual(['A reply to it']);
  });

  it('shows a post with markup as text: no element is created and no script runs', async () => {
    const markup =
      '<img src=x onerror="window.__forumXss=1"><script>window.__forumXss=2</script><b id="forum-bold">bold</b>';
    const before = dialogs.length;
    await page.goto(`${server.baseUrl}/forum`);
    await page.getByTestId('forum-posts').waitFor();
    await page.getByTestId('forum-post-box-input').fill(markup);
    await page.getByTestId('forum-post-box-submit').click();
    const content = page.getByTestId('forum-post-content').filter({ hasText: '<script>' });
    await content.waitFor();
    await expect.poll(() => content.innerText()).toBe(markup);
    await expect
      .poll(() => content.evaluate((el: { childElementCount: number }) => el.childElementCount))
      .toBe(0);

    await page.reload();
    const reloaded = page.getByTestId('forum-post-content').filter({ hasText: '<script>' });
    await reloaded.waitFor();
    await expect.poll(() => reloaded.innerText()).toBe(markup);
    await expect.poll(() => page.locator('#forum-bold').count()).toBe(0);
    await expect.poll(() => page.locator('[data-testid="forum-posts"] img[src="x"]').count()).toBe(0);
    await expect
      .poll(() => page.evaluate(() => typeof (globalThis as unknown as { __forumXss?: number }).__forumXss))
      .toBe('undefined');
    expect(dialogs.length).toBe(before);
  });

  it('refuses the token logo to an anonymous visitor with the alert', async () => {
    await page.goto(`${server.baseUrl}/forum`);
    await page.getByTestId('forum-logo').click();
    await denied(page);
    expect(new URL(page.url()).pathname).toBe('/forum');
    expect(dialogs).toEqual([]);
  });

  it('refuses the token logo and the typed-in /peliculas-series to an account not on the allow-list', async () => {
    await registerViaApi(server.baseUrl, server.outboxDir, REFUSED, PASSWORD);
    await page.goto(`${server.baseUrl}/forum`);
    await loginInBrowser(page, server.baseUrl, REFUSED, PASSWORD);
    await page.goto(`${server.baseUrl}/forum`);
    await page.getByTestId('forum-posts').waitFor();
    // The session is loaded (GET /api/me answered): the refusal below is the allow-list's, not a missing login.
    await page.waitForFunction(
      (email) =>
        (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage
          .getItem('user')
          ?.includes(email),
      REFUSED,
    );

    await page.getByTestId('forum-logo').click();
    await denied(page);
    expect(new URL(page.url()).pathname).toBe('/forum');

    await page.goto(`${server.baseUrl}/peliculas-series`);
    await denied(page);
    await page.waitForURL(`${server.baseUrl}/`);
    expect(dialogs).toEqual([]);
    await expect.poll(() => page.getByTestId('movies-page').count()).toBe(0);
  });

  it('opens /peliculas-series from the token logo for an allow-listed account', async () => {
    await registerViaApi(server.baseUrl, server.outboxDir, ALLOWED, PASSWORD);
    await loginInBrowser(page, server.baseUrl, ALLOWED, PASSWORD);
    await page.goto(`${server.baseUrl}/forum`);
    await page.getByTestId('forum-posts').waitFor();
    const before = dialogs.length;
    await page.getByTestId('forum-logo').click();
    await page.waitForURL(`${server.baseUrl}/peliculas-series`);
    await page.getByTestId('movies-page').waitFor();
    expect(dialogs.length).toBe(before);

    // Typed in directly it opens too.
    await page.goto(`${server.baseUrl}/peliculas-series`);
    await page.getByTestId('movies-page').waitFor();
    expect(dialogs.length).toBe(before);
  });
});
