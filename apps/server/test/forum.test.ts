import {
  FORUM_EMPTY_POST_MESSAGE,
  FORUM_EMPTY_REPLY_MESSAGE,
  FORUM_PAGE_SIZE,
  FORUM_POST_MAX_CHARS,
  textLength,
  FORUM_POST_TOO_LONG_MESSAGE,
  FORUM_REPLY_MAX_CHARS,
  FORUM_REPLY_TOO_LONG_MESSAGE,
  LOGO_DENIED_MESSAGE,
  type ForumPostsResponse,
} from '@bytx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forumPosts } from '../src/db/schema/index';
import { FORUM_POST_RATE, FORUM_REPLY_RATE } from '../src/modules/forum/routes';
import { openDatabase } from '../src/db/client';
import {
  createTestUser,
  freshPostgresUrl,
  makeTestApp,
  PG_SKIP_REASON,
  PG_URL,
  type TestApp,
} from './helpers';

let ipCounter = 0;
/** Each test posts from its own address so the per-address rate limit of one test does not leak into another. */
const freshIp = () => `10.0.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;

describe('forum API', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp();
  });
  afterAll(async () => t.close());

  const post = (body: unknown, ip = freshIp()) =>
    t.app.inject({ method: 'POST', url: '/api/forum/posts', payload: body as object, remoteAddress: ip });
  const reply = (body: unknown, ip = freshIp()) =>
    t.app.inject({ method: 'POST', url: '/api/forum/replies', payload: body as object, remoteAddress: ip });
  const page = async (n?: number | string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: n === undefined ? '/api/forum/posts' : `/api/forum/posts?page=${n}`,
    });
    return res;
  };

  it('publishes a post as Anonymous whatever user is sent, and lists it with its replies', async () => {
    const res = await post({ user: 'alice@example.com', content: '  Hello forum  ' });
    expect(res.statusCode).toBe(201);
    const created = res.json<{ success: boolean; post: { id: number; user: string; content: string } }>();
    expect(created.success).toBe(true);
    expect(created.post).toMatchObject({ user: 'Anonymous', content: 'Hello forum', replies: [] });

    const r = await reply({ post_id: created.post.id, user: 'bob', content: 'First reply' });
    expect(r.statusCode).toBe(201);
    expect(r.json()).toMatchObject({
      success: true,
      reply: { post_id: created.post.id, user: 'Anonymous', content: 'First reply' },
    });
    // post_id may arrive as a numeric string too
    const r2 = await reply({ post_id: String(created.post.id), content: 'Second reply' });
    expect(r2.statusCode).toBe(201);

    const list = (await page(1)).json<ForumPostsResponse>();
    const found = list.posts.find((p) => p.id === created.post.id);
    expect(found).toBeDefined();
    expect(found!.user).toBe('Anonymous');
    expect(found!.replies.map((x) => x.content)).toEqual(['First reply', 'Second reply']);
    expect(found!.replies.every((x) => x.user === 'Anonymous')).toBe(true);
    expect(new Date(found!.timestamp).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('refuses blank and empty posts and replies with a clear 400, storing nothing', async () => {
    const before = (await page(1)).json<ForumPostsResponse>().total;
    for (const content of ['', '   ', '\n\t  \n']) {
      const res = await post({ user: 'x', content });
      expect(res.statusCode).toBe(400);
      expect(res.json<{ error: string }>().error).toContain(FORUM_EMPTY_POST_MESSAGE);
    }
    // Control characters (the rule of every request) and text-direction overrides (forum text).
    for (const [content, why] of [
      ['\u0000', /control character/],
      ['ok\u0007', /control character/],
      ['abc\u202Edef', /text-direction/],
      ['\u2066x\u2069', /text-direction/],
    ] as const) {
      const res = await post({ user: 'x', content });
      expect(res.statusCode).toBe(400);
      expect(res.json<{ error: string }>().error).toMatch(why);
    }
    const missing = await post({ user: 'x' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json<{ error: string }>().error).toMatch(/content/);

    const target = (await post({ content: 'target' })).json<{ post: { id: number } }>().post.id;
    const blankReply = await reply({ post_id: target, content: '    ' });
    expect(blankReply.statusCode).toBe(400);
    expect(blankReply.json<{ error: string }>().error).toContain(FORUM_EMPTY_REPLY_MESSAGE);

    const after = (await page(1)).json<ForumPostsResponse>();
    expect(after.total).toBe(before + 1);
    expect(after.posts.find((p) => p.id === target)!.replies).toEqual([]);
  });

  it('refuses over-long posts and replies with 400 and accepts exactly the limit', async () => {
    const tooLong = await post({ content: 'a'.repeat(FORUM_POST_MAX_CHARS + 1) });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json<{ error: string }>().error).toContain(FORUM_POST_TOO_LONG_MESSAGE);

    const atLimit = await post({ content: 'b'.repeat(FORUM_POST_MAX_CHARS) });
    expect(atLimit.statusCode).toBe(201);
    const id = atLimit.json<{ post: { id: number; content: string } }>().post.id;
    expect(atLimit.json<{ post: { content: string } }>().post.content).toHaveLength(FORUM_POST_MAX_CHARS);

    const longReply = await reply({ post_id: id, content: 'c'.repeat(FORUM_REPLY_MAX_CHARS + 1) });
    expect(longReply.statusCode).toBe(400);
    expect(longReply.json<{ error: string }>().error).toContain(FORUM_REPLY_TOO_LONG_MESSAGE);
    const okReply = await reply({ post_id: id, content: 'c'.repeat(FORUM_REPLY_MAX_CHARS) });
    expect(okReply.statusCode).toBe(201);

    // Counted in characters as a person (and the web text box, through textLength) counts them: an
    // emoji is one, though it is two UTF-16 units.
    const emojis = await post({ content: '😀'.repeat(FORUM_POST_MAX_CHARS) });
    expect(emojis.statusCode).toBe(201);
    const tooManyEmojis = await post({ content: '😀'.repeat(FORUM_POST_MAX_CHARS + 1) });
    expect(tooManyEmojis.statusCode).toBe(400);
    expect(textLength(`  ${'😀'.repeat(3)} \n`)).toBe(3);
  });

  it('stores markup as plain text and returns it unchanged (the client renders it as text)', async () => {
    const markup = '<script>window.__pwned = 1</script><img src=x onerror="alert(1)"> & <b>bold</b>';
    const res = await post({ content: markup });
    expect(res.statusCode).toBe(201);
    const id = res.json<{ post: { id: number } }>().post.id;
    const stored = await t.ctx.database.sql.query('SELECT content FROM forum_posts WHERE id = $1', [id]);
    expect(stored[0]?.content).toBe(markup);
    const list = await page(1);
    expect(list.headers['content-type']).toMatch(/application\/json/);
    expect(list.json<ForumPostsResponse>().posts.find((p) => p.id === id)?.content).toBe(markup);
  });

  it('answers 404 for a reply to a post that does not exist, and 400 for a malformed post_id', async () => {
    const res = await reply({ post_id: 987654321, content: 'hello?' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ success: false, error: expect.stringMatching(/does not exist/) });
    for (const post_id of [0, -1, 1.5, 'abc', null]) {
      const bad = await reply({ post_id, content: 'x' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json<{ error: string }>().error).toMatch(/post_id/);
    }
  });

  it('validates page: positive whole numbers only', async () => {
    for (const bad of ['0', '-1', '1.5', 'abc', '']) {
      const res = await page(bad);
      expect(res.statusCode).toBe(400);
      expect(res.json<{ error: string }>().error).toMatch(/page/);
    }
    const res = await page();
    expect(res.statusCode).toBe(200);
    expect(res.json<ForumPostsResponse>().page).toBe(1);
  });

  it('rate-limits posting per address with a clear 429 message, other addresses unaffected', async () => {
    const ip = freshIp();
    for (let i = 0; i < FORUM_POST_RATE.max; i++) {
      expect((await post({ content: `burst ${i}` }, ip)).statusCode).toBe(201);
    }
    const limited = await post({ content: 'one too many' }, ip);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({
      success: false,
      error: expect.stringMatching(
        /^Too many forum posts from your address: at most 5 a minute\. Please wait \d+ seconds/,
      ),
    });
    expect((await post({ content: 'another address' }, freshIp())).statusCode).toBe(201);
    const list = (await page(1)).json<ForumPostsResponse>();
    expect(list.posts.some((p) => p.content === 'one too many')).toBe(false);

    const rip = freshIp();
    const target = list.posts[0]!.id;
    for (let i = 0; i < FORUM_REPLY_RATE.max; i++) {
      expect((await reply({ post_id: target, content: `r${i}` }, rip)).statusCode).toBe(201);
    }
    const limitedReply = await reply({ post_id: target, content: 'too many' }, rip);
    expect(limitedReply.statusCode).toBe(429);
    expect(limitedReply.json<{ error: string }>().error).toMatch(/Too many forum replies/);
  });
});

function paginationSuite(driver: 'PGlite' | 'PostgreSQL') {
  describe(`forum pagination over more than 100 posts (${driver})`, () => {
    let t: TestApp;
    let drop: (() => Promise<void>) | undefined;
    const TOTAL = 2 * FORUM_PAGE_SIZE + 7; // 107 posts -> 3 pages
    beforeAll(async () => {
      if (driver === 'PostgreSQL') {
        const pg = await freshPostgresUrl();
        drop = pg.drop;
        t = await makeTestApp(
          { DATABASE_URL: pg.url },
          { database: await openDatabase({ databaseUrl: pg.url, dataDir: 'memory://' }) },
        );
      } else {
        t = await makeTestApp();
      }
      // Bulk rows go straight in (the API's rate limit would refuse a burst of 107), one by one so ids ascend.
      for (let i = 1; i <= TOTAL; i++) {
        await t.ctx.db.insert(forumPosts).values({ content: `post #${i}` });
      }
    });
    afterAll(async () => {
      await t?.close();
      if (t && driver === 'PostgreSQL') await t.ctx.database.close();
      await drop?.();
    });

    const get = async (n: number) =>
      (await t.app.inject({ method: 'GET', url: `/api/forum/posts?page=${n}` })).json<ForumPostsResponse>();

    it('pages 50 at a time, newest first, with the right page count', async () => {
      const p1 = await get(1);
      expect(p1).toMatchObject({ success: true, page: 1, pages: 3, total: TOTAL, page_size: 50 });
      expect(p1.posts).toHaveLength(50);
      expect(p1.posts[0]!.content).toBe(`post #${TOTAL}`);
      expect(p1.posts[49]!.content).toBe(`post #${TOTAL - 49}`);

      const p2 = await get(2);
      expect(p2.posts).toHaveLength(50);
      expect(p2.posts[0]!.content).toBe(`post #${TOTAL - 50}`);

      const p3 = await get(3);
      expect(p3).toMatchObject({ page: 3, pages: 3, total: TOTAL });
      expect(p3.posts.map((p) => p.content)).toEqual(Array.from({ length: 7 }, (_, i) => `post #${7 - i}`));

      // Every post exactly once across the pages, ids strictly descending.
      const ids = [...p1.posts, ...p2.posts, ...p3.posts].map((p) => p.id);
      expect(new Set(ids).size).toBe(TOTAL);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
    });

    it('answers a page past the end with an empty list and the correct page count', async () => {
      const p4 = await get(4);
      expect(p4).toMatchObject({ success: true, page: 4, pages: 3, total: TOTAL, posts: [] });
      const far = await get(9007199254740991);
      expect(far).toMatchObject({ pages: 3, posts: [] });
    });

    it('puts a new post first on page 1', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/forum/posts',
        payload: { user: 'anonimo', content: 'the newest' },
        remoteAddress: '10.9.9.9',
      });
      expect(res.statusCode).toBe(201);
      const p1 = await get(1);
      expect(p1.posts[0]!.content).toBe('the newest');
      expect(p1.total).toBe(TOTAL + 1);
    });
  });
}

paginationSuite('PGlite');
if (!PG_URL) console.log(`[skip] ${PG_SKIP_REASON}`);
describe.skipIf(!PG_URL)('on PostgreSQL', () => paginationSuite('PostgreSQL'));

describe('forum with no posts', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp();
  });
  afterAll(async () => t.close());

  it('answers page 1 with no posts and one page', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/forum/posts?page=1' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, posts: [], page: 1, pages: 1, total: 0, page_size: 50 });
  });
});

describe('token-logo gate: GET /api/peliculas-series/access', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp({ LOGO_ALLOWLIST_EMAILS: 'Allowed@Example.com, second@example.com' });
  });
  afterAll(async () => t.close());

  const access = (headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: '/api/peliculas-series/access', headers });

  it('lets an allow-listed account in (emails compared case-insensitively)', async () => {
    const u = await createTestUser(t, 'allowed@example.com');
    const res = await access(u.auth);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true });
    const second = await createTestUser(t, 'second@example.com');
    expect((await access(second.auth)).statusCode).toBe(200);
  });

  it('refuses any other account with 403 and the spec message', async () => {
    const u = await createTestUser(t, 'someone@example.com');
    const res = await access(u.auth);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ success: false, error: LOGO_DENIED_MESSAGE });
  });

  it('refuses an anonymous visitor or a bad token with 401', async () => {
    expect((await access()).statusCode).toBe(401);
    expect((await access({ authorization: 'Bearer not-a-token' })).statusCode).toBe(401);
  });

  it('refuses everyone when the allow-list is empty', async () => {
    const empty = await makeTestApp();
    try {
      const u = await createTestUser(empty, 'allowed@example.com');
      const res = await empty.app.inject({
        method: 'GET',
        url: '/api/peliculas-series/access',
        headers: u.auth,
      });
      expect(res.statusCode).toBe(403);
    } finally {
      await empty.close();
    }
  });
});
