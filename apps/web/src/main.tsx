import { startTransition, StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { Providers } from './app/providers';
import { AppRoutes, preloadPage } from './app/router';
import { getToken } from './shared/api/client';
import { prefetchSession } from './shared/session/session';

// The URL's page and the session check start now, in parallel and before the first render
// (app/router.tsx, shared/session/session.tsx): a logged-in page needs both. The check's answer is
// applied once the page is there too, so the page renders at once instead of suspending.
prefetchSession(preloadPage(window.location.pathname, getToken() !== null));

const root = document.getElementById('root');
if (!root) throw new Error('#root missing from index.html');
const app = (
  <StrictMode>
    <Providers>
      <BrowserRouter>
        <AppRoutes />
      </BrowserRouter>
    </Providers>
  </StrictMode>
);
// `/` comes pre-rendered (dist/landing.html, src/prerender/landing.tsx): English and logged out. For a
// visitor who would see something else (Spanish, a cached user) public/landing-gate.js hides it, and it
// is drawn afresh; otherwise it is the very page this render draws, and React adopts it (hydration).
const html = document.documentElement;
// The pre-rendered `/` is hydrated in a transition: React then renders in slices of about 5 ms, yielding
// to the browser between them, instead of one task of the whole first render (on a phone's CPU
// Lighthouse counted it as blocking time, issue 39). The page is already painted meanwhile; a click on
// a not yet hydrated part makes React hydrate that part first and replays the event.
if (root.firstElementChild && !html.classList.contains('bytx-no-prerender')) {
  startTransition(() => {
    hydrateRoot(root, app);
  });
} else {
  // Any other page has nothing painted before this render: it is rendered in one task (no transition),
  // so the shell paints as soon as it can, before the page's chunks (loading meanwhile) are evaluated.
  // Blocking time is counted from the first paint on, so this task before it adds none.
  root.replaceChildren();
  html.classList.remove('bytx-no-prerender');
  createRoot(root).render(app);
}
