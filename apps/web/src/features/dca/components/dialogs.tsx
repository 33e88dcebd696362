import {
  Alert,
  Badge,
  Button,
  Group,
  Loader,
  Modal,
  NumberInput,
  ScrollArea,
  Stack,
  Table,
  Text,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { DcaBotView } from '@bytx/contract';
import { errorMessage } from '../../../shared/api/client';
import { dcaApi, pageWindow } from '../api/dca';

const fmtDate = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');
const fmt = (n: number, d = 8) => (Number.isFinite(n) ? Number(n.toFixed(d)).toString() : '—');
const pnlColor = (n: number) => (n >= 0 ? 'green' : 'red');

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
        {t('dca.history.prev')}
      </Button>
      {pageWindow(page, pages).map((p) => (
        <Button key={p} size="xs" variant={p === page ? 'filled' : 'default'} onClick={() => onPage(p)}>
          {p}
        </Button>
      ))}
      <Button size="xs" variant="default" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        {t('dca.history.next')}
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
      data-testid={`dca-${kind}-progress`}
    >
      <Stack align="center" gap="sm" data-testid={`dca-${kind}-progress-body`}>
        {phase === 'loading' && (
          <>
            <Loader />
            <Text fw={600}>{t(`dca.${k}.loading`)}</Text>
            <Text size="sm" c="dimmed">
              {t(`dca.${k}.loadingDetail`)}
            </Text>
          </>
        )}
        {phase === 'success' && (
          <Text fw={600} c="green">
            {t(`dca.${k}.success`)}
          </Text>
        )}
        {phase === 'error' && (
          <>
            <Text fw={600} c="red">
              {t(`dca.${k}.error`)}
            </Text>
            {detail && (
              <Text size="sm" c="red">
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
    <Modal opened={opened} onClose={onAccept} title={t('dca.attention.title')} centered>
      <Stack>
        <Text data-testid="dca-attention-text">{t('dca.validation.minPct')}</Text>
        <Button onClick={onAccept} data-testid="dca-attention-accept">
          {t('dca.attention.accept')}
        </Button>
      </Stack>
    </Modal>
  );
}

export function LeverageDialog({
  opened,
  value,
  onCancel,
  onConfirm,
}: {
  opened: boolean;
  value: number;
  onCancel: () => void;
  onConfirm: (n: number) => void;
}) {
  const { t } = useTranslation();
  const [n, setN] = useState(value);
  return (
    <Modal opened={opened} onClose={onCancel} title={t('dca.leverage.title')} centered>
      <Stack>
        <Group justify="center">
          <Button variant="default" onClick={() => setN((x) => Math.max(1, x - 1))}>
            −
          </Button>
          <NumberInput
            value={n}
            min={1}
            allowDecimal={false}
            onChange={(v) => setN(Math.max(1, Math.floor(Number(v) || 1)))}
            w={100}
            data-testid="dca-leverage-input"
          />
          <Button variant="default" onClick={() => setN((x) => x + 1)}>
            +
          </Button>
        </Group>
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            {t('dca.leverage.cancel')}
          </Button>
          <Button onClick={() => onConfirm(n)}>{t('dca.leverage.confirm')}</Button>
        </Group>
      </Stack>
    </Modal>
  );
}

export function StopDialog({
  bot,
  onChoose,
  onCancel,
}: {
  bot: DcaBotView | null;
  onChoose: (mode: 'close_market' | 'cancel_only') => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Modal opened={bot !== null} onClose={onCancel} title={t('dca.stopDialog.title')} centered>
      {bot && (
        <Stack>
          <Text>{t('dca.stopDialog.question', { symbol: bot.symbol, exchange: bot.exchange })}</Text>
          <Button color="red" onClick={() => onChoose('close_market')} data-testid="dca-stop-close-market">
            {t('dca.stopDialog.closeMarket')}
          </Button>
          <Button color="yellow" onClick={() => onChoose('cancel_only')} data-testid="dca-stop-cancel-only">
            {t('dca.stopDialog.cancelOnly')}
          </Button>
          <Button variant="default" onClick={onCancel}>
            {t('dca.stopDialog.cancel')}
          </Button>
        </Stack>
      )}
    </Modal>
  );
}

/** Per-bot trading history: closed buy-to-sell trades, 25 a page, 'Total ganado'. */
export function TradeHistoryDialog({ bot, onClose }: { bot: DcaBotView | null; onClose: () => void }) {
  const { t } = useTranslation();
  const [page, setPage] = useState(1);
  const q = useQuery({
    queryKey: ['dca', 'history', bot?.id, page],
    queryFn: () => dcaApi.history(bot!.id, page),
    enabled: bot !== null,
  });
  return (
    <Modal
      opened={bot !== null}
      onClose={() => {
        setPage(1);
        onClose();
      }}
      title={bot ? t('dca.history.title', { exchange: bot.exchange, symbol: bot.symbol }) : ''}
      size="xl"
      data-testid="dca-history-dialog"
    >
      <Stack>
        <Text size="sm" c="dimmed">
          {t('dca.history.note')}
        </Text>
        {q.isLoading && <Loader size="sm" />}
        {q.isError && (
          <Alert color="red">
            {t('dca.errors.historyLoadMsg', { message: errorMessage(q.error, t('dca.errors.historyLoad')) })}
          </Alert>
        )}
        {q.data && q.data.historial.length === 0 && (
          <Text data-testid="dca-history-empty">{t('dca.history.empty')}</Text>
        )}
        {q.data && q.data.historial.length > 0 && (
          <RowsTable
            headers={[
              t('dca.history.buyDate'),
              t('dca.history.sellDate'),
              t('dca.history.qty'),
              t('dca.history.buy'),
              t('dca.history.sell'),
              t('dca.history.pnl'),
            ]}
          >
            {q.data.historial.map((r) => (
              <Table.Tr key={r.id} data-testid="dca-history-row">
                <Table.Td>{fmtDate(r.buy_time)}</Table.Td>
                <Table.Td>{fmtDate(r.sell_time)}</Table.Td>
                <Table.Td>{fmt(r.qty)}</Table.Td>
                <Table.Td>{fmt(r.buy_price, 4)}</Table.Td>
                <Table.Td>{fmt(r.sell_price, 4)}</Table.Td>
                <Table.Td c={pnlColor(r.pnl_net)} data-testid="dca-history-pnl">
                  {fmt(r.pnl_net, 8)}
                </Table.Td>
              </Table.Tr>
            ))}
          </RowsTable>
        )}
        {q.data && (
          <Text fw={600} c={pnlColor(q.data.total_pnl)} data-testid="dca-history-total">
            {t('dca.history.total')}: {fmt(q.data.total_pnl, 2)} USDT
          </Text>
        )}
        <Pager page={page} pages={q.data?.pages ?? 1} onPage={setPage} />
      </Stack>
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

/** The bot's open lots (pending orders), 6 a page. */
export function PendingOrdersDialog({
  bot,
  userId,
  onClose,
}: {
  bot: DcaBotView | null;
  userId: string;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [page, setPage] = useState(1);
  const q = useQuery({
    queryKey: ['dca', 'pending', bot?.id, page],
    queryFn: () => dcaApi.pendingOrders(userId, bot!.exchange, bot!.symbol, page),
    enabled: bot !== null,
  });
  return (
    <Modal
      opened={bot !== null}
      onClose={() => {
        setPage(1);
        onClose();
      }}
      title={bot ? t('dca.pending.title', { exchange: bot.exchange, symbol: bot.symbol }) : ''}
      size="xl"
      data-testid="dca-pending-dialog"
    >
      <Stack>
        {q.isLoading && <Loader size="sm" />}
        {q.isError && (
          <Alert color="red">
            {t('dca.errors.pendingLoadMsg', { message: errorMessage(q.error, t('dca.errors.pendingLoad')) })}
          </Alert>
        )}
        {q.data && q.data.orders.length === 0 && <Text>{t('dca.pending.empty')}</Text>}
        {q.data && q.data.orders.length > 0 && (
          <RowsTable
            headers={[
              t('dca.pending.date'),
              t('dca.pending.entry'),
              t('dca.pending.limit'),
              t('dca.pending.amount'),
              t('dca.pending.qty'),
              t('dca.pending.status'),
            ]}
          >
            {q.data.orders.map((o) => (
              <Table.Tr key={o.id} data-testid="dca-pending-row">
                <Table.Td>{fmtDate(o.created_at)}</Table.Td>
                <Table.Td>{fmt(o.entry_price, 4)}</Table.Td>
                <Table.Td>{fmt(o.limit_price, 4)}</Table.Td>
                <Table.Td>
                  {fmt(o.amount_quote, 2)} {o.quote}
                </Table.Td>
                <Table.Td>{fmt(o.qty)}</Table.Td>
                <Table.Td>
                  <Badge color={o.status === 'open' ? 'blue' : 'green'}>
                    {t(o.status === 'open' ? 'dca.pending.open' : 'dca.pending.completed')}
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

/** The footer's bot history: every closed bot with its PnL. */
export function ClosedBotsDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const q = useQuery({ queryKey: ['dca', 'closed'], queryFn: dcaApi.closedBots, enabled: opened });
  return (
    <Modal opened={opened} onClose={onClose} title={t('dca.closed.title')} size="xl">
      {q.isLoading && <Loader size="sm" />}
      {q.isError && <Alert color="red">{t('dca.errors.historyAll')}</Alert>}
      {q.data && q.data.historial.length === 0 && <Text>{t('dca.closed.empty')}</Text>}
      {q.data && q.data.historial.length > 0 && (
        <RowsTable
          headers={[
            t('dca.closed.exchange'),
            t('dca.closed.symbol'),
            t('dca.closed.amount'),
            t('dca.closed.tp'),
            t('dca.closed.os'),
            t('dca.closed.start'),
            t('dca.closed.end'),
            t('dca.closed.pnl'),
          ]}
        >
          {q.data.historial.map((b) => (
            <Table.Tr key={b.id} data-testid="dca-closed-row">
              <Table.Td>{b.exchange}</Table.Td>
              <Table.Td>{b.symbol}</Table.Td>
              <Table.Td>{b.amount}</Table.Td>
              <Table.Td>{b.tp}</Table.Td>
              <Table.Td>{b.os}</Table.Td>
              <Table.Td>{fmtDate(b.datetime_inicio)}</Table.Td>
              <Table.Td>{fmtDate(b.datetime_cierre)}</Table.Td>
              <Table.Td c={pnlColor(b.pnl)}>{fmt(b.pnl, 2)} USDT</Table.Td>
            </Table.Tr>
          ))}
        </RowsTable>
      )}
    </Modal>
  );
}

/** The bot's event log, each code rendered in the user's language. */
export function EventsDialog({ bot, onClose }: { bot: DcaBotView | null; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const q = useQuery({
    queryKey: ['dca', 'events', bot?.id],
    queryFn: () => dcaApi.events(bot!.id),
    enabled: bot !== null,
  });
  const render = (code: string, params: Record<string, unknown>) => {
    const key = `dca.events.codes.${code}`;
    const vals = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]));
    return i18n.exists(key) ? t(key, vals) : `${code} ${JSON.stringify(params)}`;
  };
  return (
    <Modal
      opened={bot !== null}
      onClose={onClose}
      title={bot ? t('dca.events.title', { exchange: bot.exchange, symbol: bot.symbol }) : ''}
      size="xl"
      data-testid="dca-events-dialog"
    >
      {q.isLoading && <Loader size="sm" />}
      {q.isError && (
        <Alert color="red">{t('dca.errors.eventsLoad', { message: errorMessage(q.error) })}</Alert>
      )}
      {q.data && q.data.events.length === 0 && <Text>{t('dca.events.empty')}</Text>}
      {q.data && q.data.events.length > 0 && (
        <RowsTable h={420} headers={[t('dca.events.time'), t('dca.events.level'), t('dca.events.event')]}>
          {q.data.events.map((e) => (
            <Table.Tr key={e.id} data-testid="dca-event-row">
              <Table.Td>{fmtDate(e.ts)}</Table.Td>
              <Table.Td>
                <Badge color={e.level === 'info' ? 'blue' : e.level === 'warn' ? 'yellow' : 'red'}>
                  {t(`dca.events.levels.${e.level}`)}
                </Badge>
              </Table.Td>
              <Table.Td>{render(e.code, e.params)}</Table.Td>
            </Table.Tr>
          ))}
        </RowsTable>
      )}
    </Modal>
  );
}
