import { Button, Group, Loader, Modal, Paper, Text, Title } from '@mantine/core';
import { lazy, Suspense, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { EarningsHistoryPoint } from '../api/earnings';

const EarningsChart = lazy(() => import('./EarningsChart'));

/**
 * The pool size and the user's rewards over time, our own chart in place of the third-party frames
 * (which an offline install cannot load), with the expandable chart modal.
 */
export function ChartPanel({ points, loading }: { points: EarningsHistoryPoint[]; loading: boolean }) {
  const { t } = useTranslation();
  const [expanded, setExpanded] = useState(false);
  const titles = useMemo(
    () => ({ pool: t('earnings.chart.pool'), rewards: t('earnings.chart.rewards') }),
    [t],
  );
  const label = t('earnings.chart.label', { count: points.length });

  const chart = (height: number, testId: string) => (
    <Suspense fallback={<Loader size="sm" />}>
      <EarningsChart points={points} label={label} height={height} titles={titles} testId={testId} />
    </Suspense>
  );

  return (
    <Paper withBorder p="md" radius="md" data-testid="earnings-chart-panel">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4">
          {t('earnings.chart.title')}
        </Title>
        <Button
          size="xs"
          variant="light"
          onClick={() => setExpanded(true)}
          disabled={points.length === 0}
          data-testid="earnings-chart-expand"
        >
          {t('earnings.chart.expand')}
        </Button>
      </Group>
      {loading ? (
        <Loader size="sm" />
      ) : points.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="earnings-chart-empty">
          {t('earnings.chart.empty')}
        </Text>
      ) : (
        chart(260, 'earnings-chart')
      )}
      <Modal
        opened={expanded}
        onClose={() => setExpanded(false)}
        title={t('earnings.chart.title')}
        size="90%"
        centered
        data-testid="earnings-chart-modal"
      >
        {expanded && chart(520, 'earnings-chart-large')}
      </Modal>
    </Paper>
  );
}
