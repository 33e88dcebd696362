import { Button, Group, Skeleton, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../shared/api/client';
import { LEVERAGE_MAX, LeverageDialog } from '../../../shared/bots/LeverageDialog';
import { futuresApi, futuresKeys } from '../api/futures';

/** The spec's 3 s toast after the leverage dialog. */
export const LEVERAGE_TOAST_MS = 3_000;

/**
 * The leverage of the user's pair on the exchange (GET /api/set_leverage, 1 when none was set) and the
 * 'Adjust Leverage' dialog of the bot screens; Confirm stores it (POST /api/set_leverage) for the next
 * futures orders of this pair. Test ids `futures-leverage`, `futures-leverage-value`,
 * `futures-leverage-btn` and the dialog's `futures-leverage-{dialog,minus,input,plus,cancel,confirm}`.
 */
export function LeverageControl({
  exchange,
  symbol,
  onChanged,
}: {
  exchange: string;
  symbol: string;
  onChanged?: () => void;
}) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const ready = !!exchange && !!symbol;
  const q = useQuery({
    queryKey: futuresKeys.leverage(exchange, symbol),
    queryFn: () => futuresApi.leverage(exchange, symbol),
    enabled: ready,
    retry: false,
  });
  const leverage = q.data?.leverage ?? 1;
  const max = Math.min(q.data?.max_leverage ?? LEVERAGE_MAX, LEVERAGE_MAX);

  const save = useMutation({
    mutationFn: (n: number) => futuresApi.setLeverage(exchange, symbol, n),
    onSuccess: (res) => {
      qc.setQueryData(futuresKeys.leverage(exchange, symbol), {
        ...(q.data ?? { success: true as const, exchange, symbol, max_leverage: res.max_leverage }),
        leverage: res.leverage,
      });
      notifications.show({
        message: t('bots.leverage.toast', { n: res.leverage }),
        autoClose: LEVERAGE_TOAST_MS,
      });
      onChanged?.();
    },
    onError: (err) => {
      notifications.show({ color: 'red', message: errorMessage(err), autoClose: LEVERAGE_TOAST_MS });
    },
  });

  const openDialog = () => {
    if (!exchange) {
      notifications.show({
        color: 'yellow',
        message: t('bots.leverage.noExchange'),
        autoClose: LEVERAGE_TOAST_MS,
      });
      return;
    }
    setOpen(true);
  };

  return (
    <Group justify="space-between" wrap="nowrap" data-testid="futures-leverage">
      <Text size="sm" c="dimmed">
        {t('futures.leverage.label')}
      </Text>
      {ready && q.isPending ? (
        <Skeleton h={30} w={72} data-testid="futures-leverage-loading" />
      ) : (
        <Button
          size="xs"
          variant="light"
          onClick={openDialog}
          loading={save.isPending}
          aria-label={t('futures.leverage.adjust', { n: leverage })}
          data-testid="futures-leverage-btn"
        >
          <span data-testid="futures-leverage-value">{leverage}x</span>
        </Button>
      )}
      {open && (
        <LeverageDialog
          prefix="futures"
          opened={open}
          value={leverage}
          max={max}
          onCancel={() => setOpen(false)}
          onConfirm={(n) => {
            setOpen(false);
            save.mutate(n);
          }}
        />
      )}
    </Group>
  );
}
