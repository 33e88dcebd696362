import { asc, count, desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { forumPosts, forumReplies } from '../../db/schema/index';

export type PostRow = typeof forumPosts.$inferSelect;
export type ReplyRow = typeof forumReplies.$inferSelect;

export class ForumRepository {
  constructor(private readonly db: Db) {}

  async countPosts(): Promise<number> {
    const [row] = await this.db.select({ n: count() }).from(forumPosts);
    return Number(row?.n ?? 0);
  }

  /** Newest first: identity ids grow with insertion order, so `id DESC` is creation order reversed. */
  async listPosts(limit: number, offset: number): Promise<PostRow[]> {
    return this.db.select().from(forumPosts).orderBy(desc(forumPosts.id)).limit(limit).offset(offset);
  }

  /** Replies of the given posts, oldest first. */
  async repliesOf(postIds: number[]): Promise<ReplyRow[]> {
    if (postIds.length === 0) return [];
    return this.db
      .select()
      .from(forumReplies)
      .where(inArray(forumReplies.postId, postIds))
      .orderBy(asc(forumReplies.postId), asc(forumReplies.id));
  }

  async postExists(id: number): Promise<boolean> {
    const [row] = await this.db
      .select({ id: forumPosts.id })
      .from(forumPosts)
      .where(eq(forumPosts.id, id))
      .limit(1);
    return row !== undefined;
  }

  async insertPost(author: string, content: string): Promise<PostRow> {
    const [row] = await this.db.insert(forumPosts).values({ author, content }).returning();
    if (!row) throw new Error('forum post insert returned nothing');
    return row;
  }

  /** Returns null when the post does not exist (or was deleted meanwhile). */
  async insertReply(postId: number, author: string, content: string): Promise<ReplyRow | null> {
    if (!(await this.postExists(postId))) return null;
    try {
      const [row] = await this.db.insert(forumReplies).values({ postId, author, content }).returning();
      return row ?? null;
    } catch (err) {
      // The post went between the check and the insert: foreign-key violation.
      if ((err as { code?: string }).code === '23503') return null;
      throw err;
    }
  }
}
