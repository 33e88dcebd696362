import { SPOT } from '@bytx/contract';
import { Badge, Button, Group, Modal, Stack, Table, Text } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { SpotOrderPreview } from './api';
import { useTradeNumbers } from './format';

/**
 * The confirmation dialog (spec part 1 §4 "Order"): the order as the server would place it (the
 * dry_run preview, rounded to the market's steps), the 0.4 % fee and the net total at 0.996. Enter
 * confirms, Escape cancels (and so do the buttons). Test ids `trade-confirm` (the modal),
 * `trade-confirm-{side,symbol,type,price,quantity,value,fee,net,tp,sl,reduce-only}`,
 * `trade-confirm-ok`, `trade-confirm-cancel`.
 */
export function ConfirmOrderDialog({
  market,
  preview,
  reduceOnly = false,
  priceStep,
  busy = false,
  onConfirm,
  onCancel,
}: {
  market: 'spot' | 'swap';
  /** Null: closed. */
  preview: SpotOrderPreview | null;
  reduceOnly?: boolean;
  priceStep?: number | undefined;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const { fmtPrice, fmtQty, fmtValue } = useTradeNumbers();
  const opened = preview !== null;
  const cancelRef = useRef<HTMLButtonElement>(null);
  // The latest handlers without re-binding the key listener on each render.
  const handlers = useRef({ onConfirm, busy });
  useEffect(() => {
    handlers.current = { onConfirm, busy };
  });

  useEffect(() => {
    if (!opened) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Enter' || e.isComposing || e.defaultPrevented) return;
      // Enter on the focused Cancel button cancels, as a button does.
      if (e.target === cancelRef.current) return;
      e.preventDefault();
      if (!handlers.current.busy) handlers.current.onConfirm();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [opened]);

  const p = preview;
  const row = (label: string, id: string, value: string) => (
    <Table.Tr key={id}>
      <Table.Td c="dimmed">{label}</Table.Td>
      <Table.Td ta="right" ff="monospace" data-testid={`trade-confirm-${id}`}>
        {value}
      </Table.Td>
    </Table.Tr>
  );

  return (
    <Modal
      opened={opened}
      onClose={onCancel}
      closeOnEscape
      centered
      title={t('trading.confirm.title')}
      data-testid="trade-confirm"
    >
      {p && (
        <Stack gap="sm">
          <Group gap="xs">
            <Badge color={p.side === 'buy' ? 'teal' : 'red'} data-testid="trade-confirm-side">
              {t(`trading.sides.${market}.${p.side}`)}
            </Badge>
            <Text fw={600} data-testid="trade-confirm-symbol">
              {p.symbol}
            </Text>
            <Badge variant="light" color="gray" data-testid="trade-confirm-type">
              {t(p.type === 'limit' ? 'trading.order.limit' : 'trading.order.market')}
            </Badge>
            {reduceOnly && (
              <Badge variant="light" color="orange" data-testid="trade-confirm-reduce-only">
                {t('trading.order.reduceOnly')}
              </Badge>
            )}
          </Group>
          <Table fz="sm" verticalSpacing={4}>
            <Table.Tbody>
              {row(
                t(p.type === 'limit' ? 'trading.confirm.price' : 'trading.confirm.marketPrice', {
                  quote: p.quote,
                }),
                'price',
                fmtPrice(p.price, priceStep),
              )}
              {row(t('trading.confirm.quantity', { base: p.base }), 'quantity', fmtQty(p.quantity))}
              {row(t('trading.confirm.value', { quote: p.quote }), 'value', fmtValue(p.value))}
              {row(
                t('trading.confirm.fee', { pct: SPOT.feeRate * 100, quote: p.quote }),
                'fee',
                fmtValue(p.fee),
              )}
              {row(t('trading.confirm.net', { quote: p.quote }), 'net', fmtValue(p.net))}
              {p.tp !== null && row(t('trading.confirm.tp'), 'tp', fmtPrice(p.tp, priceStep))}
              {p.sl !== null && row(t('trading.confirm.sl'), 'sl', fmtPrice(p.sl, priceStep))}
            </Table.Tbody>
          </Table>
          <Text size="xs" c="dimmed">
            {t('trading.confirm.keys')}
          </Text>
          <Group justify="flex-end">
            <Button ref={cancelRef} variant="default" onClick={onCancel} data-testid="trade-confirm-cancel">
              {t('trading.confirm.cancel')}
            </Button>
            <Button
              color={p.side === 'buy' ? 'teal' : 'red'}
              onClick={onConfirm}
              loading={busy}
              data-autofocus
              data-testid="trade-confirm-ok"
            >
              {t('trading.confirm.ok')}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
