import {
  Alert,
  Badge,
  Box,
  Button,
  Container,
  Grid,
  Group,
  Loader,
  NativeSelect,
  Paper,
  Stack,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import {
  PENDING_COMPLETED_DAYS,
  PENDING_PAGE_DEFAULT,
  PENDING_PAGE_SIZES,
  PENDING_SPLASH_MS,
  type PendingOrderView,
} from '@bytx/contract';
import { errorMessage } from '../../../shared/api/client';
import { NoSession } from '../../../shared/bots/BotScreen';
import { exchangeName, fmtDate, pnlColor } from '../../../shared/bots/format';
import { useNumbers, type Numbers } from '../../../shared/ui/numbers';
import { Pager } from '../../../shared/bots/Pager';
import {
  PendingActionDialogs,
  PendingRowActions,
  type PendingActionDone,
  type PendingActionRequest,
} from '../../../shared/bots/PendingActions';
import { useSession, userIdOf } from '../../../shared/session/session';
import { useConfirm } from '../../../shared/ui/ConfirmDialog';
import {
  NARROW_QUERY_MD,
  ResponsiveTable,
  type Attrs,
  type ResponsiveColumn,
} from '../../../shared/ui/ResponsiveTable';
import { pendingApi } from '../api/pending';
import {
  dateOf,
  drawdownColor,
  drawdownLevel,
  filterRows,
  limitOf,
  nextSort,
  NO_FILTERS,
  sortRows,
  SORT_KEYS,
  tpPctOf,
  weightedDrawdown,
  type Filters,
  type Sort,
  type SortKey,
  type StateFilter,
} from './orders';

const DEFAULT_SORT: Sort = { key: 'date', dir: 'desc' };
/** While an order is busy (an action in flight) the list is read again this often. */
const BUSY_POLL_MS = 3_000;

/** Drawdowns as the page writes its percentages ("TP 1 %"), with the user's separators. */
const pctText = (num: Numbers, pct: number | null | undefined) =>
  typeof pct === 'number' && Number.isFinite(pct) ? `${num.fixed(pct, 2)} %` : '—';

/** The global pending-orders page (spec part 2 §2 "Global Pending Orders page", /GlobalPendingOrders). */
export function GlobalPendingOrdersPage() {
  const { t } = useTranslation();
  const num = useNumbers();
  const { user, checking } = useSession();
  const userId = userIdOf(user);

  // --- the orders: every page of status=all, 200 a call --------------------------------------------
  const ordersQ = useQuery({
    queryKey: ['pending', 'orders', userId],
    queryFn: () => pendingApi.listAll(userId),
    enabled: !!user,
    refetchInterval: (q) => (q.state.data?.orders.some((o) => o.busy) ? BUSY_POLL_MS : false),
  });
  const openIds = useMemo(
    () => (ordersQ.data?.orders ?? []).filter((o) => o.status === 'open').map((o) => o.id),
    [ordersQ.data],
  );

  // --- drawdowns: refresh the ones listed, then read them all; merged by id ----------------------
  const ddQ = useQuery({
    queryKey: ['pending', 'drawdowns', userId, ordersQ.dataUpdatedAt],
    queryFn: () => pendingApi.syncDrawdowns(userId, openIds),
    enabled: !!user && ordersQ.isSuccess,
    retry: false,
    placeholderData: keepPreviousData,
  });
  const [notify, notice] = useConfirm();
  useEffect(() => {
    if (ddQ.isError)
      void notify(t('pending.drawdownFailed', { msg: errorMessage(ddQ.error) }), { alert: true });
    // One alert per failure.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ddQ.errorUpdatedAt]);

  // The ON/OFF just saved, until a newer read of the drawdown records.
  const [autoFundSaved, setAutoFundSaved] = useState<Record<string, { enabled: boolean; at: number }>>({});
  const rows = useMemo(() => {
    const by = ddQ.data ?? {};
    return (ordersQ.data?.orders ?? []).map((o): PendingOrderView => {
      const d = by[o.id];
      const saved = autoFundSaved[o.id];
      const autoFund =
        saved && saved.at > ddQ.dataUpdatedAt ? saved.enabled : (d?.enabled ?? o.auto_fund === true);
      return {
        ...o,
        drawdown_pct: o.status === 'open' ? (d?.pct ?? o.drawdown_pct ?? null) : null,
        auto_fund: autoFund,
      };
    });
  }, [ordersQ.data, ddQ.data, ddQ.dataUpdatedAt, autoFundSaved]);

  // --- splash: while loading, at most 10 s, dismissable ------------------------------------------
  const [splash, setSplash] = useState(true);
  useEffect(() => {
    const h = window.setTimeout(() => setSplash(false), PENDING_SPLASH_MS);
    return () => window.clearTimeout(h);
  }, []);
  const loaded = ordersQ.isSuccess || ordersQ.isError;
  const showSplash = !!user && splash && !loaded;

  // --- filters, sort, paging -----------------------------------------------------------------------
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [sort, setSort] = useState<Sort>(DEFAULT_SORT);
  const [pageSize, setPageSize] = useState<number>(PENDING_PAGE_DEFAULT);
  const [page, setPage] = useState(1);
  const exchanges = useMemo(() => [...new Set(rows.map((o) => o.exchange))].sort(), [rows]);
  const pairs = useMemo(
    () =>
      [
        ...new Set(
          rows.filter((o) => filters.exchange === '' || o.exchange === filters.exchange).map((o) => o.symbol),
        ),
      ].sort(),
    [rows, filters.exchange],
  );
  const shown = useMemo(() => sortRows(filterRows(rows, filters), sort), [rows, filters, sort]);
  const pages = Math.max(1, Math.ceil(shown.length / pageSize));
  const current = Math.min(page, pages);
  const pageRows = shown.slice((current - 1) * pageSize, current * pageSize);
  const ddTotal = weightedDrawdown(shown);
  const ddTotalLevel = drawdownLevel(ddTotal);
  const setFilter = (change: Partial<Filters>) => {
    setFilters((f) => ({ ...f, ...change }));
    setPage(1);
  };

  // --- actions ------------------------------------------------------------------------------------
  const [request, setRequest] = useState<PendingActionRequest | null>(null);
  const onDone = (done: PendingActionDone) => {
    if (done.kind === 'autofund' && done.ok && typeof done.enabled === 'boolean') {
      const enabled = done.enabled;
      setAutoFundSaved((p) => ({ ...p, [done.order.id]: { enabled, at: Date.now() } }));
    }
    void ordersQ.refetch();
  };

  if (!user) return <NoSession checking={checking} />;

  const summary = ordersQ.data?.summary;
  const sortButton = (key: SortKey) => {
    const active = sort.key === key;
    return (
      <UnstyledButton
        key={key}
        onClick={() => {
          setSort((s) => nextSort(s, key));
          setPage(1);
        }}
        title={t('pending.sortHint', { col: t(`pending.col.${key}`) })}
        data-testid={`gp-sort-${key}`}
        data-sort={active ? sort.dir : 'none'}
      >
        <Text size="sm" fw={700} span>
          {t(`pending.col.${key}`)}{' '}
          <span data-testid={active ? 'gp-sort-indicator' : undefined}>
            {active ? (sort.dir === 'asc' ? '▲' : '▼') : '↕'}
          </span>
        </Text>
      </UnstyledButton>
    );
  };
  const columns = orderColumns(t, num).map((c): ResponsiveColumn<PendingOrderView> => ({
    ...c,
    th: sortButton(c.key),
    thProps: {
      'aria-sort': sort.key === c.key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none',
      'data-testid': `gp-th-${c.key}`,
    },
  }));

  return (
    <Container size="xl" py="md" data-testid="gp-page">
      {notice}
      {showSplash && (
        <Box
          data-testid="gp-splash"
          style={{
            position: 'fixed',
            inset: 0,
            zIndex: 300,
            display: 'flex',
            alignItems: 'center',
            justifyContent: 'center',
            background: 'rgba(0, 0, 0, 0.75)',
          }}
        >
          <Paper withBorder p="xl" maw={420}>
            <Stack align="center" gap="sm">
              <Loader />
              <Text fw={700}>{t('pending.splash.title')}</Text>
              <Text size="sm" c="dimmed" ta="center">
                {t('pending.splash.text')}
              </Text>
              <Button
                variant="default"
                size="xs"
                onClick={() => setSplash(false)}
                data-testid="gp-splash-close"
              >
                {t('pending.splash.skip')}
              </Button>
            </Stack>
          </Paper>
        </Box>
      )}

      <Group justify="space-between" mb="md" wrap="wrap">
        <div>
          <Title order={1} size="h2" data-testid="gp-title">
            {t('pending.title')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('pending.subtitle')} · {t('pending.user', { user: userId })}
          </Text>
        </div>
        <Button onClick={() => void ordersQ.refetch()} loading={ordersQ.isFetching} data-testid="gp-refresh">
          {t('pending.refresh')}
        </Button>
      </Group>

      {/* The filters beside the table only from xl (88em): the table needs ~1,130 px in English and
          ~1,215 px in Spanish, more than a 9-of-12 column at 1280 px, so below xl they sit above it. */}
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, xl: 3 }}>
          <Stack gap="md" data-testid="gp-side">
            {ordersQ.isError && (
              <Alert color="red" data-testid="gp-load-error">
                {t('pending.loadFailed')}
              </Alert>
            )}
            <Paper withBorder p="md">
              <Text size="sm" c="dimmed">
                {t('pending.side.completedPnl')}
              </Text>
              <Text
                fw={700}
                size="xl"
                c={summary ? pnlColor(summary.completed_pnl) : undefined}
                data-testid="gp-completed-pnl"
              >
                {summary ? num.money(summary.completed_pnl) : '—'}
              </Text>
              <Text size="xs" c="dimmed">
                {t('pending.side.completedNote', { days: PENDING_COMPLETED_DAYS })}
              </Text>
              {summary && (
                <Group gap="xs" mt="xs">
                  <Badge color="blue" variant="light" data-testid="gp-count-open">
                    {t('pending.side.open', { n: summary.open })}
                  </Badge>
                  <Badge color="green" variant="light" data-testid="gp-count-completed">
                    {t('pending.side.completed', { n: summary.completed })}
                  </Badge>
                </Group>
              )}
            </Paper>
            <Paper withBorder p="md">
              <Text size="sm" c="dimmed">
                {t('pending.side.drawdownTotal')}
              </Text>
              <Text
                fw={700}
                size="xl"
                c={drawdownColor(ddTotalLevel)}
                className={`gp-dd-${ddTotalLevel}`}
                data-level={ddTotalLevel}
                data-testid="gp-drawdown-total"
              >
                {pctText(num, ddTotal)}
              </Text>
              <Text size="xs" c="dimmed">
                {t('pending.side.drawdownNote')}
              </Text>
            </Paper>
            <Paper withBorder p="md">
              <Stack gap="xs">
                <Text fw={600}>{t('pending.side.filters')}</Text>
                <NativeSelect
                  label={t('pending.side.exchange')}
                  value={filters.exchange}
                  onChange={(e) => setFilter({ exchange: e.currentTarget.value, pair: '' })}
                  data={[
                    { value: '', label: t('pending.side.all') },
                    ...exchanges.map((x) => ({ value: x, label: exchangeName(x) })),
                  ]}
                  data-testid="gp-filter-exchange"
                />
                <NativeSelect
                  label={t('pending.side.pair')}
                  value={filters.pair}
                  onChange={(e) => setFilter({ pair: e.currentTarget.value })}
                  data={[{ value: '', label: t('pending.side.all') }, ...pairs]}
                  data-testid="gp-filter-pair"
                />
                <NativeSelect
                  label={t('pending.side.state')}
                  value={filters.state}
                  onChange={(e) => setFilter({ state: e.currentTarget.value as StateFilter })}
                  data={[
                    { value: 'all', label: t('pending.side.all') },
                    { value: 'open', label: t('pending.state.open') },
                    { value: 'completed', label: t('pending.state.completed') },
                  ]}
                  data-testid="gp-filter-state"
                />
                <Button
                  variant="subtle"
                  size="xs"
                  onClick={() => setFilter(NO_FILTERS)}
                  data-testid="gp-filter-clear"
                >
                  {t('pending.side.clear')}
                </Button>
              </Stack>
            </Paper>
          </Stack>
        </Grid.Col>

        <Grid.Col span={{ base: 12, xl: 9 }}>
          <Paper withBorder p="md">
            <Stack gap="sm">
              <Group justify="space-between">
                <NativeSelect
                  label={t('pending.pageSize')}
                  value={String(pageSize)}
                  onChange={(e) => {
                    setPageSize(Number(e.currentTarget.value));
                    setPage(1);
                  }}
                  data={PENDING_PAGE_SIZES.map((n) => String(n))}
                  data-testid="gp-page-size"
                  w={140}
                />
                {ordersQ.isSuccess && (
                  <Text size="sm" c="dimmed" data-testid="gp-page-info">
                    {t('pending.pageInfo', { page: current, pages, n: shown.length })}
                  </Text>
                )}
              </Group>
              {ordersQ.isLoading && <Loader size="sm" data-testid="gp-loading" />}
              <ResponsiveTable
                columns={columns}
                rows={pageRows}
                rowKey={(o) => o.id}
                rowProps={(o) => ({
                  'data-testid': 'gp-row',
                  'data-id': o.id,
                  'data-status': o.status,
                  'data-busy': o.busy ?? undefined,
                })}
                actions={{
                  label: t('pending.col.actions'),
                  cell: (o) => (
                    <PendingRowActions prefix="gp" order={o} autoFund={o.auto_fund} onRequest={setRequest} />
                  ),
                }}
                // On a phone the table's sortable headers become a row of the same sort buttons.
                cardsTop={
                  <Group gap="sm" wrap="wrap" data-testid="gp-sort-bar">
                    {SORT_KEYS.map(sortButton)}
                  </Group>
                }
                // Side by side with the filters from `md` up, the table's box is narrow until 62em.
                narrowQuery={NARROW_QUERY_MD}
                tableProps={{ striped: true, highlightOnHover: true }}
                testId="gp-table"
              />
              {ordersQ.isSuccess && shown.length === 0 && (
                <Text ta="center" c="dimmed" data-testid="gp-empty">
                  {t('pending.empty')}
                </Text>
              )}
              <Pager page={current} pages={pages} onPage={setPage} testId="gp-pager" />
            </Stack>
          </Paper>
        </Grid.Col>
      </Grid>

      <PendingActionDialogs
        prefix="gp"
        userId={userId}
        request={request}
        onClose={() => setRequest(null)}
        onDone={onDone}
      />
    </Container>
  );
}

/** The table's columns (and the cards' label: value pairs), in SORT_KEYS order; each cell keeps its test id. */
function orderColumns(
  t: TFunction,
  num: Numbers,
): {
  key: SortKey;
  label: string;
  cell: (o: PendingOrderView) => ReactNode;
  cellProps: (o: PendingOrderView) => Attrs;
}[] {
  const cells: Record<SortKey, Pick<ResponsiveColumn<PendingOrderView>, 'cell' | 'cellProps'>> = {
    date: { cell: (o) => fmtDate(dateOf(o)) },
    exchange: { cell: (o) => exchangeName(o.exchange) },
    pair: { cell: (o) => o.symbol },
    limit: {
      cell: (o) => {
        const tpAssumed = o.tp_pct === null || o.tp_pct === undefined;
        return (
          <>
            {num.price(limitOf(o))}
            {o.status === 'open' && (
              <Text size="xs" c="dimmed" data-testid="gp-tp-pct" data-assumed={tpAssumed ? 'true' : 'false'}>
                {t(tpAssumed ? 'pending.tpAssumed' : 'pending.tp', { pct: num.upTo(tpPctOf(o), 2) })}
              </Text>
            )}
          </>
        );
      },
    },
    entry: { cell: (o) => num.price(o.entry_price) },
    amount: {
      cell: (o) => (
        <>
          {num.money(o.amount_quote)} {o.quote}
        </>
      ),
    },
    result: {
      cell: (o) => num.money(o.result),
      cellProps: (o) => ({ c: typeof o.result === 'number' ? pnlColor(o.result) : undefined }),
    },
    state: {
      cell: (o) => (
        <>
          <Badge
            color={o.status === 'open' ? 'blue' : 'green'}
            styles={{ root: { overflow: 'visible' }, label: { overflow: 'visible' } }}
            data-testid="gp-state"
          >
            {t(`pending.state.${o.status}`)}
          </Badge>
          {/* The spec's open state reads 'Open' / 'in wait': its take profit waits to fill. */}
          {o.status === 'open' && (
            <Text size="xs" c="dimmed" data-testid="gp-in-wait">
              {t('pending.state.inWait')}
            </Text>
          )}
        </>
      ),
    },
    drawdown: {
      cell: (o) => pctText(num, o.drawdown_pct),
      cellProps: (o) => {
        const level = drawdownLevel(o.drawdown_pct);
        return { c: drawdownColor(level), className: `gp-dd-${level}`, 'data-level': level };
      },
    },
  };
  return SORT_KEYS.map((key) => ({
    key,
    label: t(`pending.col.${key}`),
    cell: cells[key].cell,
    cellProps: (o) => ({ ...cells[key].cellProps?.(o), 'data-testid': `gp-cell-${key}` }),
  }));
}
