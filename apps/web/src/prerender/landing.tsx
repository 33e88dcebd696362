import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { StaticRouter } from 'react-router';
import { Providers } from '../app/providers';
import { AppRoutes } from '../app/router';

/**
 * The landing route (`/`) rendered to HTML at build time (vite.config.ts `prerenderLanding`), with the
 * same tree main.tsx renders in the browser: English, logged out, no prices yet. The server answers `/`
 * with it (dist/landing.html), so the page paints before its script runs, and main.tsx hydrates it.
 * Parts that load after the first paint (the toasts' container, the header's floating parts) render
 * their Suspense fallback or stand-in here, as in the browser's first render.
 */
export function renderLanding(): string {
  return renderToString(
    <StrictMode>
      <Providers>
        <StaticRouter location="/">
          <AppRoutes />
        </StaticRouter>
      </Providers>
    </StrictMode>,
  );
}
