import { StrictMode } from 'react';
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
if (root.firstElementChild && !html.classList.contains('bytx-no-prerender')) {
  hydrateRoot(root, app);
} else {
  root.replaceChildren();
  html.classList.remove('bytx-no-prerender');
  createRoot(root).render(app);
}
