import { Alert, Box, Button, Card, Group, Stack, Switch, Text, TextInput, Tooltip } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { DcaBotView } from '@bytx/contract';

/** Local edit state of a bot's SL and TP+ (spec: 30 s countdown, resent every 5 s after it ends). */
export interface SlTpEdit {
  sl: string;
  tpPlus: string;
  slEditedAt: number | null;
  tpEditedAt: number | null;
}

export const EDIT_WINDOW_MS = 30_000;

const remaining = (editedAt: number | null, now: number) =>
  editedAt === null ? 0 : Math.max(0, Math.ceil((EDIT_WINDOW_MS - (now - editedAt)) / 1000));

export function ActiveBotRow({
  bot,
  price,
  edit,
  now,
  optimistic,
  onEdit,
  onRa,
  onHistory,
  onPending,
  onRelocate,
  onStop,
  onEvents,
}: {
  bot: DcaBotView;
  price: number | null;
  edit: SlTpEdit;
  now: number;
  optimistic?: boolean;
  onEdit: (field: 'sl' | 'tpPlus', value: string) => void;
  onRa: (enabled: boolean) => void;
  onHistory: () => void;
  onPending: () => void;
  onRelocate: () => void;
  onStop: () => void;
  onEvents: () => void;
}) {
  const { t, i18n } = useTranslation();
  const reason = bot.reason ? (i18n.language.startsWith('es') ? bot.reason.es : bot.reason.en) : null;
  const inRange = price !== null && price >= bot.range_low && price <= bot.range_high;
  const slLeft = remaining(edit.slEditedAt, now);
  const tpLeft = remaining(edit.tpEditedAt, now);
  return (
    <Card
      withBorder
      padding="sm"
      data-testid="dca-bot-row"
      data-symbol={bot.symbol}
      opacity={optimistic ? 0.6 : 1}
    >
      <Stack gap={6}>
        <Group gap="xs" wrap="nowrap">
          <Tooltip label={t(inRange ? 'dca.bots.inRange' : 'dca.bots.outOfRange')}>
            <Box
              data-testid="dca-status-dot"
              data-in-range={inRange ? '1' : '0'}
              w={12}
              h={12}
              style={{ borderRadius: '50%', background: inRange ? '#2f9e44' : '#e03131', flex: 'none' }}
            />
          </Tooltip>
          <Text size="sm" fw={600} data-testid="dca-bot-summary">
            {t('dca.bots.summary', {
              exchange: bot.exchange,
              symbol: bot.symbol,
              tp: bot.tp_pct ?? 1,
              amount: bot.monto ?? 20,
              os: bot.os,
              sep: bot.sep_pct,
              price: (bot.precio ?? 0).toFixed(4),
            })}
          </Text>
        </Group>
        {reason && (
          <Alert
            color="orange"
            variant="light"
            p="xs"
            data-testid="dca-bot-problem"
            data-problem={bot.problem ?? ''}
          >
            <Text size="xs">{reason}</Text>
          </Alert>
        )}
        <Group gap="md">
          <Text size="xs" c="dimmed" data-testid="dca-bot-lots">
            {t('dca.bots.lots', { lots: bot.open_lots, buys: bot.waiting_buys })}
          </Text>
          <Text size="xs" c={bot.pnl >= 0 ? 'green' : 'red'}>
            {t('dca.bots.pnl')}: {bot.pnl.toFixed(4)} USDT
          </Text>
        </Group>
        <Group gap="xs" align="flex-end">
          <Switch
            label={t('dca.bots.ra')}
            title={t('dca.bots.raHint')}
            checked={bot.ra_enabled}
            disabled={optimistic}
            onChange={(e) => onRa(e.currentTarget.checked)}
            data-testid="dca-ra-switch"
          />
          <TextInput
            size="xs"
            w={110}
            label={t('dca.bots.sl')}
            value={edit.sl}
            onChange={(e) => onEdit('sl', e.currentTarget.value)}
            rightSection={slLeft > 0 ? <Text size="xs">{t('dca.bots.countdown', { s: slLeft })}</Text> : null}
            data-testid="dca-sl-input"
          />
          <TextInput
            size="xs"
            w={110}
            label={t('dca.bots.tpPlus')}
            value={edit.tpPlus}
            onChange={(e) => onEdit('tpPlus', e.currentTarget.value)}
            rightSection={tpLeft > 0 ? <Text size="xs">{t('dca.bots.countdown', { s: tpLeft })}</Text> : null}
            data-testid="dca-tpplus-input"
          />
          {/* The spec's 'Update' control does nothing: edits are sent by the 5 s resend rule. */}
          <Button size="xs" variant="default">
            {t('dca.bots.update')}
          </Button>
        </Group>
        <Group gap="xs">
          {(
            [
              ['history', onHistory],
              ['pending', onPending],
              ['relocate', onRelocate],
              ['events', onEvents],
            ] as const
          ).map(([name, onClick]) => (
            <Button
              key={name}
              size="xs"
              variant="light"
              onClick={onClick}
              disabled={optimistic}
              data-testid={`dca-${name}-btn`}
            >
              {t(`dca.bots.${name}`)}
            </Button>
          ))}
          <Button size="xs" color="red" onClick={onStop} disabled={optimistic} data-testid="dca-stop-btn">
            {t('dca.bots.stop')}
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
