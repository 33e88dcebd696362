import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Modal,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../shared/api/client';
import {
  fmtQty,
  fmtSigned,
  futuresApi,
  futuresKeys,
  positionFigures,
  positionsOf,
  POSITIONS_POLL_MS,
  signColor,
  type DerivativesPositionView,
} from '../api/futures';
import { serverText } from './serverText';

/** The toast after Close at market. */
export const CLOSE_TOAST_MS = 3_000;

const baseOf = (symbol: string) => symbol.split('/')[0] ?? symbol;

function Figure({ label, value, id, color }: { label: string; value: string; id: string; color?: string }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={500} c={color} data-testid={`futures-position-${id}`}>
        {value}
      </Text>
    </Stack>
  );
}

function PositionCard({ p, onClose }: { p: DerivativesPositionView; onClose: () => void }) {
  const { t } = useTranslation();
  const f = positionFigures(p);
  const unit = p.market_type === 'Inverse' ? t('futures.position.contracts') : baseOf(p.symbol);
  const pnlColor = signColor(p.unrealized_pnl);
  return (
    <Stack gap="xs" data-testid="futures-position" data-side={p.side}>
      <Group justify="space-between" wrap="nowrap">
        <Group gap="xs">
          <Badge color={p.side === 'long' ? 'teal' : 'red'} data-testid="futures-position-side">
            {t(`futures.position.${p.side}`)}
          </Badge>
          <Badge variant="light" color="gray" data-testid="futures-position-leverage">
            {f.leverage}
          </Badge>
        </Group>
        <Button size="xs" color="red" variant="light" onClick={onClose} data-testid="futures-position-close">
          {t('futures.position.close')}
        </Button>
      </Group>
      <SimpleGrid cols={{ base: 2, xs: 3 }} spacing="xs" verticalSpacing={6}>
        <Figure label={t('futures.position.size')} value={`${f.size} ${unit}`} id="size" />
        <Figure label={t('futures.position.entry')} value={f.entry} id="entry" />
        <Figure label={t('futures.position.mark')} value={f.mark} id="mark" />
        <Figure label={t('futures.position.liquidation')} value={f.liquidation} id="liquidation" />
        <Figure label={t('futures.position.margin')} value={`${f.margin} ${p.settle}`} id="margin" />
        <Figure
          label={t('futures.position.pnl')}
          value={`${f.pnl} ${p.settle} (${f.roe})`}
          id="pnl"
          color={pnlColor}
        />
        <Figure label={t('futures.position.funding')} value={`${f.funding} ${p.settle}`} id="funding" />
      </SimpleGrid>
    </Stack>
  );
}

/**
 * The open position on this swap symbol (size, entry, mark, liquidation price, margin, leverage,
 * unrealized PnL with its return on margin, funding paid) with Close at market (a confirmation, then
 * POST /api/futures/close), and a compact list of the other open positions of the account. Polled every
 * 5 s; `onClosed` tells the screen to refresh its orders and balances. Test ids: `futures-positions`,
 * `futures-positions-loading`, `futures-positions-error`, `futures-positions-unsupported`,
 * `futures-position-none`, `futures-position` (`data-side`), `futures-position-{side,leverage,size,entry,
 * mark,liquidation,margin,pnl,funding,close}`, `futures-close-{dialog,text,cancel,confirm}`,
 * `futures-other-positions`, `futures-other-position`.
 */
export function PositionPanel({
  exchange,
  symbol,
  onClosed,
}: {
  exchange: string;
  symbol: string;
  onClosed?: () => void;
}) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const [confirming, setConfirming] = useState<DerivativesPositionView | null>(null);
  const q = useQuery({
    queryKey: futuresKeys.positions(exchange),
    queryFn: () => futuresApi.positions(exchange),
    enabled: !!exchange,
    refetchInterval: POSITIONS_POLL_MS,
  });

  const close = useMutation({
    mutationFn: () => futuresApi.close(exchange, symbol),
    onSuccess: (res) => {
      notifications.show({
        color: 'teal',
        message: serverText(t, res.message),
        autoClose: CLOSE_TOAST_MS,
      });
    },
    onError: (err) => {
      notifications.show({
        color: 'red',
        message: serverText(t, errorMessage(err)),
        autoClose: CLOSE_TOAST_MS,
      });
    },
    onSettled: async () => {
      setConfirming(null);
      onClosed?.();
      await qc.invalidateQueries({ queryKey: futuresKeys.positions(exchange) });
    },
  });

  let body;
  if (!exchange || q.isPending) {
    body = (
      <Stack gap="xs" data-testid="futures-positions-loading">
        <Skeleton h={20} w="40%" />
        <Skeleton h={60} />
      </Stack>
    );
  } else if (q.isError && !q.data) {
    body = (
      <Alert color="red" variant="light" data-testid="futures-positions-error">
        {errorMessage(q.error)}
      </Alert>
    );
  } else if (q.data && !q.data.supported) {
    body = (
      <Text size="sm" c="dimmed" data-testid="futures-positions-unsupported">
        {t('futures.position.unsupported')}
      </Text>
    );
  } else {
    const all = q.data?.positions ?? [];
    const here = positionsOf(all, symbol);
    const others = all.filter((p) => !here.includes(p));
    body = (
      <>
        {here.length === 0 ? (
          <Text size="sm" c="dimmed" data-testid="futures-position-none">
            {t('futures.position.none', { symbol })}
          </Text>
        ) : (
          here.map((p) => (
            <PositionCard key={`${p.symbol}-${p.side}`} p={p} onClose={() => setConfirming(p)} />
          ))
        )}
        {others.length > 0 && (
          <Stack gap={4}>
            <Text size="xs" c="dimmed" fw={600}>
              {t('futures.position.others')}
            </Text>
            <Table fz="xs" verticalSpacing={4} data-testid="futures-other-positions">
              <Table.Tbody>
                {others.map((p) => (
                  <Table.Tr
                    key={`${p.symbol}-${p.market_type}-${p.side}`}
                    data-testid="futures-other-position"
                  >
                    <Table.Td>{p.symbol}</Table.Td>
                    <Table.Td c={p.side === 'long' ? 'teal' : 'red'}>
                      {t(`futures.position.${p.side}`)} {p.leverage}x
                    </Table.Td>
                    <Table.Td>{fmtQty(p.contracts)}</Table.Td>
                    <Table.Td c={signColor(p.unrealized_pnl)}>
                      {fmtSigned(p.unrealized_pnl)} {p.settle}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Stack>
        )}
      </>
    );
  }

  return (
    <Card withBorder padding="sm" data-testid="futures-positions">
      <Stack gap="xs">
        <Title order={2} size="h5">
          {t('futures.position.title')}
        </Title>
        {body}
      </Stack>
      <Modal
        opened={confirming !== null}
        onClose={() => {
          if (!close.isPending) setConfirming(null);
        }}
        title={t('futures.close.title')}
        centered
        data-testid="futures-close-dialog"
      >
        {confirming && (
          <Stack>
            <Text data-testid="futures-close-text">
              {t('futures.close.body', {
                side: t(`futures.position.${confirming.side}`),
                size: fmtQty(confirming.contracts),
                unit:
                  confirming.market_type === 'Inverse'
                    ? t('futures.position.contracts')
                    : baseOf(confirming.symbol),
                symbol: confirming.symbol,
              })}
            </Text>
            <Text size="sm" c={signColor(confirming.unrealized_pnl)}>
              {t('futures.close.pnl', {
                pnl: fmtSigned(confirming.unrealized_pnl),
                settle: confirming.settle,
              })}
            </Text>
            <Group justify="flex-end">
              <Button
                variant="default"
                onClick={() => setConfirming(null)}
                disabled={close.isPending}
                data-testid="futures-close-cancel"
              >
                {t('futures.close.cancel')}
              </Button>
              <Button
                color="red"
                onClick={() => close.mutate()}
                loading={close.isPending}
                data-autofocus
                data-testid="futures-close-confirm"
              >
                {t('futures.close.confirm')}
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </Card>
  );
}
