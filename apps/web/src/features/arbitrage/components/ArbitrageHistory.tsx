import { Alert, Paper, ScrollArea, Stack, Table, Text, Title } from '@mantine/core';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { RealisedLine } from '../../../shared/bots/BotScreen';
import { realisedSummary } from '../../../shared/bots/figures';
import { exchangeName, fmt, fmtDate, pnlColor } from '../../../shared/bots/format';
import { useNow } from '../../../shared/bots/hooks';
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
      <ScrollArea>
        <Table striped fz="sm" data-testid="arb-history-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('arbitrage.history.buyExchange')}</Table.Th>
              <Table.Th>{t('arbitrage.history.sellExchange')}</Table.Th>
              <Table.Th>{t('arbitrage.history.buyPrice')}</Table.Th>
              <Table.Th>{t('arbitrage.history.sellPrice')}</Table.Th>
              <Table.Th>{t('arbitrage.history.amount')}</Table.Th>
              <Table.Th>{t('arbitrage.history.fees')}</Table.Th>
              <Table.Th>{t('arbitrage.history.profit')}</Table.Th>
              <Table.Th>{t('arbitrage.history.time')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(rows ?? []).map((r) => {
              const unwind = r.exchange_compra === r.exchange_venta;
              return (
                <Table.Tr
                  key={r.id || `${r.timestamp}-${r.exchange_compra}`}
                  data-testid="arb-history-row"
                  data-unwind={unwind ? '1' : '0'}
                  title={unwind ? t('arbitrage.history.unwind') : undefined}
                >
                  <Table.Td data-testid="arb-row-buy-exchange">{exchangeName(r.exchange_compra)}</Table.Td>
                  <Table.Td data-testid="arb-row-sell-exchange">{exchangeName(r.exchange_venta)}</Table.Td>
                  <Table.Td data-testid="arb-row-buy-price">{fmt(r.precio_compra, 4)}</Table.Td>
                  <Table.Td data-testid="arb-row-sell-price">{fmt(r.precio_venta, 4)}</Table.Td>
                  <Table.Td data-testid="arb-row-amount">{fmt(r.monto, 8)}</Table.Td>
                  <Table.Td data-testid="arb-row-fees">{fmt(r.comision_total, 6)}</Table.Td>
                  <Table.Td
                    c={pnlColor(r.ganancia)}
                    fw={600}
                    data-testid="arb-row-profit"
                    data-profit={r.ganancia}
                    data-negative={r.ganancia < 0 ? '1' : '0'}
                  >
                    {Number.isFinite(r.ganancia) ? r.ganancia.toFixed(6) : '—'}
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{fmtDate(r.timestamp)}</Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </ScrollArea>
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
