import { FORUM_PAGE_SIZE, FORUM_POST_MAX_CHARS } from '@bytx/contract';
import { Alert, Button, Card, Center, Container, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../shared/api/client';
import { useSession, userIdOf } from '../../../shared/session/session';
import { useCreatePost, useForumPosts } from '../api/forum';
import { PageButtons } from './PageButtons';
import { serverSlice, VIEW_PAGE_SIZE, viewPages } from './pageButtons';
import { PostBox } from './PostBox';
import { PostCard } from './PostCard';
import { TokenLogo } from './TokenLogo';

/**
 * /forum (spec part 1 §2): post box, posts with replies, newest first. The server pages by 50 (the
 * spec's); the screen shows 10 at a time (issue 40 point 7: 52 posts made an 11,000 px page), page
 * buttons numbered in order.
 */
export function ForumPage() {
  const { t } = useTranslation();
  const { user } = useSession();
  /** The screen page (10 posts), not the server's. */
  const [page, setPage] = useState(1);
  const at = serverSlice(page, FORUM_PAGE_SIZE);
  const posts = useForumPosts(at.page);
  const createPost = useCreatePost();
  const data = posts.data;
  // While another server page loads, the previous one stays (dimmed): its first posts, not a wrong slice.
  const offset = data?.page === at.page ? at.offset : 0;
  const shown = data?.posts.slice(offset, offset + VIEW_PAGE_SIZE) ?? [];
  const pages = viewPages(data?.total ?? 0);
  const listTop = useRef<HTMLDivElement>(null);
  const goTo = (p: number) => {
    setPage(p);
    // The buttons are under the list: the next page is read from its top.
    listTop.current?.scrollIntoView?.({ block: 'start' });
  };

  return (
    <Container size="md" py="lg" data-testid="forum-page">
      <Group gap="md" mb="md">
        <TokenLogo />
        <div>
          <Title order={1} size="h2">
            {t('forum.title')}
          </Title>
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

      <div ref={listTop} />
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
      ) : data && shown.length === 0 ? (
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
          {shown.map((p) => (
            <PostCard key={p.id} post={p} />
          ))}
        </Stack>
      )}

      {data && (
        <Stack gap={4} mt="lg" align="center">
          <PageButtons pages={pages} current={page} onChange={goTo} />
          <Text size="xs" c="dimmed" data-testid="forum-page-of">
            {t('forum.pageOf', { page, pages, total: data.total, size: VIEW_PAGE_SIZE })}
          </Text>
        </Stack>
      )}
    </Container>
  );
}
