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

  it('shows 10 posts a screen page, numbers the page buttons in order, and asks the server for the page that holds it', async () => {
    const user = userEvent.setup();
    // 52 posts: server pages of 50 (1: posts 52..3, 2: posts 2..1), screen pages of 10.
    const all = Array.from({ length: 52 }, (_, i) => post(52 - i, `post ${52 - i}`));
    const { fetchMock } = renderApp(<ForumPage />, {
      responses: {
        '/api/forum/posts': (url) => {
          const p = Number(url.searchParams.get('page'));
          return json(pageOf(all.slice((p - 1) * 50, p * 50), { page: p, pages: 2, total: 52 }));
        },
      },
    });
    const nav = await screen.findByTestId('forum-pages');
    expect(
      within(nav)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['1', '2', '3', '4', '5', '6']);
    const contents = () => screen.getAllByTestId('forum-post-content').map((c) => c.textContent);
    expect(contents()).toHaveLength(10);
    expect(contents()[0]).toBe('post 52');
    expect(screen.getByTestId('forum-page-of').textContent).toBe(
      'Page 1 of 6 · 52 posts · 10 a page, newest first',
    );
    // Screen page 3 is within the first server page: no new call.
    await user.click(screen.getByTestId('forum-page-3'));
    await waitFor(() => expect(contents()[0]).toBe('post 32'));
    expect(contents()).toHaveLength(10);
    expect(callsOf(fetchMock).some((c) => urlOfCall(c).includes('page=2'))).toBe(false);
    // Screen page 6 is the second server page.
    await user.click(screen.getByTestId('forum-page-6'));
    await waitFor(() => expect(contents()).toEqual(['post 2', 'post 1']));
    expect(callsOf(fetchMock).some((c) => urlOfCall(c).includes('page=2'))).toBe(true);
    expect(screen.getByTestId('forum-page-6').getAttribute('aria-current')).toBe('page');
  });

  it('keeps the reply box behind a Reply button and long threads behind "Show more" (EN and ES)', async () => {
    const user = userEvent.setup();
    const replies = Array.from({ length: 5 }, (_, i) => ({
      id: 100 + i,
      post_id: 7,
      user: 'Anonymous',
      content: `reply ${i + 1}`,
      timestamp: '2025-01-02T03:05:00Z',
    }));
    const posted: unknown[] = [];
    renderApp(<ForumPage />, {
      responses: {
        '/api/forum/posts': () => json(pageOf([post(7, 'thread', replies), post(8, 'quiet')])),
        '/api/forum/replies': (_url, init) => {
          posted.push(JSON.parse(init?.body as string));
          return json({ success: true, reply: { ...replies[0], id: 200, content: 'mine' } });
        },
      },
    });
    await screen.findAllByTestId('forum-post');
    expect(screen.queryByTestId('forum-reply-box')).toBeNull();
    expect(screen.getAllByTestId('forum-reply-open')).toHaveLength(2);
    expect(screen.getAllByTestId('forum-reply-content').map((r) => r.textContent)).toEqual([
      'reply 1',
      'reply 2',
      'reply 3',
    ]);
    expect(screen.getByTestId('forum-more-replies').textContent).toBe('Show 2 more replies');
    await user.click(screen.getByTestId('forum-more-replies'));
    expect(screen.getAllByTestId('forum-reply-content')).toHaveLength(5);

    const [thread] = screen.getAllByTestId('forum-post');
    await user.click(within(thread!).getByTestId('forum-reply-open'));
    const input = within(thread!).getByTestId('forum-reply-box-input');
    expect(document.activeElement).toBe(input);
    // Cancel closes it without sending; Reply opens it again and sends.
    await user.click(within(thread!).getByTestId('forum-reply-cancel'));
    expect(screen.queryByTestId('forum-reply-box')).toBeNull();
    await user.click(within(thread!).getByTestId('forum-reply-open'));
    await user.type(within(thread!).getByTestId('forum-reply-box-input'), 'mine');
    await user.click(within(thread!).getByTestId('forum-reply-box-submit'));
    await waitFor(() => expect(posted).toEqual([{ post_id: 7, user: 'anonimo', content: 'mine' }]));
    await waitFor(() => expect(screen.queryByTestId('forum-reply-box')).toBeNull());

    await i18n.changeLanguage('es');
    expect((await screen.findAllByTestId('forum-reply-open'))[0]!.textContent).toBe('Responder');
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
    // The app's own dialog, in the user's language (the spec's Spanish text is the Spanish one).
    expect((await screen.findByTestId('confirm-dialog-text')).textContent).toBe(
      'Access denied. Authorised users only.',
    );
    expect(alert).not.toHaveBeenCalled();
    expect(screen.getByTestId('location').textContent).toBe('/forum');
    expect(callsOf(fetchMock).some((c) => urlOfCall(c).includes('/api/peliculas-series/access'))).toBe(false);
  });

  it('alerts a logged-in account the server refuses', async () => {
    await i18n.changeLanguage('es');
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
    expect((await screen.findByTestId('confirm-dialog-text')).textContent).toBe(DENIED);
    await user.click(screen.getByTestId('confirm-dialog-ok'));
    await waitFor(() => expect(screen.queryByTestId('confirm-dialog-text')).toBeNull());
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
    expect(screen.queryByTestId('confirm-dialog-text')).toBeNull();
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
