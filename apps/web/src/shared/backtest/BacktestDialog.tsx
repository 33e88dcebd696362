import {
  Alert,
  Button,
  Group,
  Input,
  List,
  Loader,
  Modal,
  NativeSelect,
  Pagination,
  Paper,
  Progress,
  ScrollArea,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { lazy, Suspense, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { exchangeName } from '../bots/format';
import {
  BACKTEST_INTERVALS,
  BACKTEST_LIMITS,
  BACKTEST_PERIODS,
  type BacktestInterval,
  type BacktestKind,
  type BacktestPeriod,
  type BacktestRequest,
  type BacktestView,
} from './api';
import { fmtTime, money, pairParts, price, qty, signed, summaryFigures } from './format';
import { useBacktestRun } from './useBacktestRun';

/** lightweight-charts is loaded only once there is a result to chart. */
const BacktestCharts = lazy(() => import('./BacktestCharts'));

const TRADES_PER_PAGE = 20;
const DAY_MS = 86_400_000;

export interface BacktestDialogProps {
  opened: boolean;
  onClose: () => void;
  kind: BacktestKind;
  /** The start form's current params, exactly as its start call sends them. */
  getParams: () => Record<string, unknown>;
  exchange: string;
  symbol: string;
  /** 'Start this bot': the form's own start with the params the backtest ran. */
  onStart?: ((params: Record<string, unknown>) => void) | undefined;
}

type PeriodChoice = BacktestPeriod | 'custom';

const isoDay = (ms: number) => {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
};

/**
 * The backtest of a start form's settings (issue 19): the period (last 7, 30, 90 days or custom
 * dates) and the candle interval, or a CSV of candles read in the browser; Run, a progress bar with
 * Cancel; then the summary, the equity curve and the price with every fill, the trades, the
 * assumptions, and 'Start this bot'. A server refusal is shown as sent (the start form's messages).
 */
export function BacktestDialog({
  opened,
  onClose,
  kind,
  getParams,
  exchange,
  symbol,
  onStart,
}: BacktestDialogProps) {
  const { t } = useTranslation();
  const { state, run, cancel, reset } = useBacktestRun({
    failed: t('backtest.failed'),
    network: (message) => t('backtest.network', { message }),
  });
  const [period, setPeriod] = useState<PeriodChoice>('7d');
  const [from, setFrom] = useState(() => isoDay(Date.now() - 30 * DAY_MS));
  const [to, setTo] = useState(() => isoDay(Date.now()));
  const [interval, setCandleInterval] = useState<BacktestInterval>('1m');
  const [csv, setCsv] = useState<{ name: string; size: number; text: string } | null>(null);
  const [localError, setLocalError] = useState<string | null>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  /** The params the last Run sent: 'Start this bot' starts exactly these. */
  const sent = useRef<Record<string, unknown> | null>(null);

  const pickCsv = async (file: File | undefined) => {
    setLocalError(null);
    if (!file) return setCsv(null);
    if (file.size > BACKTEST_LIMITS.csvMaxBytes) {
      setCsv(null);
      if (fileRef.current) fileRef.current.value = '';
      return setLocalError(t('backtest.csv.tooBig', { size: (file.size / 1024 / 1024).toFixed(1) }));
    }
    try {
      setCsv({ name: file.name, size: file.size, text: await file.text() });
    } catch {
      setCsv(null);
      setLocalError(t('backtest.csv.unreadable'));
    }
  };
  const clearCsv = () => {
    setCsv(null);
    if (fileRef.current) fileRef.current.value = '';
  };

  const start = () => {
    setLocalError(null);
    const params = getParams();
    // An empty exchange or pair is left out: the server then reads the params' own and answers
    // with the start form's message for what is missing.
    const req: BacktestRequest = {
      kind,
      params,
      ...(exchange ? { exchange } : {}),
      ...(symbol ? { symbol } : {}),
      interval,
    };
    if (csv) req.csv = csv.text;
    else if (period === 'custom') {
      const f = new Date(`${from}T00:00:00`).getTime();
      const end = Math.min(new Date(`${to}T23:59:59.999`).getTime(), Date.now());
      if (!Number.isFinite(f) || !Number.isFinite(end) || f >= end) {
        return setLocalError(t('backtest.period.badDates'));
      }
      req.from = f;
      req.to = end;
    } else req.period = period;
    sent.current = params;
    void run(req);
  };

  const busy = state.phase === 'starting' || state.phase === 'running';
  const error = localError ?? (state.phase === 'idle' ? state.error : undefined);
  const title = symbol
    ? t('backtest.title', { symbol, exchange: exchange ? exchangeName(exchange) : '—' })
    : t('backtest.titleNoPair');

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={`${title} · ${t(`backtest.kinds.${kind}`)}`}
      size="64rem"
      closeOnClickOutside={!busy}
      data-testid="backtest-dialog"
    >
      <Stack gap="sm">
        {state.phase !== 'done' && (
          <>
            <Text size="sm" c="dimmed">
              {t('backtest.intro')}
            </Text>
            <Input.Wrapper label={t('backtest.period.label')}>
              <Group gap="xs" mt={4}>
                {[...BACKTEST_PERIODS, 'custom' as const].map((p) => (
                  <Button
                    key={p}
                    size="xs"
                    variant={period === p ? 'filled' : 'default'}
                    disabled={busy || csv !== null}
                    onClick={() => setPeriod(p)}
                    aria-pressed={period === p}
                    data-testid={`backtest-period-${p === 'custom' ? 'custom' : p.replace('d', '')}`}
                  >
                    {t(`backtest.period.${p === 'custom' ? 'custom' : p.replace('d', '')}`)}
                  </Button>
                ))}
              </Group>
            </Input.Wrapper>
            {period === 'custom' && csv === null && (
              <Group grow>
                <TextInput
                  type="date"
                  label={t('backtest.period.from')}
                  value={from}
                  max={to}
                  disabled={busy}
                  onChange={(e) => setFrom(e.currentTarget.value)}
                  data-testid="backtest-from"
                />
                <TextInput
                  type="date"
                  label={t('backtest.period.to')}
                  value={to}
                  min={from}
                  disabled={busy}
                  onChange={(e) => setTo(e.currentTarget.value)}
                  data-testid="backtest-to"
                />
              </Group>
            )}
            <NativeSelect
              label={t('backtest.interval')}
              value={interval}
              disabled={busy}
              onChange={(e) => setCandleInterval(e.currentTarget.value as BacktestInterval)}
              data={[...BACKTEST_INTERVALS]}
              data-testid="backtest-interval"
            />
            <Input.Wrapper label={t('backtest.csv.label')} description={t('backtest.csv.hint')}>
              <Group gap="xs" mt={4}>
                <input
                  ref={fileRef}
                  type="file"
                  accept=".csv,text/csv,text/plain"
                  disabled={busy}
                  onChange={(e) => void pickCsv(e.currentTarget.files?.[0])}
                  data-testid="backtest-csv"
                />
                {csv && (
                  <>
                    <Text size="sm" data-testid="backtest-csv-name">
                      {t('backtest.csv.loaded', {
                        name: csv.name,
                        size: Math.max(1, Math.round(csv.size / 1024)),
                      })}
                    </Text>
                    <Button
                      size="xs"
                      variant="subtle"
                      disabled={busy}
                      onClick={clearCsv}
                      data-testid="backtest-csv-clear"
                    >
                      {t('backtest.csv.clear')}
                    </Button>
                  </>
                )}
              </Group>
            </Input.Wrapper>
            {error && (
              <Alert color="red" data-testid="backtest-error">
                {error}
              </Alert>
            )}
            {state.phase === 'idle' && state.cancelled && !error && (
              <Text size="sm" c="dimmed" data-testid="backtest-cancelled">
                {t('backtest.cancelled')}
              </Text>
            )}
            {busy ? (
              <Stack gap={4}>
                <Progress
                  value={state.phase === 'running' ? Math.round(state.progress * 100) : 0}
                  animated
                  striped={state.phase === 'starting' || (state.phase === 'running' && state.queued)}
                  data-testid="backtest-progress"
                  data-progress={state.phase === 'running' ? state.progress : 0}
                />
                <Group justify="space-between">
                  <Text size="sm" data-testid="backtest-progress-text">
                    {state.phase === 'starting'
                      ? t('backtest.starting')
                      : state.queued
                        ? t('backtest.queued')
                        : t('backtest.running', { pct: Math.round(state.progress * 100) })}
                  </Text>
                  <Button
                    color="red"
                    variant="light"
                    loading={state.phase === 'running' && state.cancelling === true}
                    onClick={() => void cancel()}
                    data-testid="backtest-cancel"
                  >
                    {t('backtest.cancel')}
                  </Button>
                </Group>
              </Stack>
            ) : (
              <Group justify="flex-end">
                <Button onClick={start} data-testid="backtest-run">
                  {t('backtest.run')}
                </Button>
              </Group>
            )}
          </>
        )}
        {state.phase === 'done' && (
          <BacktestResult
            result={state.result}
            symbol={symbol || state.result.symbol}
            onAgain={reset}
            {...(onStart
              ? {
                  onStart: () => {
                    const params = sent.current ?? state.result.params;
                    onClose();
                    onStart(params);
                  },
                }
              : {})}
          />
        )}
      </Stack>
    </Modal>
  );
}

/** The result: summary figures, charts, trades, assumptions, and 'Start this bot'. */
function BacktestResult({
  result,
  symbol,
  onAgain,
  onStart,
}: {
  result: BacktestView;
  symbol: string;
  onAgain: () => void;
  onStart?: () => void;
}) {
  const { t } = useTranslation();
  const [page, setPage] = useState(1);
  const { quote } = pairParts(symbol);
  const summary = result.summary;
  const figures = useMemo(() => (summary ? summaryFigures(summary, symbol, t) : []), [summary, symbol, t]);
  const trades = result.trades ?? [];
  const fills = result.fills ?? [];
  const equity = result.equity ?? [];
  const pages = Math.max(1, Math.ceil(trades.length / TRADES_PER_PAGE));
  const shown = trades.slice((page - 1) * TRADES_PER_PAGE, page * TRADES_PER_PAGE);
  const buys = fills.filter((f) => f.side === 'buy').length;
  const sells = fills.length - buys;
  const firstEq = equity[0]?.equity ?? 0;
  const lastEq = equity[equity.length - 1]?.equity ?? 0;

  return (
    <Stack gap="sm" data-testid="backtest-result">
      <Text size="sm" c="dimmed" data-testid="backtest-range">
        {t('backtest.result.range', {
          from: fmtTime(summary?.from ?? result.from),
          to: fmtTime(summary?.to ?? result.to),
          interval: result.interval,
        })}
      </Text>
      <SimpleGrid cols={{ base: 2, sm: 3, md: 5 }} spacing="xs" data-testid="backtest-summary">
        {figures.map((f) => (
          <Paper key={f.id} withBorder p="xs">
            <Text size="xs" c="dimmed">
              {t(f.label)}
            </Text>
            <Text fw={600} size="sm" {...(f.color ? { c: f.color } : {})} data-testid={`backtest-${f.id}`}>
              {f.value}
            </Text>
          </Paper>
        ))}
      </SimpleGrid>
      <Suspense fallback={<Loader size="sm" />}>
        <BacktestCharts
          candles={result.candles ?? []}
          fills={fills}
          equity={equity}
          titles={{ equity: t('backtest.result.equity', { quote }), price: t('backtest.result.price') }}
          labels={{
            equity: t('backtest.result.equityLabel', {
              n: equity.length,
              first: money(firstEq),
              last: money(lastEq),
              quote,
            }),
            price: t('backtest.result.priceLabel', { symbol, buys, sells }),
            legend: t('backtest.result.fillsLegend', { buys, sells }),
          }}
        />
      </Suspense>
      <Text fw={600} size="sm">
        {t('backtest.result.trades', { n: trades.length })}
      </Text>
      {trades.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="backtest-no-trades">
          {t('backtest.result.noTrades')}
        </Text>
      ) : (
        <>
          <ScrollArea>
            <Table striped withTableBorder fz="xs" data-testid="backtest-trades">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('backtest.result.buyTime')}</Table.Th>
                  <Table.Th>{t('backtest.result.sellTime')}</Table.Th>
                  <Table.Th>{t('backtest.result.qty')}</Table.Th>
                  <Table.Th>{t('backtest.result.buyPrice')}</Table.Th>
                  <Table.Th>{t('backtest.result.sellPrice')}</Table.Th>
                  <Table.Th>{t('backtest.result.pnlNet')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {shown.map((tr, i) => (
                  <Table.Tr key={`${tr.buyTime}-${tr.sellTime}-${i}`} data-testid="backtest-trade-row">
                    <Table.Td>{fmtTime(tr.buyTime)}</Table.Td>
                    <Table.Td>{fmtTime(tr.sellTime)}</Table.Td>
                    <Table.Td>{qty(tr.qty)}</Table.Td>
                    <Table.Td>{price(tr.buyPrice)}</Table.Td>
                    <Table.Td>{price(tr.sellPrice)}</Table.Td>
                    <Table.Td c={tr.pnlNet >= 0 ? 'green' : 'red'} data-testid="backtest-trade-pnl">
                      {signed(money(tr.pnlNet), tr.pnlNet)}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea>
          {pages > 1 && (
            <Group justify="center">
              <Pagination
                size="sm"
                total={pages}
                value={page}
                onChange={setPage}
                data-testid="backtest-trades-pager"
              />
            </Group>
          )}
        </>
      )}
      {summary && (summary.rejections.insufficient_funds > 0 || summary.rejections.min_cost > 0) && (
        <Text size="sm" c="orange" data-testid="backtest-rejections">
          {t('backtest.result.rejections', {
            funds: summary.rejections.insufficient_funds,
            minCost: summary.rejections.min_cost,
          })}
        </Text>
      )}
      {summary?.stopReason && (
        <Text size="sm" c="orange" data-testid="backtest-stop-reason">
          {t('backtest.result.stopReason', { reason: summary.stopReason })}
        </Text>
      )}
      {(result.truncated?.trades || result.truncated?.fills) && (
        <Text size="xs" c="dimmed" data-testid="backtest-truncated">
          {t('backtest.result.truncated', {
            trades: summary?.closedTrades ?? trades.length,
            fills: summary?.fills ?? fills.length,
          })}
        </Text>
      )}
      {(result.assumptions ?? []).length > 0 && (
        <>
          <Text fw={600} size="sm">
            {t('backtest.result.assumptions')}
          </Text>
          <List size="xs" data-testid="backtest-assumptions">
            {(result.assumptions ?? []).map((a) => (
              <List.Item key={a}>{a}</List.Item>
            ))}
          </List>
        </>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={onAgain} data-testid="backtest-again">
          {t('backtest.again')}
        </Button>
        {onStart && (
          <Button
            color="green"
            onClick={onStart}
            title={t('backtest.result.startHint')}
            data-testid="backtest-start"
          >
            {t('backtest.result.start')}
          </Button>
        )}
      </Group>
    </Stack>
  );
}
