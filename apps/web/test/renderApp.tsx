import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { createMemoryRouter, RouterProvider, useLocation, type RouteObject } from 'react-router';
import { vi } from 'vitest';
import { QueryClientProvider } from '@tanstack/react-query';
import { markPageLoaded } from '../src/app/lazyPage';
import { AppMantine } from '../src/app/mantine';
// Loaded with the test file, so the toasts' container (a lazy part, app/providers.tsx) mounts at once
// when a page shows a toast, with no module transform to wait for on a busy machine.
import '../src/app/toastStore';
import { Providers } from '../src/app/providers';
import { makeQueryClient } from '../src/app/query';
import type { SessionUser } from '../src/shared/session/session';

/** Shows the router's current path so a test can see where a click led. */
export function LocationProbe() {
  const loc = useLocation();
  return <div data-testid="location">{loc.pathname}</div>;
}

export interface RenderAppOptions {
  /** Logged-in user answered by a stubbed GET /api/me; null or absent: logged out. */
  user?: SessionUser | null;
  /** Extra answers of the stubbed fetch by path (`/api/ticker` ...); default: 404. */
  responses?: Record<string, (url: URL, init?: RequestInit) => Response | Promise<Response>>;
  initialPath?: string;
  /** Extra routes tried before the catch-all '*' that renders `ui` with the location probe. */
  routes?: RouteObject[];
}

const urlOf = (input: RequestInfo | URL) =>
  new URL(
    input instanceof Request ? input.url : input instanceof URL ? input.href : input,
    'http://localhost',
  );

export const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/**
 * Renders `ui` inside the real providers (Mantine, notifications, Query, i18n, session) and a memory
 * router, with `fetch` stubbed: GET /api/me answers the given user.
 */
export function renderApp(ui: ReactNode, opts: RenderAppOptions = {}) {
  const { user = null, responses = {}, initialPath = '/', routes = [] } = opts;
  if (user) {
    localStorage.setItem('token', 'test-token');
    localStorage.setItem('user', JSON.stringify(user));
  }
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = urlOf(input);
    if (url.pathname === '/api/me') return json(user ? { loggedIn: true, user } : { loggedIn: false });
    const handler = responses[url.pathname];
    if (handler) return handler(url, init);
    return json({ success: false, error: 'Not found' }, 404);
  });
  vi.stubGlobal('fetch', fetchMock);
  const router = createMemoryRouter(
    [
      ...routes,
      {
        path: '*',
        element: (
          <>
            {ui}
            <LocationProbe />
          </>
        ),
      },
    ],
    { initialEntries: [initialPath] },
  );
  // The page under test is imported directly, not as a page chunk: what waits for a page (the toasts a
  // page shows without a click, app/providers.tsx) is told as lazyPage would tell it.
  markPageLoaded();
  const result = render(
    <Providers>
      <AppMantine>
        <QueryClientProvider client={makeQueryClient()}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </AppMantine>
    </Providers>,
  );
  /** The paths the app fetched so far, in order. */
  const requestedPaths = () => fetchMock.mock.calls.map(([input]) => urlOf(input).pathname);
  return { ...result, router, fetchMock, requestedPaths };
}
