import { cleanup, configure } from '@testing-library/react';
import { afterEach, beforeAll } from 'vitest';
import { loadAllCatalogs } from '../src/shared/i18n/index';

// findBy / waitFor give up after 3 s, not testing-library's 1 s: `npm test` runs the tiers side by side
// on two cores, and a page's first data (a mocked fetch, then a render) once took over 1 s there
// (TradingScreen, CI of 2026-11-25). Only a failure waits longer; what is awaited is the same.
configure({ asyncUtilTimeout: 3_000 });

// Pages' catalogs load with the lazy route (app/lazyPage.tsx); tests render pages directly, so load
// them all up front, as the route would before the page shows.
beforeAll(() => loadAllCatalogs());

// The web files share one module graph (`isolate: false`, vitest.config.ts), so i18next's language is
// the last one an earlier file chose: every file starts in English, the app's default (a file that tests
// Spanish switches in its own hooks, which run after this one). Without it, a file after a Spanish
// one read Spanish texts only when the two ran in the same worker (ArbitrageEvents after a signal test).
beforeAll(async () => {
  const { default: i18n } = await import('i18next');
  if (i18n.language !== 'en') await i18n.changeLanguage('en');
});

afterEach(() => {
  cleanup();
  // Build-level tests run in the node environment, without a DOM.
  if (typeof localStorage !== 'undefined') localStorage.clear();
});

// Component tests never reach a network. A request no test stubbed (a page's query still running when
// its test's stubs were taken away, before the page unmounts) fails at once here instead of connecting
// to happy-dom's http://localhost:3000.
if (typeof window !== 'undefined') {
  const offline = (input: RequestInfo | URL): Promise<Response> =>
    Promise.reject(
      new TypeError(`no network in component tests: ${input instanceof Request ? input.url : String(input)}`),
    );
  window.fetch = offline;
  globalThis.fetch = offline;
}
