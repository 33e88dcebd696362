import type { HistoryAggregates } from '@bytx/contract';
import { Paper, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { fix2, signColor } from './format';

function SummaryCard({
  testId,
  title,
  value,
  unit,
  children,
}: {
  testId: string;
  title: string;
  value: number | null;
  unit?: string;
  children?: ReactNode;
}) {
  return (
    <Paper withBorder p="sm" data-testid={testId}>
      <Text size="xs" c="dimmed" fw={600} tt="uppercase">
        {title}
      </Text>
      <Text
        fw={700}
        size="xl"
        c={value === null ? undefined : signColor(value)}
        data-testid={`${testId}-value`}
        data-value={value ?? ''}
      >
        {value === null ? '—' : unit ? `${fix2(value)} ${unit}` : fix2(value)}
      </Text>
      {children}
    </Paper>
  );
}

/**
 * The unconverted sum is worth a line only when it says something else than the USD figure: with
 * stablecoin quotes only they are the same ("4.38 USD" beside "Not converted: 4.38", issue 40).
 */
const differs = (raw: number, usd: number | null) => usd === null || fix2(raw, 'en') !== fix2(usd, 'en');

/**
 * The right panel: rolling 24 h PnL and total PnL in USD equivalent (quotes converted by the server;
 * the unconverted sum under each), and the PnL of the rows on this page.
 */
export function SummaryCards({
  aggregates,
  pagePnl,
}: {
  aggregates: HistoryAggregates | null;
  pagePnl: number | null;
}) {
  const { t } = useTranslation();
  const a = aggregates;
  return (
    <Stack gap="sm">
      <SummaryCard
        testId="gh-card-24h"
        title={t('history.cards.pnl24h')}
        value={a ? a.pnl_24h_usd : null}
        unit="USD"
      >
        {a && differs(a.pnl_24h, a.pnl_24h_usd) && (
          <Text size="xs" c="dimmed" data-testid="gh-unconverted">
            {t('history.cards.unconverted', { value: fix2(a.pnl_24h) })}
          </Text>
        )}
      </SummaryCard>
      <SummaryCard
        testId="gh-card-total"
        title={t('history.cards.total')}
        value={a ? a.total_pnl_usd : null}
        unit="USD"
      >
        {a && differs(a.total_pnl, a.total_pnl_usd) && (
          <Text size="xs" c="dimmed" data-testid="gh-unconverted">
            {t('history.cards.unconverted', { value: fix2(a.total_pnl) })}
          </Text>
        )}
        {a && a.unpriced.length > 0 && (
          <Text size="xs" c="orange" data-testid="gh-unpriced">
            {t('history.cards.unpriced', { quotes: a.unpriced.join(', ') })}
          </Text>
        )}
      </SummaryCard>
      <SummaryCard testId="gh-card-page" title={t('history.cards.page')} value={pagePnl}>
        <Text size="xs" c="dimmed">
          {t('history.cards.pageNote')}
        </Text>
      </SummaryCard>
    </Stack>
  );
}
