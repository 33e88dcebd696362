import { Alert, Badge, Button, Paper, ScrollArea, Skeleton, Stack, Table, Tabs, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, errorMessage } from '../api/client';
import { tradingApi, type SpotFill, type SpotOrderView } from './api';
import { useOrders } from './hooks';
import { useTradeNumbers } from './format';
import { serverText, type TradeMarket } from './orderRules';
import { ORDER_TOAST_MS } from './OrderPanel';

const fmtTime = (iso: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : d.toLocaleString();
};

/** The entry itself is still open (Cancel cancels it); otherwise only its TP/SL are (Cancel TP/SL). */
export const entryOpen = (o: Pick<SpotOrderView, 'status'>) =>
  o.status === 'pending' || o.status === 'open' || o.status === 'partially_filled';

const baseOf = (symbol: string) => symbol.split('/')[0] ?? symbol;

const statusColor = (s: SpotOrderView['status']) =>
  s === 'filled' ? 'teal' : s === 'cancelled' ? 'gray' : s === 'rejected' ? 'red' : 'blue';

function Loading() {
  return (
    <Stack gap={6} data-testid="trade-orders-loading" py="xs">
      {Array.from({ length: 3 }, (_, i) => (
        <Skeleton key={i} h={20} />
      ))}
    </Stack>
  );
}

function Empty({ text }: { text: string }) {
  return (
    <Text size="sm" c="dimmed" py="sm" data-testid="trade-orders-empty">
      {text}
    </Text>
  );
}

/**
 * Under the chart: the open orders of the pair with Cancel (the entry while it rests, else its TP/SL,
 * keeping the position), the recent ended orders, and the last fills; polled every 5 s. Test ids
 * `trade-orders`, `trade-orders-tab-{open,recent,fills}`, rows `trade-open-order` (data-id,
 * data-status, data-exit) with `trade-order-cancel`, `trade-recent-order` (data-id, data-status),
 * `trade-fill` (data-role), `trade-orders-empty`, `trade-orders-loading`, `trade-orders-error`.
 */
export function OrdersPanel({
  market,
  exchange,
  symbol,
  priceStep,
  paused = false,
  onChanged,
}: {
  market: TradeMarket;
  exchange: string;
  symbol: string;
  priceStep?: number | undefined;
  paused?: boolean;
  onChanged: () => void;
}) {
  const { t } = useTranslation();
  const { fmtPrice, fmtQty, fmtValue } = useTradeNumbers();
  const q = useOrders(exchange, symbol, paused);
  const [cancelling, setCancelling] = useState<string | null>(null);
  // A swap symbol's orders are futures orders; the guard keeps the other screen's out.
  const mine = (o: SpotOrderView) => o.market === market;
  const open = (q.data?.open ?? []).filter(mine);
  const recent = (q.data?.recent ?? []).filter(mine);
  const fills = q.data?.fills ?? [];
  const side = (s: 'buy' | 'sell') => t(`trading.sides.${market}.${s}`);

  const cancel = async (o: SpotOrderView) => {
    setCancelling(o.id);
    try {
      const r = await tradingApi.cancel(o.id);
      notifications.show({
        color: 'teal',
        message: serverText(t, r.message),
        autoClose: ORDER_TOAST_MS,
        'data-testid': 'trade-toast',
      });
    } catch (err) {
      notifications.show({
        color: 'red',
        message: err instanceof ApiError ? serverText(t, err.message) : errorMessage(err),
        autoClose: ORDER_TOAST_MS,
        'data-testid': 'trade-toast',
      });
    } finally {
      setCancelling(null);
      onChanged();
    }
  };

  const body = (content: ReactNode, empty: boolean, emptyText: string) =>
    q.isError && !q.data ? (
      <Alert color="red" mt="xs" data-testid="trade-orders-error">
        {t('trading.orders.failed', { message: errorMessage(q.error) })}
      </Alert>
    ) : !q.data ? (
      <Loading />
    ) : empty ? (
      <Empty text={emptyText} />
    ) : (
      <ScrollArea type="auto" offsetScrollbars>
        {content}
      </ScrollArea>
    );

  const tp = (o: SpotOrderView) =>
    o.tp === null && o.sl === null
      ? '—'
      : `${o.tp === null ? '—' : fmtPrice(o.tp, priceStep)} / ${o.sl === null ? '—' : fmtPrice(o.sl, priceStep)}`;

  return (
    <Paper withBorder p="sm" data-testid="trade-orders">
      <Tabs defaultValue="open" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="open" data-testid="trade-orders-tab-open">
            {t('trading.orders.open', { n: open.length })}
          </Tabs.Tab>
          <Tabs.Tab value="recent" data-testid="trade-orders-tab-recent">
            {t('trading.orders.recent')}
          </Tabs.Tab>
          <Tabs.Tab value="fills" data-testid="trade-orders-tab-fills">
            {t('trading.orders.fills')}
          </Tabs.Tab>
        </Tabs.List>

        <Tabs.Panel value="open">
          {body(
            <Table fz="xs" miw={760} highlightOnHover>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('trading.orders.time')}</Table.Th>
                  <Table.Th>{t('trading.orders.symbol')}</Table.Th>
                  <Table.Th>{t('trading.orders.side')}</Table.Th>
                  <Table.Th>{t('trading.orders.type')}</Table.Th>
                  <Table.Th ta="right">{t('trading.orders.price')}</Table.Th>
                  <Table.Th ta="right">{t('trading.orders.quantity')}</Table.Th>
                  <Table.Th ta="right">{t('trading.orders.filled')}</Table.Th>
                  <Table.Th>{t('trading.orders.tpSl')}</Table.Th>
                  <Table.Th>{t('trading.orders.status')}</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {open.map((o) => (
                  <Table.Tr
                    key={o.id}
                    data-testid="trade-open-order"
                    data-id={o.id}
                    data-status={o.status}
                    data-exit={o.exit_state}
                  >
                    <Table.Td>{fmtTime(o.created_at)}</Table.Td>
                    <Table.Td>
                      {o.symbol}
                      {o.reduce_only && (
                        <Badge ml={4} size="xs" variant="light" color="orange">
                          {t('trading.order.reduceOnly')}
                        </Badge>
                      )}
                    </Table.Td>
                    <Table.Td c={o.side === 'buy' ? 'teal' : 'red'}>{side(o.side)}</Table.Td>
                    <Table.Td>
                      {t(o.type === 'limit' ? 'trading.order.limit' : 'trading.order.market')}
                    </Table.Td>
                    <Table.Td ta="right" ff="monospace">
                      {o.price === null ? t('trading.order.market') : fmtPrice(o.price, priceStep)}
                    </Table.Td>
                    <Table.Td ta="right" ff="monospace">
                      {fmtQty(o.quantity)}
                    </Table.Td>
                    <Table.Td ta="right" ff="monospace">
                      {fmtQty(o.filled)}
                    </Table.Td>
                    <Table.Td ff="monospace">{tp(o)}</Table.Td>
                    <Table.Td>
                      <Badge size="xs" variant="light" color={statusColor(o.status)}>
                        {t(`trading.orders.statuses.${o.status}`)}
                      </Badge>
                      {o.exit_state !== 'none' && (
                        <Text size="xs" c="dimmed">
                          {t(`trading.orders.exits.${o.exit_state}`)}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Button
                        size="compact-xs"
                        variant="light"
                        color="red"
                        loading={cancelling === o.id}
                        disabled={cancelling !== null && cancelling !== o.id}
                        onClick={() => void cancel(o)}
                        aria-label={t('trading.orders.cancelLabel', { symbol: o.symbol })}
                        data-testid="trade-order-cancel"
                      >
                        {t(entryOpen(o) ? 'trading.orders.cancel' : 'trading.orders.cancelExits')}
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>,
            open.length === 0,
            t('trading.orders.noneOpen'),
          )}
        </Tabs.Panel>

        <Tabs.Panel value="recent">
          {body(
            <Table fz="xs" miw={760} highlightOnHover>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('trading.orders.time')}</Table.Th>
                  <Table.Th>{t('trading.orders.symbol')}</Table.Th>
                  <Table.Th>{t('trading.orders.side')}</Table.Th>
                  <Table.Th>{t('trading.orders.type')}</Table.Th>
                  <Table.Th ta="right">{t('trading.orders.average')}</Table.Th>
                  <Table.Th ta="right">{t('trading.orders.filled')}</Table.Th>
                  <Table.Th>{t('trading.orders.status')}</Table.Th>
                  <Table.Th ta="right">{t('trading.orders.pnl')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {recent.map((o) => (
                  <Table.Tr key={o.id} data-testid="trade-recent-order" data-id={o.id} data-status={o.status}>
                    <Table.Td>{fmtTime(o.updated_at)}</Table.Td>
                    <Table.Td>{o.symbol}</Table.Td>
                    <Table.Td c={o.side === 'buy' ? 'teal' : 'red'}>{side(o.side)}</Table.Td>
                    <Table.Td>
                      {t(o.type === 'limit' ? 'trading.order.limit' : 'trading.order.market')}
                    </Table.Td>
                    <Table.Td ta="right" ff="monospace">
                      {fmtPrice(o.average ?? o.price, priceStep)}
                    </Table.Td>
                    <Table.Td ta="right" ff="monospace">
                      {`${fmtQty(o.filled)} / ${fmtQty(o.quantity)}`}
                    </Table.Td>
                    <Table.Td>
                      <Badge size="xs" variant="light" color={statusColor(o.status)}>
                        {t(`trading.orders.statuses.${o.status}`)}
                      </Badge>
                      {o.exit_state !== 'none' && o.exit_state !== 'waiting_entry' && (
                        <Text size="xs" c="dimmed">
                          {t(`trading.orders.exits.${o.exit_state}`)}
                        </Text>
                      )}
                      {o.error && (
                        <Text size="xs" c="red" data-testid="trade-recent-error">
                          {o.error}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td
                      ta="right"
                      ff="monospace"
                      c={o.pnl === null ? undefined : o.pnl >= 0 ? 'teal' : 'red'}
                    >
                      {o.pnl === null ? '—' : fmtValue(o.pnl)}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>,
            recent.length === 0,
            t('trading.orders.noneRecent'),
          )}
        </Tabs.Panel>

        <Tabs.Panel value="fills">
          {body(
            <Table fz="xs" miw={640} highlightOnHover>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('trading.orders.time')}</Table.Th>
                  <Table.Th>{t('trading.orders.side')}</Table.Th>
                  <Table.Th>{t('trading.orders.role')}</Table.Th>
                  <Table.Th ta="right">{t('trading.orders.price')}</Table.Th>
                  <Table.Th ta="right">{t('trading.orders.quantity')}</Table.Th>
                  <Table.Th ta="right">{t('trading.orders.value')}</Table.Th>
                  <Table.Th ta="right">{t('trading.orders.fee')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {fills.map((f: SpotFill) => (
                  <Table.Tr key={f.id} data-testid="trade-fill" data-role={f.role} data-order={f.order_id}>
                    <Table.Td>{fmtTime(f.time)}</Table.Td>
                    <Table.Td c={f.side === 'buy' ? 'teal' : 'red'}>{side(f.side)}</Table.Td>
                    <Table.Td>{t(`trading.orders.roles.${f.role}`)}</Table.Td>
                    <Table.Td ta="right" ff="monospace">
                      {fmtPrice(f.price, priceStep)}
                    </Table.Td>
                    <Table.Td ta="right" ff="monospace">
                      {fmtQty(f.quantity)}
                    </Table.Td>
                    <Table.Td ta="right" ff="monospace">
                      {fmtValue(f.value)}
                    </Table.Td>
                    <Table.Td ta="right" ff="monospace">
                      {`${f.fee_currency === baseOf(f.symbol) ? fmtQty(f.fee) : fmtValue(f.fee)}${f.fee_currency ? ` ${f.fee_currency}` : ''}`}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>,
            fills.length === 0,
            t('trading.orders.noneFills'),
          )}
        </Tabs.Panel>
      </Tabs>
    </Paper>
  );
}
