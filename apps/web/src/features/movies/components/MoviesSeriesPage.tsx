import { Alert, Center, Container, List, Loader, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useConfirm } from '../../../shared/ui/ConfirmDialog';
import { checkMoviesAccess } from '../api/access';

/**
 * /peliculas-series: the token-logo area (spec part 1 §2 Forum). Login is checked by the route guard;
 * the allow-list by the server, so a typed-in URL is refused too: the denial is shown and the visitor
 * goes to / once the denial (the app's own dialog, in the user's language) is closed. The spec does not
 * show the contents, so the page says so honestly.
 */
export function MoviesSeriesPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const access = useQuery({
    queryKey: ['movies', 'access'],
    queryFn: checkMoviesAccess,
    retry: false,
    staleTime: 0,
    gcTime: 0,
  });
  const denied = useRef(false);
  const [ask, dialog] = useConfirm();

  useEffect(() => {
    if (!access.isError || denied.current) return;
    denied.current = true;
    void ask(t('movies.denied'), { alert: true }).then(() => navigate('/', { replace: true }));
  }, [access.isError, navigate, ask, t]);

  if (access.isPending) {
    return (
      <Center py="xl" data-testid="movies-checking">
        <Loader size="sm" mr="sm" />
        <Text c="dimmed">{t('movies.checking')}</Text>
      </Center>
    );
  }
  if (access.isError) {
    return (
      <Container size="sm" py="xl">
        <Alert color="red" variant="light" data-testid="movies-denied">
          {t('movies.denied')}
        </Alert>
        {dialog}
      </Container>
    );
  }

  const items = t('movies.placeholderItems', { returnObjects: true }) as string[];
  return (
    <Container size="md" py="lg" data-testid="movies-page">
      <Title order={1} size="h2">
        {t('movies.title')}
      </Title>
      <Text mt="sm">{t('movies.intro')}</Text>
      <Alert variant="light" color="yellow" mt="md" title={t('movies.placeholderTitle')}>
        {t('movies.placeholderNote')}
      </Alert>
      <List mt="md" data-testid="movies-placeholder-list">
        {Array.isArray(items) && items.map((item) => <List.Item key={item}>{item}</List.Item>)}
      </List>
    </Container>
  );
}
