import { Alert, Badge, Button, Group, Loader, Modal, ScrollArea, Stack, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { ClassicBotView } from '@bytx/contract';
import { errorMessage } from '../../../shared/api/client';
import { dashboardApi, pageWindow, type StopMode } from '../api/dashboard';

export const fmtDate = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');
export const fmt = (n: number | null | undefined, d = 8) =>
  typeof n === 'number' && Number.isFinite(n) ? Number(n.toFixed(d)).toString() : '—';
export const pnlColor = (n: number) => (n >= 0 ? 'green' : 'red');

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
        {t('dashboard.history.prev')}
      </Button>
      {pageWindow(page, pages).map((p) => (
        <Button key={p} size="xs" variant={p === page ? 'filled' : 'default'} onClick={() => onPage(p)}>
          {p}
        </Button>
      ))}
      <Button size="xs" variant="default" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        {t('dashboard.history.next')}
      </Button>
    </Group>
  );
}

export type ProgressPhase = 'loading' | 'success' | 'error';

/** Start and stop progress modals (spec part 2 §2): loading, success or error texts. */
export function ProgressModal({
  kind,
  phase,
  detail,
  onClose,
}: {
  kind: 'start' | 'stop';
  phase: ProgressPhase | null;
  detail?: string | null;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const k = kind === 'start' ? 'startProgress' : 'stopProgress';
  return (
    <Modal
      opened={phase !== null}
      onClose={onClose}
      withCloseButton={phase !== 'loading'}
      centered
      title={null}
    >
      <Stack align="center" gap="sm" data-testid={`dash-${kind}-progress`}>
        {phase === 'loading' && (
          <>
            <Loader />
            <Text fw={600}>{t(`dashboard.${k}.loading`)}</Text>
            <Text size="sm" c="dimmed">
              {t(`dashboard.${k}.loadingDetail`)}
            </Text>
          </>
        )}
        {phase === 'success' && (
          <Text fw={600} c="green">
            {t(`dashboard.${k}.success`)}
          </Text>
        )}
        {phase === 'error' && (
          <>
            <Text fw={600} c="red">
              {t(`dashboard.${k}.error`)}
            </Text>
            {detail && (
              <Text size="sm" c="red" data-testid={`dash-${kind}-error-detail`}>
                {detail}
              </Text>
            )}
          </>
        )}
      </Stack>
    </Modal>
  );
}

/** The 0.5% attention dialog; ACCEPT closes it and focuses the offending field. */
export function AttentionDialog({ opened, onAccept }: { opened: boolean; onAccept: () => void }) {
  const { t } = useTranslation();
  return (
    <Modal opened={opened} onClose={onAccept} title={t('dashboard.attention.title')} centered>
      <Stack>
        <Text data-testid="dash-attention-text">{t('dashboard.validation.minPct')}</Text>
        <Button onClick={onAccept} data-testid="dash-attention-accept">
          {t('dashboard.attention.accept')}
        </Button>
      </Stack>
    </Modal>
  );
}

export function StopDialog({
  bot,
  onChoose,
  onCancel,
}: {
  bot: ClassicBotView | null;
  onChoose: (mode: StopMode) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Modal opened={bot !== null} onClose={onCancel} title={t('dashboard.stopDialog.title')} centered>
      {bot && (
        <Stack data-testid="dash-stop-dialog">
          <Text>{t('dashboard.stopDialog.question', { symbol: bot.symbol, exchange: bot.exchange })}</Text>
          <Button color="red" onClick={() => onChoose('close_market')} data-testid="dash-stop-close-market">
            {t('dashboard.stopDialog.closeMarket')}
          </Button>
          <Button color="yellow" onClick={() => onChoose('cancel_only')} data-testid="dash-stop-cancel-only">
            {t('dashboard.stopDialog.cancelOnly')}
          </Button>
          <Button variant="default" onClick={onCancel} data-testid="dash-stop-dismiss">
            {t('dashboard.stopDialog.cancel')}
          </Button>
        </Stack>
      )}
    </Modal>
  );
}

/** A striped, scrollable table with one header row: the lists of these dialogs. */
function RowsTable({ headers, h, children }: { headers: string[]; h?: number; children: ReactNode }) {
  return (
    <ScrollArea {...(h === undefined ? {} : { h })}>
      <Table striped>
        <Table.Thead>
          <Table.Tr>
            {headers.map((label) => (
              <Table.Th key={label}>{label}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>{children}</Table.Tbody>
      </Table>
    </ScrollArea>
  );
}

/** Per-bot trading history: closed buy-to-sell trades, 25 a page, 'Total ganado'. */
export function TradeHistoryDialog({ bot, onClose }: { bot: ClassicBotView | null; onClose: () => void }) {
  const { t } = useTranslation();
  const [page, setPage] = useState(1);
  const q = useQuery({
    queryKey: ['dashboard', 'history', bot?.id, page],
    queryFn: () => dashboardApi.history(bot!.id, page),
    enabled: bot !== null,
  });
  return (
    <Modal
      opened={bot !== null}
      onClose={() => {
        setPage(1);
        onClose();
      }}
      title={bot ? t('dashboard.history.title', { exchange: bot.exchange, symbol: bot.symbol }) : ''}
      size="xl"
    >
      <Stack data-testid="dash-history-dialog">
        <Text size="sm" c="dimmed">
          {t('dashboard.history.note')}
        </Text>
        {q.isLoading && <Loader size="sm" />}
        {q.isError && (
          <Alert color="red">
            {t('dashboard.errors.historyLoadMsg', {
              message: errorMessage(q.error, t('dashboard.errors.historyLoad')),
            })}
          </Alert>
        )}
        {q.data && q.data.historial.length === 0 && (
          <Text data-testid="dash-history-empty">{t('dashboard.history.empty')}</Text>
        )}
        {q.data && q.data.historial.length > 0 && (
          <RowsTable
            headers={[
              t('dashboard.history.buyDate'),
              t('dashboard.history.sellDate'),
              t('dashboard.history.qty'),
              t('dashboard.history.buy'),
              t('dashboard.history.sell'),
              t('dashboard.history.pnl'),
            ]}
          >
            {q.data.historial.map((r) => (
              <Table.Tr key={r.id} data-testid="dash-history-row">
                <Table.Td>{fmtDate(r.buy_time)}</Table.Td>
                <Table.Td>{fmtDate(r.sell_time)}</Table.Td>
                <Table.Td>{fmt(r.qty)}</Table.Td>
                <Table.Td>{fmt(r.buy_price, 4)}</Table.Td>
                <Table.Td>{fmt(r.sell_price, 4)}</Table.Td>
                <Table.Td c={pnlColor(r.pnl_net)} data-testid="dash-history-pnl">
                  {fmt(r.pnl_net, 8)}
                </Table.Td>
              </Table.Tr>
            ))}
          </RowsTable>
        )}
        {q.data && (
          <Text fw={600} c={pnlColor(q.data.total_pnl)} data-testid="dash-history-total">
            {t('dashboard.history.total')}: {fmt(q.data.total_pnl, 2)} USDT
          </Text>
        )}
        <Pager page={page} pages={q.data?.pages ?? 1} onPage={setPage} />
      </Stack>
    </Modal>
  );
}

/** The bot's open orders, 6 a page. */
export function PendingOrdersDialog({
  bot,
  userId,
  onClose,
}: {
  bot: ClassicBotView | null;
  userId: string;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [page, setPage] = useState(1);
  const q = useQuery({
    queryKey: ['dashboard', 'pending', bot?.id, page],
    queryFn: () => dashboardApi.pendingOrders(userId, bot!.id, page),
    enabled: bot !== null,
  });
  return (
    <Modal
      opened={bot !== null}
      onClose={() => {
        setPage(1);
        onClose();
      }}
      title={bot ? t('dashboard.pending.title', { exchange: bot.exchange, symbol: bot.symbol }) : ''}
      size="xl"
    >
      <Stack data-testid="dash-pending-dialog">
        {q.isLoading && <Loader size="sm" />}
        {q.isError && (
          <Alert color="red">
            {t('dashboard.errors.pendingLoadMsg', {
              message: errorMessage(q.error, t('dashboard.errors.pendingLoad')),
            })}
          </Alert>
        )}
        {q.data && q.data.orders.length === 0 && <Text>{t('dashboard.pending.empty')}</Text>}
        {q.data && q.data.orders.length > 0 && (
          <RowsTable
            headers={[
              t('dashboard.pending.date'),
              t('dashboard.pending.entry'),
              t('dashboard.pending.limit'),
              t('dashboard.pending.amount'),
              t('dashboard.pending.qty'),
              t('dashboard.pending.status'),
            ]}
          >
            {q.data.orders.map((o) => (
              <Table.Tr key={o.id} data-testid="dash-pending-row">
                <Table.Td>{fmtDate(o.created_at)}</Table.Td>
                <Table.Td>{fmt(o.entry_price, 4)}</Table.Td>
                <Table.Td>{fmt(o.limit_price, 4)}</Table.Td>
                <Table.Td>
                  {fmt(o.amount_quote, 2)} {o.quote}
                </Table.Td>
                <Table.Td>{fmt(o.qty)}</Table.Td>
                <Table.Td>
                  <Badge color={o.status === 'open' ? 'blue' : 'green'}>
                    {t(o.status === 'open' ? 'dashboard.pending.open' : 'dashboard.pending.completed')}
                  </Badge>
                </Table.Td>
              </Table.Tr>
            ))}
          </RowsTable>
        )}
        <Pager page={page} pages={q.data?.pages ?? 1} onPage={setPage} />
      </Stack>
    </Modal>
  );
}

/** The footer's bot history: every closed classic DCA bot with its PnL. */
export function ClosedBotsDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const q = useQuery({
    queryKey: ['dashboard', 'closed'],
    queryFn: dashboardApi.closedBots,
    enabled: opened,
  });
  return (
    <Modal opened={opened} onClose={onClose} title={t('dashboard.closed.title')} size="xl">
      <Stack data-testid="dash-closed-dialog">
        {q.isLoading && <Loader size="sm" />}
        {q.isError && <Alert color="red">{t('dashboard.errors.historyAll')}</Alert>}
        {q.data && q.data.historial.length === 0 && <Text>{t('dashboard.closed.empty')}</Text>}
        {q.data && q.data.historial.length > 0 && (
          <RowsTable
            headers={[
              t('dashboard.closed.exchange'),
              t('dashboard.closed.symbol'),
              t('dashboard.closed.amount'),
              t('dashboard.closed.tp'),
              t('dashboard.closed.os'),
              t('dashboard.closed.start'),
              t('dashboard.closed.end'),
              t('dashboard.closed.pnl'),
            ]}
          >
            {q.data.historial.map((b, i) => (
              <Table.Tr key={b.id ?? `${b.exchange}-${b.symbol}-${i}`} data-testid="dash-closed-row">
                <Table.Td>{b.exchange}</Table.Td>
                <Table.Td>{b.symbol}</Table.Td>
                <Table.Td>{b.amount}</Table.Td>
                <Table.Td>{b.tp}</Table.Td>
                <Table.Td>{b.os}</Table.Td>
                <Table.Td>{fmtDate(b.datetime_inicio)}</Table.Td>
                <Table.Td>{fmtDate(b.datetime_cierre)}</Table.Td>
                <Table.Td c={pnlColor(b.pnl)} data-testid="dash-closed-pnl" data-pnl={b.pnl}>
                  {fmt(b.pnl, 2)} USDT
                </Table.Td>
              </Table.Tr>
            ))}
          </RowsTable>
        )}
      </Stack>
    </Modal>
  );
}

/** The bot's event log ("why no order"), each code rendered in the user's language; unknown codes raw. */
export function EventsDialog({
  bot,
  userId,
  onClose,
}: {
  bot: ClassicBotView | null;
  userId: string;
  onClose: () => void;
}) {
  const { t, i18n } = useTranslation();
  const q = useQuery({
    queryKey: ['dashboard', 'events', bot?.id],
    queryFn: () => dashboardApi.events(userId, bot!.id),
    enabled: bot !== null,
  });
  const render = (code: string, params: Record<string, unknown>) => {
    const key = `dashboard.events.codes.${code}`;
    const vals = Object.fromEntries(Object.entries(params ?? {}).map(([k, v]) => [k, String(v)]));
    return i18n.exists(key) ? t(key, vals) : `${code} ${JSON.stringify(params ?? {})}`;
  };
  return (
    <Modal
      opened={bot !== null}
      onClose={onClose}
      title={bot ? t('dashboard.events.title', { exchange: bot.exchange, symbol: bot.symbol }) : ''}
      size="xl"
    >
      <Stack data-testid="dash-events-dialog">
        {q.isLoading && <Loader size="sm" />}
        {q.isError && (
          <Alert color="red">{t('dashboard.errors.eventsLoad', { message: errorMessage(q.error) })}</Alert>
        )}
        {q.data && q.data.events.length === 0 && <Text>{t('dashboard.events.empty')}</Text>}
        {q.data && q.data.events.length > 0 && (
          <RowsTable
            h={420}
            headers={[t('dashboard.events.time'), t('dashboard.events.level'), t('dashboard.events.event')]}
          >
            {q.data.events.map((e) => (
              <Table.Tr key={e.id} data-testid="dash-event-row" data-code={e.code}>
                <Table.Td>{fmtDate(e.ts)}</Table.Td>
                <Table.Td>
                  <Badge color={e.level === 'info' ? 'blue' : e.level === 'warn' ? 'yellow' : 'red'}>
                    {t(`dashboard.events.levels.${e.level}`)}
                  </Badge>
                </Table.Td>
                <Table.Td>{render(e.code, e.params)}</Table.Td>
              </Table.Tr>
            ))}
          </RowsTable>
        )}
      </Stack>
    </Modal>
  );
}
