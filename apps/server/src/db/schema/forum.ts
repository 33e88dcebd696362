import { bigint, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Forum posts (spec part 1 §3): not tied to a user, authored as 'Anonymous'. Content is plain text. */
export const forumPosts = pgTable('forum_posts', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  author: text('author').notNull().default('Anonymous'),
  content: text('content').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const forumReplies = pgTable(
  'forum_replies',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    postId: bigint('post_id', { mode: 'number' })
      .notNull()
      .references(() => forumPosts.id, { onDelete: 'cascade' }),
    author: text('author').notNull().default('Anonymous'),
    content: text('content').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('forum_replies_post_id_idx').on(t.postId, t.id)],
);
