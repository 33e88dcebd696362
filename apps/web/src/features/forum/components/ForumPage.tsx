import { FORUM_POST_MAX_CHARS } from '@bytx/contract';
import { Alert, Button, Card, Center, Container, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../shared/api/client';
import { useSession, userIdOf } from '../../../shared/session/session';
import { useCreatePost, useForumPosts } from '../api/forum';
import { PageButtons } from './PageButtons';
import { PostBox } from './PostBox';
import { PostCard } from './PostCard';
import { TokenLogo } from './TokenLogo';

/** /forum (spec part 1 §2): post box, posts with replies, 50 a page newest first, page buttons descending. */
export function ForumPage() {
  const { t } = useTranslation();
  const { user } = useSession();
  const [page, setPage] = useState(1);
  const posts = useForumPosts(page);
  const createPost = useCreatePost();
  const data = posts.data;

  return (
    <Container size="md" py="lg" data-testid="forum-page">
      <Group gap="md" mb="md">
        <TokenLogo />
        <div>
          <Title order={2}>{t('forum.title')}</Title>
          <Text c="dimmed" size="sm">
            {t('forum.subtitle')}
          </Text>
        </div>
      </Group>

      <Card withBorder padding="md" mb="lg">
        <PostBox
          testId="forum-post-box"
          maxChars={FORUM_POST_MAX_CHARS}
          placeholder={t('forum.postPlaceholder')}
          submitLabel={t('forum.publish')}
          pending={createPost.isPending}
          onSubmit={async (content) => {
            await createPost.mutateAsync({ user: userIdOf(user), content });
            setPage(1);
          }}
        />
      </Card>

      {posts.isPending ? (
        <Center py="xl" data-testid="forum-loading">
          <Loader size="sm" mr="sm" />
          <Text c="dimmed">{t('forum.loading')}</Text>
        </Center>
      ) : posts.isError ? (
        <Alert color="red" variant="light" title={t('forum.loadFailed')} data-testid="forum-load-error">
          <Text size="sm">{errorMessage(posts.error)}</Text>
          <Button size="xs" mt="xs" variant="default" onClick={() => void posts.refetch()}>
            {t('forum.retry')}
          </Button>
        </Alert>
      ) : data && data.posts.length === 0 ? (
        <Stack align="center" py="xl" gap="xs" data-testid="forum-empty">
          <Text c="dimmed">{data.total === 0 ? t('forum.empty') : t('forum.pageEmpty')}</Text>
          {data.total > 0 && (
            <Button size="xs" variant="default" onClick={() => setPage(1)}>
              {t('forum.backToFirst')}
            </Button>
          )}
        </Stack>
      ) : (
        <Stack gap="md" data-testid="forum-posts" style={{ opacity: posts.isPlaceholderData ? 0.6 : 1 }}>
          {data?.posts.map((p) => (
            <PostCard key={p.id} post={p} />
          ))}
        </Stack>
      )}

      {data && (
        <Stack gap={4} mt="lg" align="center">
          <PageButtons pages={data.pages} current={page} onChange={setPage} />
          <Text size="xs" c="dimmed">
            {t('forum.pageOf', { page, pages: data.pages, total: data.total, size: data.page_size })}
          </Text>
        </Stack>
      )}
    </Container>
  );
}
