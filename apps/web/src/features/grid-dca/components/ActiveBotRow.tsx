import { Box, Button, Group, Switch, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { DcaBotView } from '@bytx/contract';
import { BotActions, BotFiguresLine, BotRowCard, SlTpInputs } from '../../../shared/bots/BotRowParts';
import { dcaCapital } from '../../../shared/bots/figures';
import { RowChartSlot } from '../../../shared/bots/RowChartSlot';
import type { SlTpEdit, SlTpField } from '../../../shared/bots/hooks';
import { quoteOf, slTpProblem } from '../../../shared/bots/slTp';
import { LazyTooltip } from '../../../shared/ui/LazyTooltip';
import { FIXED, useNumbers } from '../../../shared/ui/numbers';
import { DCA_SCREEN } from './screen';

export function ActiveBotRow({
  bot,
  price,
  edit,
  now,
  clock,
  optimistic,
  onEdit,
  onUpdate,
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
  /** The list's minute clock, for the runtime. */
  clock: number;
  optimistic?: boolean;
  onEdit: (field: SlTpField, value: string) => void;
  /** Update: send the SL / TP+ edits now. */
  onUpdate: () => void;
  onRa: (enabled: boolean) => void;
  onHistory: () => void;
  onPending: () => void;
  onRelocate: () => void;
  onStop: () => void;
  onEvents: () => void;
}) {
  const { t } = useTranslation();
  const num = useNumbers();
  const inRange = price !== null && price >= bot.range_low && price <= bot.range_high;
  return (
    <BotRowCard
      screen={DCA_SCREEN}
      bot={bot}
      optimistic={optimistic}
      entry={num.fixed(bot.precio ?? 0, FIXED.entryPrice)}
      dot={
        <LazyTooltip label={t(inRange ? 'grid-dca.bots.inRange' : 'grid-dca.bots.outOfRange')}>
          <Box
            data-testid="dca-status-dot"
            data-in-range={inRange ? '1' : '0'}
            w={12}
            h={12}
            style={{ borderRadius: '50%', background: inRange ? '#2f9e44' : '#e03131', flex: 'none' }}
          />
        </LazyTooltip>
      }
    >
      <Group gap="md" justify="space-between" wrap="wrap">
        <BotFiguresLine
          testPrefix="dca-bot"
          pnl={bot.pnl}
          capital={dcaCapital(bot.monto, bot.os)}
          startedAt={bot.started_at}
          now={clock}
        />
        <Text size="xs" c="dimmed" data-testid="dca-bot-lots">
          {t('grid-dca.bots.lots', { lots: bot.open_lots, buys: bot.waiting_buys })}
        </Text>
      </Group>
      {/* The pair's last day with the ladder: its anchor, the take profit above it and the lowest buy
          (the range's two ends, service.ts rangeOf); after the first paint, only on screen. */}
      {!optimistic && (
        <RowChartSlot
          exchange={bot.exchange}
          symbol={bot.symbol}
          live={bot.status !== 'stopped'}
          levels={[
            { key: 'entry', label: t('bots.rowChart.entry'), value: bot.precio, color: '#1c7ed6' },
            {
              key: 'high',
              label: t(bot.direction === 'LONG' ? 'bots.rowChart.tp' : 'bots.rowChart.rangeHigh'),
              value: bot.range_high,
              color: '#2f9e44',
            },
            {
              key: 'low',
              label: t(bot.direction === 'LONG' ? 'bots.rowChart.lowestBuy' : 'bots.rowChart.rangeLow'),
              value: bot.range_low,
              color: '#f08c00',
            },
          ]}
        />
      )}
      <Group gap="xs" align="flex-end">
        <Switch
          label={t('grid-dca.bots.ra')}
          title={t('grid-dca.bots.raHint')}
          checked={bot.ra_enabled}
          disabled={optimistic}
          onChange={(e) => onRa(e.currentTarget.checked)}
          data-testid="dca-ra-switch"
        />
        <SlTpInputs
          screen={DCA_SCREEN}
          edit={edit}
          now={now}
          onEdit={onEdit}
          quote={quoteOf(bot.symbol)}
          price={price}
          problem={(field, value) => slTpProblem(field, value, price, bot.direction)}
        />
        {/* Update sends the edits at once; the 30 s countdown (spec) still sends what is not sent. */}
        <Button
          size="xs"
          variant="default"
          disabled={optimistic}
          onClick={onUpdate}
          data-testid="dca-update-btn"
        >
          {t('grid-dca.bots.update')}
        </Button>
      </Group>
      <BotActions
        screen={DCA_SCREEN}
        symbol={bot.symbol}
        optimistic={optimistic}
        onStop={onStop}
        actions={[
          { name: 'history', label: t('bots.row.history'), onClick: onHistory },
          { name: 'pending', label: t('bots.row.pending'), onClick: onPending },
          { name: 'relocate', label: t('grid-dca.bots.relocate'), onClick: onRelocate },
          { name: 'events', label: t('grid-dca.bots.events'), onClick: onEvents },
        ]}
      />
    </BotRowCard>
  );
}
