import { Alert, Badge, Button, Loader, Modal, ScrollArea, Stack, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { BotEventView, DcaTradeView, PendingOrderView } from '@bytx/contract';
import { api, errorMessage } from '../api/client';
import { useSession, userIdOf } from '../session/session';
import type { BotIdentity, ClosedBotRow, StopMode } from './api';
import { eventSentence } from './eventText';
import { fmt, fmtDate, pnlColor } from './format';
import { Pager } from './Pager';
import { PendingActionDialogs, PendingRowActions, type PendingActionRequest } from './PendingActions';
import type { BotScreen } from './screen';
import { useConfirm } from '../ui/ConfirmDialog';
import { bodyOnlyTid, dialogTid, tid } from './testIds';

export type ProgressPhase = 'loading' | 'success' | 'error';

/** Start and stop progress modals (spec part 2 §2): loading, success or error texts. */
export function ProgressModal({
  screen,
  kind,
  phase,
  detail,
  onClose,
}: {
  screen: BotScreen;
  kind: 'start' | 'stop';
  phase: ProgressPhase | null;
  detail?: string | null;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const k = kind === 'start' ? 'startProgress' : 'stopProgress';
  const { ids } = screen;
  const onModal = ids.dialogIdOn === 'modal';
  return (
    <Modal
      opened={phase !== null}
      onClose={onClose}
      withCloseButton={phase !== 'loading'}
      centered
      title={null}
      data-testid={onModal ? tid(ids, `${kind}-progress`) : undefined}
    >
      <Stack
        align="center"
        gap="sm"
        data-testid={tid(ids, onModal ? `${kind}-progress-body` : `${kind}-progress`)}
      >
        {phase === 'loading' && (
          <>
            <Loader />
            <Text fw={600}>{t(`bots.${k}.loading`)}</Text>
            <Text size="sm" c="dimmed">
              {t(`bots.${k}.loadingDetail`)}
            </Text>
          </>
        )}
        {phase === 'success' && (
          <Text fw={600} c="green">
            {t(`bots.${k}.success`)}
          </Text>
        )}
        {phase === 'error' && (
          <>
            <Text fw={600} c="red">
              {t(`bots.${k}.error`)}
            </Text>
            {detail && (
              <Text size="sm" c="red" data-testid={bodyOnlyTid(ids, `${kind}-error-detail`)}>
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
export function AttentionDialog({
  screen,
  opened,
  onAccept,
}: {
  screen: BotScreen;
  opened: boolean;
  onAccept: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Modal opened={opened} onClose={onAccept} title={t('bots.attention.title')} centered>
      <Stack>
        <Text data-testid={tid(screen.ids, 'attention-text')}>{t('bots.validation.minPct')}</Text>
        <Button onClick={onAccept} data-testid={tid(screen.ids, 'attention-accept')}>
          {t('bots.attention.accept')}
        </Button>
      </Stack>
    </Modal>
  );
}

/** Stop: close everything at market, or keep the assets and cancel the orders only. */
export function StopDialog({
  screen,
  bot,
  onChoose,
  onCancel,
}: {
  screen: BotScreen;
  bot: BotIdentity | null;
  onChoose: (mode: StopMode) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const { ids } = screen;
  return (
    <Modal opened={bot !== null} onClose={onCancel} title={t('bots.stopDialog.title')} centered>
      {bot && (
        <Stack data-testid={bodyOnlyTid(ids, 'stop-dialog')}>
          <Text>{t('bots.stopDialog.question', { symbol: bot.symbol, exchange: bot.exchange })}</Text>
          <Button
            color="red"
            onClick={() => onChoose('close_market')}
            data-testid={tid(ids, 'stop-close-market')}
          >
            {t('bots.stopDialog.closeMarket')}
          </Button>
          <Button
            color="yellow"
            onClick={() => onChoose('cancel_only')}
            data-testid={tid(ids, 'stop-cancel-only')}
          >
            {t('bots.stopDialog.cancelOnly')}
          </Button>
          <Button variant="default" onClick={onCancel} data-testid={bodyOnlyTid(ids, 'stop-dismiss')}>
            {t('bots.stopDialog.cancel')}
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

/** The list dialogs' modal: 'xl', its test id on the modal or on the body as the screen does it. */
function DialogShell({
  screen,
  name,
  opened,
  title,
  onClose,
  children,
}: {
  screen: BotScreen;
  name: string;
  opened: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const dialogIds = dialogTid(screen.ids, name);
  return (
    <Modal opened={opened} onClose={onClose} title={title} size="xl" data-testid={dialogIds.modal}>
      <Stack data-testid={dialogIds.body}>{children}</Stack>
    </Modal>
  );
}

/** A bot's paged list dialog: back to page 1 on close. */
function usePage(onClose: () => void) {
  const [page, setPage] = useState(1);
  const close = () => {
    setPage(1);
    onClose();
  };
  return { page, setPage, close };
}

/** Per-bot trading history: closed buy-to-sell trades, 25 a page, 'Total ganado'. */
export function TradeHistoryDialog({
  screen,
  bot,
  load,
  onClose,
}: {
  screen: BotScreen;
  bot: BotIdentity | null;
  load: (
    bot: BotIdentity,
    page: number,
  ) => Promise<{ historial: DcaTradeView[]; total_pnl: number; pages: number }>;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const { ids } = screen;
  const { page, setPage, close } = usePage(onClose);
  const q = useQuery({
    queryKey: [screen.scope, 'history', bot?.id, page],
    queryFn: () => load(bot!, page),
    enabled: bot !== null,
  });
  const historyUser = userIdOf(useSession().user);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const [confirm, confirmDialog] = useConfirm();
  /** Deletes (hides) one trade after the spec's confirm (§5), then reloads the page. */
  const removeTrade = async (id: number) => {
    if (!(await confirm(t('bots.history.confirmDelete'), { danger: true }))) return;
    setDeleteError(null);
    try {
      await api(`/api/dca/history/${id}`, { method: 'DELETE', query: { user_id: historyUser } });
    } catch (err) {
      setDeleteError(t('bots.history.deleteFailed', { message: errorMessage(err) }));
    }
    const r = await q.refetch();
    if (r.data && r.data.historial.length === 0 && page > 1) setPage(page - 1);
  };
  return (
    <DialogShell
      screen={screen}
      name="history-dialog"
      opened={bot !== null}
      onClose={close}
      title={bot ? t('bots.history.title', { exchange: bot.exchange, symbol: bot.symbol }) : ''}
    >
      <Text size="sm" c="dimmed">
        {t('bots.history.note')}
      </Text>
      {confirmDialog}
      {q.isLoading && <Loader size="sm" />}
      {q.isError && (
        <Alert color="red">
          {t('bots.errors.historyLoadMsg', { message: errorMessage(q.error, t('bots.errors.historyLoad')) })}
        </Alert>
      )}
      {deleteError && (
        <Alert color="red" data-testid={tid(ids, 'history-delete-error')}>
          {deleteError}
        </Alert>
      )}
      {q.data && q.data.historial.length === 0 && (
        <Text data-testid={tid(ids, 'history-empty')}>{t('bots.history.empty')}</Text>
      )}
      {q.data && q.data.historial.length > 0 && (
        <RowsTable
          headers={[
            t('bots.history.buyDate'),
            t('bots.history.sellDate'),
            t('bots.history.qty'),
            t('bots.history.buy'),
            t('bots.history.sell'),
            t('bots.history.pnl'),
            '',
          ]}
        >
          {q.data.historial.map((r) => (
            <Table.Tr key={r.id} data-testid={tid(ids, 'history-row')}>
              <Table.Td>{fmtDate(r.buy_time)}</Table.Td>
              <Table.Td>{fmtDate(r.sell_time)}</Table.Td>
              <Table.Td>{fmt(r.qty)}</Table.Td>
              <Table.Td>{fmt(r.buy_price, 4)}</Table.Td>
              <Table.Td>{fmt(r.sell_price, 4)}</Table.Td>
              <Table.Td c={pnlColor(r.pnl_net)} data-testid={tid(ids, 'history-pnl')}>
                {fmt(r.pnl_net, 8)}
              </Table.Td>
              <Table.Td>
                <Button
                  size="compact-xs"
                  color="red"
                  variant="light"
                  onClick={() => void removeTrade(r.id)}
                  data-testid={tid(ids, 'history-delete')}
                >
                  {t('bots.history.delete')}
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </RowsTable>
      )}
      {q.data && (
        <Text fw={600} c={pnlColor(q.data.total_pnl)} data-testid={tid(ids, 'history-total')}>
          {t('bots.history.total')}: {fmt(q.data.total_pnl, 2)} USDT
        </Text>
      )}
      <Pager page={page} pages={q.data?.pages ?? 1} onPage={setPage} />
    </DialogShell>
  );
}

/**
 * The bot's open orders (lots), 6 a page; the screen's catalog names the limit column (`<ns>.pending.limit`).
 * Each row has the pending-order actions (sell, add funds, delete, auto-fund ON/OFF, each confirmed);
 * the list reloads after each, and every 2 s while an order is busy.
 */
export function PendingOrdersDialog({
  screen,
  bot,
  load,
  onClose,
}: {
  screen: BotScreen;
  bot: BotIdentity | null;
  load: (bot: BotIdentity, page: number) => Promise<{ orders: PendingOrderView[]; pages: number }>;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const { ids } = screen;
  const { page, setPage, close } = usePage(onClose);
  const userId = userIdOf(useSession().user);
  const [request, setRequest] = useState<PendingActionRequest | null>(null);
  const q = useQuery({
    queryKey: [screen.scope, 'pending', bot?.id, page],
    queryFn: () => load(bot!, page),
    enabled: bot !== null,
    refetchInterval: (query) => (query.state.data?.orders.some((o) => o.busy) ? 2_000 : false),
  });
  return (
    <DialogShell
      screen={screen}
      name="pending-dialog"
      opened={bot !== null}
      onClose={close}
      title={bot ? t('bots.pending.title', { exchange: bot.exchange, symbol: bot.symbol }) : ''}
    >
      {q.isLoading && <Loader size="sm" />}
      {q.isError && (
        <Alert color="red">
          {t('bots.errors.pendingLoadMsg', { message: errorMessage(q.error, t('bots.errors.pendingLoad')) })}
        </Alert>
      )}
      {q.data && q.data.orders.length === 0 && <Text>{t('bots.pending.empty')}</Text>}
      {q.data && q.data.orders.length > 0 && (
        <RowsTable
          headers={[
            t('bots.pending.date'),
            t('bots.pending.entry'),
            t(`${screen.ns}.pending.limit`),
            t('bots.pending.amount'),
            t('bots.pending.qty'),
            t('bots.pending.status'),
            t('bots.pendingActions.actions'),
          ]}
        >
          {q.data.orders.map((o) => (
            <Table.Tr key={o.id} data-testid={tid(ids, 'pending-row')}>
              <Table.Td>{fmtDate(o.created_at)}</Table.Td>
              <Table.Td>{fmt(o.entry_price, 4)}</Table.Td>
              <Table.Td>{fmt(o.limit_price, 4)}</Table.Td>
              <Table.Td>
                {fmt(o.amount_quote, 2)} {o.quote}
              </Table.Td>
              <Table.Td>{fmt(o.qty)}</Table.Td>
              <Table.Td>
                <Badge color={o.status === 'open' ? 'blue' : 'green'} data-testid={tid(ids, 'pending-state')}>
                  {t(o.status === 'open' ? 'bots.pending.open' : 'bots.pending.completed')}
                </Badge>
                {/* The spec's open state reads 'Open' / 'in wait': its take profit waits to fill. */}
                {o.status === 'open' && (
                  <Text size="xs" c="dimmed" data-testid={tid(ids, 'pending-in-wait')}>
                    {t('bots.pending.inWait')}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <PendingRowActions
                  prefix={tid(ids, 'pending')}
                  order={o}
                  autoFund={o.auto_fund === true}
                  onRequest={setRequest}
                />
              </Table.Td>
            </Table.Tr>
          ))}
        </RowsTable>
      )}
      <Pager page={page} pages={q.data?.pages ?? 1} onPage={setPage} />
      <PendingActionDialogs
        prefix={tid(ids, 'pending')}
        userId={userId}
        request={request}
        onClose={() => setRequest(null)}
        onDone={() => void q.refetch()}
      />
    </DialogShell>
  );
}

/** The footer's bot history: every closed bot of the screen's kind with its PnL. */
export function ClosedBotsDialog({
  screen,
  opened,
  load,
  onClose,
}: {
  screen: BotScreen;
  opened: boolean;
  load: () => Promise<{ historial: ClosedBotRow[] }>;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const { ids } = screen;
  const q = useQuery({ queryKey: [screen.scope, 'closed'], queryFn: load, enabled: opened });
  return (
    <DialogShell
      screen={screen}
      name="closed-dialog"
      opened={opened}
      onClose={onClose}
      title={t('bots.closed.title')}
    >
      {q.isLoading && <Loader size="sm" />}
      {q.isError && <Alert color="red">{t('bots.errors.historyAll')}</Alert>}
      {q.data && q.data.historial.length === 0 && <Text>{t('bots.closed.empty')}</Text>}
      {q.data && q.data.historial.length > 0 && (
        <RowsTable
          headers={[
            t('bots.closed.exchange'),
            t('bots.closed.symbol'),
            t('bots.closed.amount'),
            t('bots.closed.tp'),
            t('bots.closed.os'),
            t('bots.closed.start'),
            t('bots.closed.end'),
            t('bots.closed.pnl'),
          ]}
        >
          {q.data.historial.map((b, i) => (
            <Table.Tr key={b.id ?? `${b.exchange}-${b.symbol}-${i}`} data-testid={tid(ids, 'closed-row')}>
              <Table.Td>{b.exchange}</Table.Td>
              <Table.Td>{b.symbol}</Table.Td>
              <Table.Td>{b.amount}</Table.Td>
              <Table.Td>{b.tp}</Table.Td>
              <Table.Td>{b.os}</Table.Td>
              <Table.Td>{fmtDate(b.datetime_inicio)}</Table.Td>
              <Table.Td>{fmtDate(b.datetime_cierre)}</Table.Td>
              <Table.Td c={pnlColor(b.pnl)} data-testid={bodyOnlyTid(ids, 'closed-pnl')} data-pnl={b.pnl}>
                {fmt(b.pnl, 2)} USDT
              </Table.Td>
            </Table.Tr>
          ))}
        </RowsTable>
      )}
    </DialogShell>
  );
}

/**
 * The bot's event log ("Why no order?"), titled from the screen's own catalog (`<ns>.events.title`),
 * each event a sentence in the user's language with its figures formatted (eventText.ts: the screen's
 * `<ns>.events.codes`, then the shared `bots.events.codes`, else a generic readable line; never JSON).
 */
export function EventsDialog({
  screen,
  bot,
  load,
  onClose,
}: {
  screen: BotScreen;
  bot: BotIdentity | null;
  load: (bot: BotIdentity) => Promise<{ events: BotEventView[] }>;
  onClose: () => void;
}) {
  const { t, i18n } = useTranslation();
  const { ids } = screen;
  const q = useQuery({
    queryKey: [screen.scope, 'events', bot?.id],
    queryFn: () => load(bot!),
    enabled: bot !== null,
  });
  return (
    <DialogShell
      screen={screen}
      name="events-dialog"
      opened={bot !== null}
      onClose={onClose}
      title={bot ? t(`${screen.ns}.events.title`, { exchange: bot.exchange, symbol: bot.symbol }) : ''}
    >
      {q.isLoading && <Loader size="sm" />}
      {q.isError && (
        <Alert color="red">{t('bots.errors.eventsLoad', { message: errorMessage(q.error) })}</Alert>
      )}
      {q.data && q.data.events.length === 0 && <Text>{t('bots.events.empty')}</Text>}
      {q.data && q.data.events.length > 0 && (
        <RowsTable h={420} headers={[t('bots.events.time'), t('bots.events.level'), t('bots.events.event')]}>
          {q.data.events.map((e) => (
            <Table.Tr key={e.id} data-testid={tid(ids, 'event-row')} data-code={e.code}>
              <Table.Td>{fmtDate(e.ts)}</Table.Td>
              <Table.Td>
                <Badge color={e.level === 'info' ? 'blue' : e.level === 'warn' ? 'yellow' : 'red'}>
                  {t(`bots.events.levels.${e.level}`)}
                </Badge>
              </Table.Td>
              <Table.Td data-testid={tid(ids, 'event-text')}>
                {eventSentence(t, i18n, [screen.ns], e.code, e.params)}
              </Table.Td>
            </Table.Tr>
          ))}
        </RowsTable>
      )}
    </DialogShell>
  );
}
