import { startTransition, StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { Providers } from './app/providers';
import { AppRoutes } from './app/router';

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
// Both in a transition: React then renders in slices of about 5 ms, yielding to the browser between them,
// instead of one task of the whole first render (on a phone's CPU Lighthouse counted it as blocking
// time, issue 39). The pre-rendered `/` is already painted meanwhile; a click on a not yet hydrated part
// makes React hydrate that part first and replays the event.
if (root.firstElementChild && !html.classList.contains('bytx-no-prerender')) {
  startTransition(() => {
    hydrateRoot(root, app);
  });
} else {
  root.replaceChildren();
  html.classList.remove('bytx-no-prerender');
  const reactRoot = createRoot(root);
  startTransition(() => reactRoot.render(app));
}
