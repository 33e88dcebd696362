import { z } from 'zod';
import { textLength, textProblem } from './input';

/** Spec part 1 §9: 50 posts a page, newest first. */
export const FORUM_PAGE_SIZE = 50;
/** Content limits (the spec leaves them open; docs/forum.md). Counted by `textLength`: code points after trimming. */
export const FORUM_POST_MAX_CHARS = 2000;
export const FORUM_REPLY_MAX_CHARS = 1000;
/** Every post and reply is authored as 'Anonymous' (spec part 1 §3), whatever `user` the client sends. */
export const FORUM_AUTHOR = 'Anonymous';
/** Spec part 1 §2 and §8: the token-logo refusal, shown as an alert. */
export const LOGO_DENIED_MESSAGE = 'Acceso denegado. Solo usuarios autorizados.';

export const FORUM_EMPTY_POST_MESSAGE = 'The post is empty: write something before publishing.';
export const FORUM_EMPTY_REPLY_MESSAGE = 'The reply is empty: write something before sending.';
export const FORUM_POST_TOO_LONG_MESSAGE = `A post can be at most ${FORUM_POST_MAX_CHARS} characters long.`;
export const FORUM_REPLY_TOO_LONG_MESSAGE = `A reply can be at most ${FORUM_REPLY_MAX_CHARS} characters long.`;

/**
 * Forum text: trimmed; blank, control and text-direction characters refused; the length counted
 * by `textLength` (code points after trimming), as the web client counts it.
 * Stored and returned as plain text: the client renders it as text, never as HTML.
 */
const forumText = (emptyMessage: string, max: number, tooLongMessage: string) =>
  z
    .string({ message: 'content must be text' })
    .transform((s) => s.trim())
    .superRefine((s, ctx) => {
      const bad = textProblem(s, 'content');
      if (bad) ctx.addIssue({ code: 'custom', message: bad });
      else if (s.length === 0) ctx.addIssue({ code: 'custom', message: emptyMessage });
      else if (textLength(s) > max) ctx.addIssue({ code: 'custom', message: tooLongMessage });
    });

/** The spec's calls send `user` (email, id or 'anonimo'); the forum ignores it (posting is not tied to a user). */
const ignoredUser = z
  .string({ message: 'user must be text' })
  .max(320, { message: 'user is too long' })
  .nullish();

export const forumPageQuery = z.object({
  page: z
    .union([
      z.number(),
      z.string().trim().regex(/^\d+$/, { message: 'page must be a positive whole number' }),
    ])
    .transform(Number)
    .pipe(
      z
        .number()
        .int({ message: 'page must be a positive whole number' })
        .min(1, { message: 'page must be a positive whole number' })
        .max(Number.MAX_SAFE_INTEGER, { message: 'page is too large' }),
    )
    .default(1),
});
export type ForumPageQuery = z.input<typeof forumPageQuery>;

export const postIdField = z
  .union([
    z.number(),
    z.string().trim().regex(/^\d+$/, { message: 'post_id must be a positive whole number' }),
  ])
  .transform(Number)
  .pipe(
    z
      .number()
      .int({ message: 'post_id must be a positive whole number' })
      .min(1, { message: 'post_id must be a positive whole number' })
      .max(Number.MAX_SAFE_INTEGER, { message: 'post_id is too large' }),
  );

export const createPostRequest = z.object({
  user: ignoredUser,
  content: forumText(FORUM_EMPTY_POST_MESSAGE, FORUM_POST_MAX_CHARS, FORUM_POST_TOO_LONG_MESSAGE),
});
export type CreatePostRequest = z.input<typeof createPostRequest>;

export const createReplyRequest = z.object({
  post_id: postIdField,
  user: ignoredUser,
  content: forumText(FORUM_EMPTY_REPLY_MESSAGE, FORUM_REPLY_MAX_CHARS, FORUM_REPLY_TOO_LONG_MESSAGE),
});
export type CreateReplyRequest = z.input<typeof createReplyRequest>;

export const forumReply = z.object({
  id: z.number().int(),
  post_id: z.number().int(),
  user: z.string(),
  content: z.string(),
  /** ISO 8601 */
  timestamp: z.string(),
});
export type ForumReply = z.infer<typeof forumReply>;

export const forumPost = z.object({
  id: z.number().int(),
  user: z.string(),
  content: z.string(),
  /** ISO 8601 */
  timestamp: z.string(),
  /** Oldest first, in conversation order. */
  replies: z.array(forumReply),
});
export type ForumPost = z.infer<typeof forumPost>;

export const forumPostsResponse = z.object({
  success: z.literal(true),
  posts: z.array(forumPost),
  page: z.number().int(),
  /** At least 1, even with no posts. */
  pages: z.number().int(),
  total: z.number().int(),
  page_size: z.number().int(),
});
export type ForumPostsResponse = z.infer<typeof forumPostsResponse>;

export const createPostResponse = z.object({ success: z.literal(true), post: forumPost });
export type CreatePostResponse = z.infer<typeof createPostResponse>;

export const createReplyResponse = z.object({ success: z.literal(true), reply: forumReply });
export type CreateReplyResponse = z.infer<typeof createReplyResponse>;

/** GET /api/peliculas-series/access: 200 for the allow-listed emails, else 403 LOGO_DENIED_MESSAGE. */
export const logoAccessResponse = z.object({ success: z.literal(true) });
export type LogoAccessResponse = z.infer<typeof logoAccessResponse>;
