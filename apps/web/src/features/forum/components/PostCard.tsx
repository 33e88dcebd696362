import { FORUM_REPLY_MAX_CHARS, type ForumPost } from '@bytx/contract';
import { Card, Divider, Group, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useSession, userIdOf } from '../../../shared/session/session';
import { useCreateReply } from '../api/forum';
import { PostBox } from './PostBox';

export function formatWhen(iso: string, language: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' }).format(d);
}

/**
 * One post with its replies. Content is rendered as a React text node (escaped): markup in a post is
 * shown as the characters typed, never parsed as HTML.
 */
export function PostCard({ post }: { post: ForumPost }) {
  const { t, i18n } = useTranslation();
  const { user } = useSession();
  const createReply = useCreateReply();

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
        {post.replies.map((r) => (
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
        <PostBox
          testId="forum-reply-box"
          maxChars={FORUM_REPLY_MAX_CHARS}
          minRows={1}
          placeholder={t('forum.replyPlaceholder')}
          submitLabel={t('forum.reply')}
          pending={createReply.isPending}
          onSubmit={(content) => createReply.mutateAsync({ postId: post.id, user: userIdOf(user), content })}
        />
      </Stack>
    </Card>
  );
}
