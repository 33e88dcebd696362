import {
  HISTORY_MESSAGES,
  HISTORY_PAGE_DEFAULT,
  type GlobalHistoryRow,
  type HistoryAggregates,
} from '@bytx/contract';
import { Alert, Button, Grid, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../shared/api/client';
import { useSession, userIdOf } from '../../../shared/session/session';
import { useConfirm } from '../../../shared/ui/ConfirmDialog';
import { csvFileName, downloadText, historyApi, historyCsv } from '../api/history';
import { fix2 } from './format';
import { HistoryTable } from './HistoryTable';
import { SummaryCards } from './SummaryCards';
import { TokenPanel } from './TokenPanel';

/** lightweight-charts is loaded only when the page shows the chart. */
const PnlChart = lazy(() => import('./PnlChart'));

/**
 * `/historial-global` (spec part 2 §2, §4, §8): every closed trade of every bot of the user, a page at a
 * time, with the per-symbol panel, the PnL cards and the cumulative PnL chart, all computed by the
 * server (`GET /api/dca/all_history`, `aggregates=1`). Deleting reloads the page and the aggregates.
 */
export function GlobalHistoryPage() {
  const { t } = useTranslation();
  const { user } = useSession();
  const userId = userIdOf(user);
  const qc = useQueryClient();
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState<number>(HISTORY_PAGE_DEFAULT);
  const [actionError, setActionError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const rows = useQuery({
    queryKey: ['history', 'page', userId, page, perPage],
    queryFn: () => historyApi.page(userId, page, perPage),
    retry: false,
  });
  const aggs = useQuery({
    queryKey: ['history', 'aggregates', userId],
    queryFn: async () => {
      try {
        return await historyApi.aggregates(userId);
      } catch (err) {
        // Spec §8: an aggregation failure empties the token list, the totals and the prices; it is logged.
        console.error(err);
        throw err;
      }
    },
    retry: false,
  });

  // The server answers the last page when asked for one past the end (after deletes): follow it.
  const served = rows.data?.page;
  useEffect(() => {
    if (served !== undefined && served !== page) setPage(served);
  }, [served, page]);

  const reload = () => qc.invalidateQueries({ queryKey: ['history'] });

  const [confirm, confirmDialog] = useConfirm();
  const removeRow = async (row: GlobalHistoryRow) => {
    if (!(await confirm(t('history.confirmDelete'), { danger: true }))) return;
    setBusy(true);
    setActionError(null);
    try {
      await historyApi.deleteOne(userId, row.id);
    } catch (err) {
      setActionError(t('history.errors.delete', { message: errorMessage(err) }));
    } finally {
      setBusy(false);
    }
    await reload();
  };

  const removeAll = async () => {
    if (!(await confirm(t('history.confirmDeleteAll'), { danger: true }))) return;
    setBusy(true);
    setActionError(null);
    try {
      await historyApi.deleteAll(userId);
      setPage(1);
    } catch (err) {
      setActionError(t('history.errors.deleteAll', { message: errorMessage(err) }));
    } finally {
      setBusy(false);
    }
    await reload();
  };

  const exportCsv = () => {
    if (!rows.data) return;
    downloadText(csvFileName(rows.data.page), historyCsv(rows.data.history));
  };

  const data = rows.data;
  const aggregates: HistoryAggregates | null = aggs.data ?? null;
  const pagePnl = data ? data.history.reduce((s, r) => s + r.pnl_net, 0) : null;
  // The server's (and the client's) spec text 'No se pudo cargar el historial global', in the user's language.
  const loadMessage = rows.isError ? errorMessage(rows.error, HISTORY_MESSAGES.loadFailed) : '';
  const loadError = rows.isError
    ? t('history.errors.load', {
        message: loadMessage === HISTORY_MESSAGES.loadFailed ? t('history.errors.loadFailed') : loadMessage,
      })
    : null;
  const last = aggregates?.daily.at(-1);

  return (
    <Stack p="md" gap="md" data-testid="gh-page">
      {confirmDialog}
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={1} size="h2" data-testid="gh-title">
            {t('history.title')}
          </Title>
          <Text c="dimmed" size="sm" data-testid="gh-user">
            {t('history.user', { user: user?.email ?? userId })}
          </Text>
        </div>
        <Group gap="xs">
          <Button variant="default" onClick={() => void reload()} data-testid="gh-refresh">
            {t('history.refresh')}
          </Button>
          <Button
            variant="default"
            onClick={exportCsv}
            disabled={!data || data.history.length === 0}
            data-testid="gh-export"
          >
            {t('history.exportCsv')}
          </Button>
          <Button
            color="red"
            onClick={() => void removeAll()}
            disabled={busy || !data || data.total === 0}
            data-testid="gh-delete-all"
          >
            {t('history.deleteAll')}
          </Button>
        </Group>
      </Group>

      {loadError && (
        <Alert color="red" data-testid="gh-load-error">
          {loadError}
        </Alert>
      )}
      {actionError && (
        <Alert color="red" withCloseButton onClose={() => setActionError(null)} data-testid="gh-error">
          {actionError}
        </Alert>
      )}

      <Grid gap="md" columns={24}>
        <Grid.Col span={{ base: 24, lg: 5 }}>
          <TokenPanel tokens={aggregates?.tokens ?? []} loading={aggs.isPending} />
        </Grid.Col>
        <Grid.Col span={{ base: 24, lg: 14 }}>
          <Paper withBorder p="sm">
            <HistoryTable
              rows={data?.history ?? null}
              loading={rows.isPending}
              page={data?.page ?? page}
              pages={data?.pages ?? 1}
              perPage={perPage}
              busy={busy}
              onPage={setPage}
              onPerPage={(n) => {
                setPerPage(n);
                setPage(1);
              }}
              onDelete={(r) => void removeRow(r)}
            />
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 24, lg: 5 }}>
          <SummaryCards aggregates={aggregates} pagePnl={pagePnl} />
        </Grid.Col>
      </Grid>

      <Paper withBorder p="sm">
        <Title order={2} size="h4" mb="xs">
          {t('history.chart.title')}
        </Title>
        {aggregates && aggregates.daily.length === 0 && (
          <Text size="sm" c="dimmed" data-testid="gh-chart-empty">
            {t('history.chart.empty')}
          </Text>
        )}
        {aggregates && aggregates.daily.length > 0 && (
          <Suspense fallback={<Text size="sm">{t('history.chart.loading')}</Text>}>
            <PnlChart
              points={aggregates.daily}
              label={t('history.chart.label', {
                n: aggregates.daily.length,
                last: fix2(last?.cumulative_usd ?? 0),
              })}
            />
          </Suspense>
        )}
      </Paper>
    </Stack>
  );
}
