import { FORUM_REPLY_MAX_CHARS, type ForumPost } from '@bytx/contract';
import { Button, Card, Divider, Group, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession, userIdOf } from '../../../shared/session/session';
import { useCreateReply } from '../api/forum';
import { PostBox } from './PostBox';

export function formatWhen(iso: string, language: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' }).format(d);
}

/** Replies shown before "Show N more replies" (issue 40 point 7: long threads collapsed). */
export const THREAD_PREVIEW = 3;

/**
 * One post with its replies: the first THREAD_PREVIEW, the rest behind a button; the reply box behind
 * a Reply button (an always-open box under every post made the page a column of text areas). Content is rendered as a React text node (escaped): markup in a post is
 * shown as the characters typed, never parsed as HTML.
 */
export function PostCard({ post }: { post: ForumPost }) {
  const { t, i18n } = useTranslation();
  const { user } = useSession();
  const createReply = useCreateReply();
  const [replying, setReplying] = useState(false);
  const [allReplies, setAllReplies] = useState(false);
  const hidden = allReplies ? 0 : Math.max(0, post.replies.length - THREAD_PREVIEW);
  const replies = hidden > 0 ? post.replies.slice(0, THREAD_PREVIEW) : post.replies;

  return (
    <Card withBorder padding="md" data-testid="forum-post" data-post-id={post.id}>
      <Group justify="space-between" mb={4}>
        <Text fw={600} size="sm">
          {post.user}
        </Text>
        <Text size="xs" c="dimmed" component="time" dateTime={post.timestamp}>
          {formatWhen(post.timestamp, i18n.language)}
        </Text>
      </Group>
      <Text style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }} data-testid="forum-post-content">
        {post.content}
      </Text>

      <Divider my="sm" label={t('forum.replies', { count: post.replies.length })} labelPosition="left" />
      <Stack gap="xs" pl="md" data-testid="forum-replies">
        {replies.map((r) => (
          <div key={r.id} data-testid="forum-reply">
            <Group gap="xs">
              <Text fw={600} size="xs">
                {r.user}
              </Text>
              <Text size="xs" c="dimmed" component="time" dateTime={r.timestamp}>
                {formatWhen(r.timestamp, i18n.language)}
              </Text>
            </Group>
            <Text
              size="sm"
              style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}
              data-testid="forum-reply-content"
            >
              {r.content}
            </Text>
          </div>
        ))}
        {hidden > 0 && (
          <Button
            variant="subtle"
            size="compact-xs"
            style={{ alignSelf: 'flex-start' }}
            onClick={() => setAllReplies(true)}
            data-testid="forum-more-replies"
          >
            {t('forum.moreReplies', { count: hidden })}
          </Button>
        )}
        {replying ? (
          <Stack gap={4}>
            <PostBox
              testId="forum-reply-box"
              maxChars={FORUM_REPLY_MAX_CHARS}
              minRows={1}
              autoFocus
              placeholder={t('forum.replyPlaceholder')}
              submitLabel={t('forum.reply')}
              pending={createReply.isPending}
              onSubmit={async (content) => {
                await createReply.mutateAsync({ postId: post.id, user: userIdOf(user), content });
                setReplying(false);
                // The new reply is the last one: show the whole thread so it can be seen.
                setAllReplies(true);
              }}
            />
            <Button
              variant="subtle"
              color="gray"
              size="compact-xs"
              style={{ alignSelf: 'flex-start' }}
              onClick={() => setReplying(false)}
              data-testid="forum-reply-cancel"
            >
              {t('common.cancel')}
            </Button>
          </Stack>
        ) : (
          <Button
            variant="light"
            size="compact-sm"
            style={{ alignSelf: 'flex-start' }}
            onClick={() => setReplying(true)}
            data-testid="forum-reply-open"
          >
            {t('forum.reply')}
          </Button>
        )}
      </Stack>
    </Card>
  );
}
