import type {
  CreatePostResponse,
  CreateReplyResponse,
  ForumPostsResponse,
  LogoAccessResponse,
} from '@bytx/contract';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../shared/api/client';

export const forumKeys = {
  all: ['forum', 'posts'] as const,
  page: (page: number) => ['forum', 'posts', page] as const,
};

export const forumApi = {
  posts: (page: number) => api<ForumPostsResponse>('/api/forum/posts', { query: { page } }),
  // Posting is not tied to a user (spec part 1 §6): no session token is sent, `user` is informational.
  createPost: (user: string, content: string) =>
    api<CreatePostResponse>('/api/forum/posts', { method: 'POST', body: { user, content }, token: null }),
  createReply: (post_id: number, user: string, content: string) =>
    api<CreateReplyResponse>('/api/forum/replies', {
      method: 'POST',
      body: { post_id, user, content },
      token: null,
    }),
  /** 200 for the allow-listed accounts; ApiError 403 'Acceso denegado. Solo usuarios autorizados.' otherwise. */
  logoAccess: () => api<LogoAccessResponse>('/api/peliculas-series/access'),
};

export function useForumPosts(page: number) {
  return useQuery({
    queryKey: forumKeys.page(page),
    queryFn: () => forumApi.posts(page),
    placeholderData: keepPreviousData,
  });
}

export function useCreatePost() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ user, content }: { user: string; content: string }) => forumApi.createPost(user, content),
    onSuccess: () => qc.invalidateQueries({ queryKey: forumKeys.all }),
  });
}

export function useCreateReply() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ postId, user, content }: { postId: number; user: string; content: string }) =>
      forumApi.createReply(postId, user, content),
    onSuccess: () => qc.invalidateQueries({ queryKey: forumKeys.all }),
  });
}
