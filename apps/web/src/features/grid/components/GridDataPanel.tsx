import { Alert, Anchor, Checkbox, Paper, Stack, Tabs, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../shared/api/client';
import { RowActionsMenu } from '../../../shared/bots/BotRowParts';
import { RealisedLine } from '../../../shared/bots/BotScreen';
import { fmtPct, profitPct, realisedSummary, runtimeKey, runtimeParts } from '../../../shared/bots/figures';
import { exchangeName, fmtDate, pnlColor } from '../../../shared/bots/format';
import { useNow } from '../../../shared/bots/hooks';
import { NARROW_QUERY, ResponsiveTable, type ResponsiveColumn } from '../../../shared/ui/ResponsiveTable';
import { gridApi, quoteOf, type GridBotRow, type GridHistoryView } from '../api/grid';

/** PnL in the quote currency, 4 decimals (a grid round on a small amount earns cents). */
const pnlText = (pnl: number, symbol: string, quote?: string) =>
  `${Number.isFinite(pnl) ? pnl.toFixed(4) : '—'} ${quote ?? quoteOf(symbol)}`.trim();

const marketLabel = (m: string) => (m ? m[0]!.toUpperCase() + m.slice(1).toLowerCase() : m);

/**
 * 'Real-Time Grid Data' (spec part 2 §2): Active Bots (symbol, market type, PNL in quote, the
 * display-only R(B) and R(S), Stop) and History (the user's closed grids from the server).
 */
export function GridDataPanel({
  userId,
  bots,
  loading,
  selected,
  onSelect,
  onStop,
}: {
  userId: string;
  bots: GridBotRow[];
  loading: boolean;
  selected: string | null;
  onSelect: (b: GridBotRow) => void;
  onStop: (b: GridBotRow) => void;
}) {
  const { t } = useTranslation();
  const [tab, setTab] = useState<string | null>('active');
  const history = useQuery({
    queryKey: ['grid', 'history', userId],
    queryFn: async () => {
      const r = await gridApi.history(userId);
      if (!r.ok) throw new Error(r.error ?? 'Error');
      return r.history;
    },
    // Loaded with the page too: the summary under the tabs keeps the stopped grids' profit.
    enabled: !!userId,
  });
  const now = useNow();
  const realised = useMemo(
    () =>
      history.data
        ? realisedSummary(
            history.data
              .filter((h) => quoteOf(h.symbol) === 'USDT')
              .map((h) => ({ at: h.stopped_at, pnl: h.pnl_quote })),
            now,
          )
        : null,
    [history.data, now],
  );
  const activeColumns: ResponsiveColumn<GridBotRow>[] = [
    {
      key: 'symbol',
      label: t('grid.data.symbol'),
      cell: (b) => (
        <Anchor
          component="button"
          type="button"
          size="sm"
          onClick={() => onSelect(b)}
          title={t('grid.data.show')}
          data-testid="grid-bot-show"
        >
          {b.symbol}
        </Anchor>
      ),
      cellProps: () => ({ 'data-testid': 'grid-bot-symbol' }),
    },
    {
      key: 'market',
      label: t('grid.data.marketType'),
      cell: (b) => marketLabel(b.market_type),
      cellProps: () => ({ 'data-testid': 'grid-bot-market' }),
    },
    {
      key: 'pnl',
      label: t('grid.data.pnl'),
      cell: (b) => (
        <>
          <Text size="sm" c={pnlColor(b.pnl_quote)} data-testid="grid-bot-pnl" data-pnl={b.pnl_quote}>
            {pnlText(b.pnl_quote, b.symbol, b.quote)}
          </Text>
          <GridRowFigures bot={b} now={now} />
        </>
      ),
      cellProps: () => ({ style: { whiteSpace: 'nowrap' } }),
    },
    {
      key: 'rb',
      label: t('grid.data.rb'),
      cell: () => <Checkbox readOnly disabled aria-label={t('grid.data.rb')} size="xs" />,
    },
    {
      key: 'rs',
      label: t('grid.data.rs'),
      cell: () => <Checkbox readOnly disabled aria-label={t('grid.data.rs')} size="xs" />,
    },
  ];
  const historyColumns: ResponsiveColumn<GridHistoryView>[] = [
    { key: 'symbol', label: t('grid.data.symbol'), cell: (h) => h.symbol },
    { key: 'exchange', label: t('grid.data.exchange'), cell: (h) => exchangeName(h.exchange) },
    { key: 'market', label: t('grid.data.marketType'), cell: (h) => marketLabel(h.market_type) },
    { key: 'started', label: t('grid.data.started'), cell: (h) => fmtDate(h.started_at) },
    { key: 'stopped', label: t('grid.data.stopped'), cell: (h) => fmtDate(h.stopped_at) },
    {
      key: 'rounds',
      label: t('grid.data.rounds'),
      cell: (h) => h.rounds,
      cellProps: () => ({ 'data-testid': 'grid-history-rounds' }),
    },
    {
      key: 'pnl',
      label: t('grid.data.pnl'),
      cell: (h) => pnlText(h.pnl_quote, h.symbol),
      cellProps: (h) => ({ c: pnlColor(h.pnl_quote), 'data-testid': 'grid-history-pnl' }),
    },
  ];
  return (
    <Paper withBorder p="md" data-testid="grid-data">
      <Title order={2} size="h4" mb="sm">
        {t('grid.data.title')}
      </Title>
      <Tabs value={tab} onChange={setTab} keepMounted={false}>
        <Tabs.List mb="sm">
          <Tabs.Tab value="active" data-testid="grid-tab-active">
            {t('grid.data.active')}
          </Tabs.Tab>
          <Tabs.Tab value="history" data-testid="grid-tab-history">
            {t('grid.data.history')}
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="active">
          {bots.length === 0 ? (
            <Text c="dimmed" size="sm" data-testid="grid-no-active">
              {loading ? t('grid.data.loading') : t('grid.data.noActive')}
            </Text>
          ) : (
            <ResponsiveTable
              columns={activeColumns}
              rows={bots}
              rowKey={(b) => b.id}
              rowProps={(b) => ({
                'data-testid': 'grid-bot-row',
                'data-bot-id': b.id,
                'data-selected': b.id === selected ? '1' : '0',
                bg: b.id === selected ? 'var(--mantine-color-default-hover)' : undefined,
              })}
              actions={{
                label: t('bots.row.actions'),
                hideLabel: true,
                cell: (b) => (
                  <RowActionsMenu
                    menuTestId="grid-bot-actions"
                    label={t('bots.row.actionsFor', { symbol: b.symbol })}
                    actions={[
                      {
                        name: 'chart',
                        label: t('grid.data.show'),
                        onClick: () => onSelect(b),
                        testId: 'grid-bot-chart',
                      },
                      {
                        name: 'stop',
                        label: t('grid.data.stop'),
                        onClick: () => onStop(b),
                        danger: true,
                        testId: 'grid-bot-stop',
                      },
                    ]}
                  />
                ),
              }}
              tableProps={{ striped: true, fz: 'sm', horizontalSpacing: 6 }}
              // The same panel as History: cards wherever it is narrow (below sm, and from md up where
              // it is a column of the page; at 1280 px its table needed 470-557 px of a 361 px box).
              narrowQuery={`${NARROW_QUERY}, (min-width: 62em)`}
            />
          )}
        </Tabs.Panel>
        <Tabs.Panel value="history">
          {history.isError ? (
            <Alert color="red" data-testid="grid-history-error">
              {t('grid.data.historyFailed', { message: errorMessage(history.error) })}
            </Alert>
          ) : !history.data ? (
            <Text c="dimmed" size="sm">
              {t('grid.data.loading')}
            </Text>
          ) : history.data.length === 0 ? (
            <Text c="dimmed" size="sm" data-testid="grid-no-history">
              {t('grid.data.noHistory')}
            </Text>
          ) : (
            <ResponsiveTable
              columns={historyColumns}
              rows={history.data}
              rowKey={(h) => h.id}
              rowProps={() => ({ 'data-testid': 'grid-history-row' })}
              tableProps={{ striped: true, fz: 'xs' }}
              // This panel is a third or a quarter of the page from md up and the whole width below sm:
              // cards in both, the table only where the panel spans the page between sm and md.
              narrowQuery={`${NARROW_QUERY}, (min-width: 62em)`}
            />
          )}
        </Tabs.Panel>
      </Tabs>
      <Stack gap={4} mt="sm">
        <RealisedLine testPrefix="grid" realised={realised} />
      </Stack>
    </Paper>
  );
}

/** A grid's profit as a percentage of what it commits (amount per level × levels) and its runtime. */
function GridRowFigures({ bot, now }: { bot: GridBotRow; now: number }) {
  const { t, i18n } = useTranslation();
  const capital = (bot.amount_per_level ?? 0) * (bot.levels ?? 0);
  const pct = profitPct(bot.pnl_quote, capital);
  const run = runtimeParts(bot.started_at, now);
  const runtime = run ? runtimeKey(run) : null;
  return (
    <Text size="xs" c="dimmed">
      {pct !== null && (
        <span data-testid="grid-bot-pct" data-pct={pct}>
          {fmtPct(pct, i18n.language || 'en')}
        </span>
      )}
      {pct !== null && runtime && ' · '}
      {runtime && (
        <span data-testid="grid-bot-runtime">
          {t('bots.row.runtime', { time: t(runtime.key, runtime.values) })}
        </span>
      )}
    </Text>
  );
}
