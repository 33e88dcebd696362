import {
  FORUM_AUTHOR,
  FORUM_PAGE_SIZE,
  type ForumPost,
  type ForumPostsResponse,
  type ForumReply,
} from '@bytx/contract';
import { notFound } from '../../lib/errors';
import type { ForumRepository, PostRow, ReplyRow } from './forum.repository';

export const REPLY_TO_MISSING_POST_MESSAGE = 'That post does not exist (it may have been removed).';

const toReply = (r: ReplyRow): ForumReply => ({
  id: r.id,
  post_id: r.postId,
  user: r.author,
  content: r.content,
  timestamp: r.createdAt.toISOString(),
});

const toPost = (p: PostRow, replies: ReplyRow[]): ForumPost => ({
  id: p.id,
  user: p.author,
  content: p.content,
  timestamp: p.createdAt.toISOString(),
  replies: replies.map(toReply),
});

export class ForumService {
  constructor(private readonly repo: ForumRepository) {}

  /** One page of posts, newest first, each with its replies; a page past the end is empty. */
  async page(page: number): Promise<ForumPostsResponse> {
    const total = await this.repo.countPosts();
    const pages = Math.max(1, Math.ceil(total / FORUM_PAGE_SIZE));
    const base = { success: true as const, page, pages, total, page_size: FORUM_PAGE_SIZE };
    if (page > pages) return { ...base, posts: [] };
    const rows = await this.repo.listPosts(FORUM_PAGE_SIZE, (page - 1) * FORUM_PAGE_SIZE);
    const replies = await this.repo.repliesOf(rows.map((r) => r.id));
    const byPost = new Map<number, ReplyRow[]>();
    for (const r of replies) {
      const list = byPost.get(r.postId);
      if (list) list.push(r);
      else byPost.set(r.postId, [r]);
    }
    return { ...base, posts: rows.map((p) => toPost(p, byPost.get(p.id) ?? [])) };
  }

  /** Content arrives validated (trimmed, non-blank, within the limit); the author is always 'Anonymous'. */
  async createPost(content: string): Promise<ForumPost> {
    const row = await this.repo.insertPost(FORUM_AUTHOR, content);
    return toPost(row, []);
  }

  async createReply(postId: number, content: string): Promise<ForumReply> {
    const row = await this.repo.insertReply(postId, FORUM_AUTHOR, content);
    if (!row) throw notFound(REPLY_TO_MISSING_POST_MESSAGE);
    return toReply(row);
  }
}
