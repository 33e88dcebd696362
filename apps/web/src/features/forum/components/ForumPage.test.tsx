import type { ForumPost, ForumPostsResponse } from '@bytx/contract';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, LocationProbe, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { ForumPage } from './ForumPage';
import { setValue } from '../../../../test/setValue';

const DENIED = 'Acceso denegado. Solo usuarios autorizados.';

type Call = unknown[];
const urlOfCall = (c: Call) => {
  const u = c[0];
  return u instanceof Request ? u.url : u instanceof URL ? u.href : typeof u === 'string' ? u : '';
};
const initOfCall = (c: Call) => c[1] as RequestInit | undefined;
const callsOf = (mock: { mock: { calls: unknown[] } }) => mock.mock.calls as Call[];

const post = (id: number, content: string, replies: ForumPost['replies'] = []): ForumPost => ({
  id,
  user: 'Anonymous',
  content,
  timestamp: '2025-01-02T03:04:05.000Z',
  replies,
});
const pageOf = (posts: ForumPost[], over: Partial<ForumPostsResponse> = {}): ForumPostsResponse => ({
  success: true,
  posts,
  page: 1,
  pages: 1,
  total: posts.length,
  page_size: 50,
  ...over,
});

describe('ForumPage', () => {
  let alert: ReturnType<typeof vi.fn>;
  beforeEach(async () => {
    await i18n.changeLanguage('en');
    alert = vi.fn();
    vi.stubGlobal('alert', alert);
  });
  afterEach(() => vi.unstubAllGlobals());

  it('shows the loading state, then the empty state', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    renderApp(<ForumPage />, {
      responses: { '/api/forum/posts': async () => (await gate, json(pageOf([]))) },
    });
    expect(await screen.findByTestId('forum-loading')).toBeTruthy();
    release();
    expect(await screen.findByText('No posts yet. Be the first to write one.')).toBeTruthy();
  });

  it('renders markup in posts and replies as text, never as elements', async () => {
    const markup = '<img src=x onerror="alert(1)"><b>bold</b>';
    renderApp(<ForumPage />, {
      responses: {
        '/api/forum/posts': () =>
          json(
            pageOf([
              post(2, markup, [
                {
                  id: 9,
                  post_id: 2,
                  user: 'Anonymous',
                  content: '<i>r</i>',
                  timestamp: '2025-01-02T03:05:00Z',
                },
              ]),
            ]),
          ),
      },
    });
    const content = await screen.findByTestId('forum-post-content');
    expect(content.textContent).toBe(markup);
    expect(content.children).toHaveLength(0);
    const reply = screen.getByTestId('forum-reply-content');
    expect(reply.textContent).toBe('<i>r</i>');
    expect(reply.children).toHaveLength(0);
    expect(screen.getByText('1 reply')).toBeTruthy();
  });

  it('numbers the page buttons descending and asks the server for the page clicked', async () => {
    const user = userEvent.setup();
    const { fetchMock } = renderApp(<ForumPage />, {
      responses: {
        '/api/forum/posts': () => json(pageOf([post(1, 'hello')], { pages: 3, total: 120 })),
      },
    });
    const nav = await screen.findByTestId('forum-pages');
    expect(
      within(nav)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['3', '2', '1']);
    await user.click(screen.getByTestId('forum-page-2'));
    await waitFor(() => expect(callsOf(fetchMock).some((c) => urlOfCall(c).includes('page=2'))).toBe(true));
  });

  it('sends nothing for a blank post and publishes a real one', async () => {
    const user = userEvent.setup();
    const { fetchMock } = renderApp(<ForumPage />, {
      responses: { '/api/forum/posts': () => json(pageOf([])) },
    });
    await screen.findByTestId('forum-empty');
    const input = screen.getByTestId('forum-post-box-input');
    await user.type(input, '   ');
    const submit = screen.getByTestId('forum-post-box-submit');
    expect((submit as HTMLButtonElement).disabled).toBe(true);
    await user.type(input, '{Enter}');
    const posted = () => callsOf(fetchMock).filter((c) => initOfCall(c)?.method === 'POST');
    expect(posted()).toHaveLength(0);

    await user.clear(input);
    await user.type(input, '  hi there ');
    await user.click(submit);
    await waitFor(() => expect(posted()).toHaveLength(1));
    const body = JSON.parse(initOfCall(posted()[0]!)?.body as string) as { content: string };
    expect(body.content).toBe('hi there');
  });

  it('counts characters as the server does and refuses direction overrides before sending', async () => {
    renderApp(<ForumPage />, { responses: { '/api/forum/posts': () => json(pageOf([])) } });
    await screen.findByTestId('forum-empty');
    const input = screen.getByTestId('forum-post-box-input');
    const submit = screen.getByTestId<HTMLButtonElement>('forum-post-box-submit');
    // Emoji count one each (code points after trimming), as textLength on the server counts them.
    setValue(input, `  ${'😀'.repeat(3)} `);
    expect(screen.getByTestId('forum-post-box-count').textContent).toMatch(/^3 \//);
    expect(submit.disabled).toBe(false);
    setValue(input, 'abc\u202Edef');
    expect(submit.disabled).toBe(true);
    expect(await screen.findByText(/text-direction character/)).toBeTruthy();
    setValue(input, 'x'.repeat(2001));
    expect(submit.disabled).toBe(true);
  });

  it('alerts an anonymous visitor who clicks the token logo and stays on the forum', async () => {
    const user = userEvent.setup();
    const { fetchMock } = renderApp(<ForumPage />, {
      initialPath: '/forum',
      responses: { '/api/forum/posts': () => json(pageOf([])) },
    });
    await screen.findByTestId('forum-empty');
    await user.click(screen.getByTestId('forum-logo'));
    expect(alert).toHaveBeenCalledWith(DENIED);
    expect(screen.getByTestId('location').textContent).toBe('/forum');
    expect(callsOf(fetchMock).some((c) => urlOfCall(c).includes('/api/peliculas-series/access'))).toBe(false);
  });

  it('alerts a logged-in account the server refuses', async () => {
    const user = userEvent.setup();
    renderApp(<ForumPage />, {
      initialPath: '/forum',
      user: { id: 'u1', email: 'ana@example.com' },
      responses: {
        '/api/forum/posts': () => json(pageOf([])),
        '/api/peliculas-series/access': () => json({ success: false, error: DENIED, message: DENIED }, 403),
      },
    });
    await screen.findByTestId('forum-empty');
    await user.click(screen.getByTestId('forum-logo'));
    await waitFor(() => expect(alert).toHaveBeenCalledWith(DENIED));
    expect(screen.getByTestId('location').textContent).toBe('/forum');
  });

  it('opens /peliculas-series for an allowed account', async () => {
    const user = userEvent.setup();
    renderApp(<ForumPage />, {
      initialPath: '/forum',
      user: { id: 'u2', email: 'vip@example.com', canOpenLogoArea: true },
      routes: [{ path: '/peliculas-series', element: <LocationProbe /> }],
      responses: {
        '/api/forum/posts': () => json(pageOf([])),
        '/api/peliculas-series/access': () => json({ success: true }),
      },
    });
    await screen.findByTestId('forum-empty');
    await user.click(screen.getByTestId('forum-logo'));
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/peliculas-series'));
    expect(alert).not.toHaveBeenCalled();
  });

  it('speaks Spanish too', async () => {
    await i18n.changeLanguage('es');
    renderApp(<ForumPage />, { responses: { '/api/forum/posts': () => json(pageOf([])) } });
    expect(
      await screen.findByText('Todavía no hay publicaciones. Sé el primero en escribir una.'),
    ).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Foro' })).toBeTruthy();
  });
});
