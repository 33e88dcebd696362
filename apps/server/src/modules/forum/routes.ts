import {
  createPostRequest,
  createPostResponse,
  createReplyRequest,
  createReplyResponse,
  errorResponse,
  forumPageQuery,
  forumPostsResponse,
  logoAccessResponse,
} from '@bytx/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context';
import { tableCache } from '../../db/table-cache';
import { serializeAs } from '../../lib/serialize';
import { tooManyRequests } from '../../lib/errors';
import { requireLogoAllowlist } from '../accounts/index';
import { ForumRepository } from './forum.repository';
import { ForumService } from './forum.service';

/** Per client address (docs/forum.md). Posts: 5 a minute; replies: 10 a minute. */
export const FORUM_POST_RATE = { max: 5, timeWindow: 60_000 };
export const FORUM_REPLY_RATE = { max: 10, timeWindow: 60_000 };

const rateLimited = (what: 'posts' | 'replies', limit: { max: number; timeWindow: number }) => ({
  ...limit,
  errorResponseBuilder: (_req: FastifyRequest, context: { ttl: number }) =>
    tooManyRequests(
      `Too many forum ${what} from your address: at most ${limit.max} a minute. Please wait ${Math.max(
        1,
        Math.ceil(context.ttl / 1000),
      )} seconds and try again.`,
    ),
});

export const forumRoutes: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  const service = new ForumService(new ForumRepository(ctx.db));
  /**
   * Each page's answer, serialized, kept until the next write to the forum's tables by anyone
   * (db/table-cache.ts): a page read its count, its posts and their replies (three queries) and was
   * serialized through its schema on every call.
   */
  const pages = tableCache<string>(ctx, /\bforum_(posts|replies)\b/i);

  app.get(
    '/api/forum/posts',
    {
      schema: {
        tags: ['forum'],
        summary: 'One page of forum posts (50 a page, newest first) with their replies',
        querystring: forumPageQuery,
        response: { 200: forumPostsResponse, 400: errorResponse },
      },
    },
    async (request, reply) => {
      const { page } = request.query;
      const body = await pages.get(String(page), async () =>
        serializeAs(forumPostsResponse, await service.page(page)),
      );
      return (reply as FastifyReply).type('application/json; charset=utf-8').send(body);
    },
  );

  app.post(
    '/api/forum/posts',
    {
      config: { rateLimit: rateLimited('posts', FORUM_POST_RATE) },
      schema: {
        tags: ['forum'],
        summary: "Publish a post (no login needed; authored as 'Anonymous')",
        body: createPostRequest,
        response: { 201: createPostResponse, 400: errorResponse, 429: errorResponse },
      },
    },
    async (request, reply) => {
      const post = await service.createPost(request.body.content);
      return reply.status(201).send({ success: true as const, post });
    },
  );

  app.post(
    '/api/forum/replies',
    {
      config: { rateLimit: rateLimited('replies', FORUM_REPLY_RATE) },
      schema: {
        tags: ['forum'],
        summary: "Reply to a post (no login needed; authored as 'Anonymous')",
        body: createReplyRequest,
        response: { 201: createReplyResponse, 400: errorResponse, 404: errorResponse, 429: errorResponse },
      },
    },
    async (request, reply) => {
      const created = await service.createReply(request.body.post_id, request.body.content);
      return reply.status(201).send({ success: true as const, reply: created });
    },
  );

  app.get(
    '/api/peliculas-series/access',
    {
      // The allow-list check is the accounts module's role helper (one definition of who is allowed).
      preHandler: [app.authenticate, requireLogoAllowlist(ctx.config)],
      schema: {
        tags: ['forum'],
        summary: 'Whether the logged-in user may open /peliculas-series (LOGO_ALLOWLIST_EMAILS)',
        security: [{ bearer: [] }],
        response: { 200: logoAccessResponse, 401: errorResponse, 403: errorResponse },
      },
    },
    async () => ({ success: true as const }),
  );
};
