import { Alert, Badge, Group, ScrollArea, Stack, Table, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../shared/api/client';
import { Pager } from '../../../shared/bots/Pager';
import { fmt, fmtDate } from '../../../shared/bots/format';
import { SIGNAL_POLL_MS, signalApi, type SignalRow, type SignalStatus } from '../api/signal';

export const STATUS_COLOR: Record<SignalStatus, string> = {
  accepted: 'blue',
  executed: 'green',
  rejected: 'red',
  duplicate: 'gray',
  skipped: 'orange',
};

const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

/**
 * The signal log of one bot, newest first, paged and polled every 5 s: time, action, status
 * (accepted, executed, rejected, duplicate, skipped) with the reason, the orders it produced, the
 * source address and the signal's id. The reason is the translated code with the server's detail.
 */
export function SignalLog({ botId }: { botId: string }) {
  const { t } = useTranslation();
  const [page, setPage] = useState(1);
  const log = useQuery({
    queryKey: ['signal', 'log', botId, page],
    queryFn: () => signalApi.signals(botId, page),
    refetchInterval: SIGNAL_POLL_MS,
    placeholderData: keepPreviousData,
  });
  if (log.isError) {
    return (
      <Alert color="red" data-testid="signal-log-error">
        {t('signal.log.failed', { message: errorMessage(log.error) })}
      </Alert>
    );
  }
  if (!log.data) {
    return (
      <Text size="sm" c="dimmed">
        {t('signal.log.loading')}
      </Text>
    );
  }
  const rows = log.data.signals;
  return (
    <Stack gap="xs" data-testid="signal-log">
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="signal-log-empty">
          {t('signal.messages.noSignals')}
        </Text>
      ) : (
        <ScrollArea>
          <Table striped fz="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('signal.log.time')}</Table.Th>
                <Table.Th>{t('signal.log.action')}</Table.Th>
                <Table.Th>{t('signal.log.status')}</Table.Th>
                <Table.Th>{t('signal.log.reason')}</Table.Th>
                <Table.Th>{t('signal.log.orders')}</Table.Th>
                <Table.Th>{t('signal.log.signalId')}</Table.Th>
                <Table.Th>{t('signal.log.source')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((r) => (
                <LogRow key={r.id} row={r} />
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea>
      )}
      <Group justify="space-between">
        <Text size="xs" c="dimmed" data-testid="signal-log-total">
          {t('signal.log.total', { total: log.data.total })}
        </Text>
        <Pager page={log.data.page} pages={log.data.pages} onPage={setPage} testId="signal-log-pager" />
      </Group>
    </Stack>
  );
}

function LogRow({ row }: { row: SignalRow }) {
  const { t } = useTranslation();
  const p = row.payload ?? {};
  return (
    <Table.Tr data-testid="signal-log-row" data-status={row.status} data-signal-id={text(p.id)}>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{fmtDate(row.received_at)}</Table.Td>
      <Table.Td data-testid="signal-log-action">
        {[text(p.action), text(p.amount)].filter(Boolean).join(' ')}
      </Table.Td>
      <Table.Td>
        <Badge size="sm" color={STATUS_COLOR[row.status] ?? 'gray'} data-testid="signal-log-status">
          {t(`signal.log.statuses.${row.status}`, { defaultValue: row.status })}
        </Badge>
      </Table.Td>
      <Table.Td data-testid="signal-log-reason">
        {row.reason && (
          <Text size="xs">{t(`signal.reasons.${row.reason}`, { defaultValue: row.reason })}</Text>
        )}
        {row.reason_text && (
          <Text size="xs" c="dimmed" data-testid="signal-log-reason-detail">
            {row.reason_text}
          </Text>
        )}
      </Table.Td>
      <Table.Td data-testid="signal-log-orders">
        {row.orders.map((o) => (
          <Text size="xs" key={o.client_order_id} style={{ whiteSpace: 'nowrap' }}>
            {t('signal.log.order', {
              side: t(`signal.log.sides.${o.side}`),
              amount: fmt(o.amount, 8),
              price: fmt(o.price, 8),
              status: o.status,
            })}
          </Text>
        ))}
      </Table.Td>
      <Table.Td data-testid="signal-log-id">{text(p.id)}</Table.Td>
      <Table.Td>{row.source_ip ?? '—'}</Table.Td>
    </Table.Tr>
  );
}
