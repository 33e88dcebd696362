-- Forum (spec part 1 §2, §3): posts and their replies, not tied to a user, authored 'Anonymous'.
-- Content is plain text, trimmed and length-checked by the server (docs/forum.md); the CHECKs are the backstop.
CREATE TABLE forum_posts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  author text NOT NULL DEFAULT 'Anonymous',
  content text NOT NULL CHECK (length(content) BETWEEN 1 AND 2000),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE forum_replies (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  post_id bigint NOT NULL REFERENCES forum_posts(id) ON DELETE CASCADE,
  author text NOT NULL DEFAULT 'Anonymous',
  content text NOT NULL CHECK (length(content) BETWEEN 1 AND 1000),
  created_at timestamptz NOT NULL DEFAULT now()
);
-- A page's replies are read by post, oldest first.
CREATE INDEX forum_replies_post_id_idx ON forum_replies(post_id, id);
