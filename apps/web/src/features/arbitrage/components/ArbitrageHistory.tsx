import { Alert, Paper, Stack, Text, Title } from '@mantine/core';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { RealisedLine } from '../../../shared/bots/BotScreen';
import { realisedSummary } from '../../../shared/bots/figures';
import { exchangeName, fmt, fmtDate, pnlColor } from '../../../shared/bots/format';
import { useNow } from '../../../shared/bots/hooks';
import { ResponsiveTable, type ResponsiveColumn } from '../../../shared/ui/ResponsiveTable';
import type { ArbitrageHistoryRow } from '../api/arbitrage';

/**
 * The Operation History (spec part 2 §2): Buy Exchange, Sell Exchange, Buy Price, Sell Price, Amount,
 * Fees, Profit, Time, newest first. The prices are the real average fills; a negative profit is shown
 * in red, never hidden. An unwound leg has the same exchange on both sides.
 */
export function ArbitrageHistory({
  rows,
  error,
}: {
  rows: ArbitrageHistoryRow[] | undefined;
  error: string | null;
}) {
  const { t } = useTranslation();
  const now = useNow();
  // Every trip and unwind of the user's arbitrage bots, stopped ones included: the profit stays
  // when the bot stops (issue 40 pt 3).
  const realised = useMemo(
    () =>
      rows
        ? realisedSummary(
            rows.map((r) => ({ at: r.timestamp, pnl: r.ganancia })),
            now,
          )
        : null,
    [rows, now],
  );
  const h = (key: string) => t(`arbitrage.history.${key}`);
  const columns: ResponsiveColumn<ArbitrageHistoryRow>[] = [
    {
      key: 'buyExchange',
      label: h('buyExchange'),
      cell: (r) => exchangeName(r.exchange_compra),
      cellProps: () => ({ 'data-testid': 'arb-row-buy-exchange' }),
    },
    {
      key: 'sellExchange',
      label: h('sellExchange'),
      cell: (r) => exchangeName(r.exchange_venta),
      cellProps: () => ({ 'data-testid': 'arb-row-sell-exchange' }),
    },
    {
      key: 'buyPrice',
      label: h('buyPrice'),
      cell: (r) => fmt(r.precio_compra, 4),
      cellProps: () => ({ 'data-testid': 'arb-row-buy-price' }),
    },
    {
      key: 'sellPrice',
      label: h('sellPrice'),
      cell: (r) => fmt(r.precio_venta, 4),
      cellProps: () => ({ 'data-testid': 'arb-row-sell-price' }),
    },
    {
      key: 'amount',
      label: h('amount'),
      cell: (r) => fmt(r.monto, 8),
      cellProps: () => ({ 'data-testid': 'arb-row-amount' }),
    },
    {
      key: 'fees',
      label: h('fees'),
      cell: (r) => fmt(r.comision_total, 6),
      cellProps: () => ({ 'data-testid': 'arb-row-fees' }),
    },
    {
      key: 'profit',
      label: h('profit'),
      cell: (r) => (Number.isFinite(r.ganancia) ? r.ganancia.toFixed(6) : '—'),
      cellProps: (r) => ({
        c: pnlColor(r.ganancia),
        fw: 600,
        'data-testid': 'arb-row-profit',
        'data-profit': r.ganancia,
        'data-negative': r.ganancia < 0 ? '1' : '0',
      }),
    },
    {
      key: 'time',
      label: h('time'),
      cell: (r) => fmtDate(r.timestamp),
      cellProps: () => ({ style: { whiteSpace: 'nowrap' } }),
    },
  ];
  return (
    <Paper withBorder p="md" data-testid="arb-history">
      <Title order={2} size="h4" mb="sm">
        {t('arbitrage.history.title')}
      </Title>
      <Stack mb="sm">
        <RealisedLine testPrefix="arb" realised={realised} />
      </Stack>
      {error && (
        <Alert color="red" mb="sm" data-testid="arb-history-error">
          {t('arbitrage.history.failed', { message: error })}
        </Alert>
      )}
      <ResponsiveTable
        columns={columns}
        rows={rows ?? []}
        rowKey={(r) => r.id || `${r.timestamp}-${r.exchange_compra}`}
        rowProps={(r) => {
          const unwind = r.exchange_compra === r.exchange_venta;
          return {
            'data-testid': 'arb-history-row',
            'data-unwind': unwind ? '1' : '0',
            title: unwind ? t('arbitrage.history.unwind') : undefined,
          };
        }}
        tableProps={{ striped: true, fz: 'sm' }}
        testId="arb-history-table"
      />
      {rows && rows.length === 0 && (
        <Text c="dimmed" size="sm" ta="center" mt="sm" data-testid="arb-history-empty">
          {t('arbitrage.history.empty')}
        </Text>
      )}
      {!rows && !error && (
        <Text c="dimmed" size="sm" ta="center" mt="sm">
          {t('arbitrage.history.loading')}
        </Text>
      )}
    </Paper>
  );
}
