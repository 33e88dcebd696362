import { Button, Group, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { pageButtons } from './pageButtons';

export function PageButtons({
  pages,
  current,
  onChange,
}: {
  pages: number;
  current: number;
  onChange: (page: number) => void;
}) {
  const { t } = useTranslation();
  if (pages <= 1) return null;
  return (
    <Group
      gap={6}
      justify="center"
      component="nav"
      aria-label={t('forum.pagination')}
      data-testid="forum-pages"
    >
      {pageButtons(pages, current).map((b) =>
        typeof b === 'number' ? (
          <Button
            key={b}
            size="compact-sm"
            variant={b === current ? 'filled' : 'default'}
            aria-current={b === current ? 'page' : undefined}
            aria-label={t('forum.pageN', { page: b })}
            data-testid={`forum-page-${b}`}
            onClick={() => onChange(b)}
          >
            {b}
          </Button>
        ) : (
          <Text key={b} c="dimmed" aria-hidden>
            …
          </Text>
        ),
      )}
    </Group>
  );
}
