import { cleanup } from '@testing-library/react';
import { afterEach, beforeAll } from 'vitest';
import { loadAllCatalogs } from '../src/shared/i18n/index';

// Pages' catalogs load with the lazy route (app/lazyPage.tsx); tests render pages directly, so load
// them all up front, as the route would before the page shows.
beforeAll(() => loadAllCatalogs());

afterEach(() => {
  cleanup();
  // Build-level tests run in the node environment, without a DOM.
  if (typeof localStorage !== 'undefined') localStorage.clear();
});
