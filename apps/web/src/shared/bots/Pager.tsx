import { Button, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { pageWindow } from './format';

/** Anterior / page buttons (at most 7) / Siguiente. */
export function Pager({
  page,
  pages,
  onPage,
  testId,
}: {
  page: number;
  pages: number;
  onPage: (p: number) => void;
  testId?: string;
}) {
  const { t } = useTranslation();
  if (pages <= 1) return null;
  return (
    <Group gap={4} justify="center" data-testid={testId}>
      <Button size="xs" variant="default" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t('bots.history.prev')}
      </Button>
      {pageWindow(page, pages).map((p) => (
        <Button key={p} size="xs" variant={p === page ? 'filled' : 'default'} onClick={() => onPage(p)}>
          {p}
        </Button>
      ))}
      <Button size="xs" variant="default" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        {t('bots.history.next')}
      </Button>
    </Group>
  );
}
