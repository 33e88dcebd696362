import {
  Box,
  Button,
  Group,
  NativeSelect,
  SimpleGrid,
  Switch,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TP_VNC_OPTIONS, type ClassicBotView } from '@bytx/contract';
import { BotActions, BotFiguresLine, BotRowCard, SlTpInputs } from '../../../shared/bots/BotRowParts';
import { dcaCapital } from '../../../shared/bots/figures';
import { fmt } from '../../../shared/bots/format';
import { FIXED, useNumbers } from '../../../shared/ui/numbers';
import type { SlTpEdit, SlTpField } from '../../../shared/bots/hooks';
import { formatTtr } from '../api/dashboard';
import { BotChart } from './BotChart';
import { DASH_SCREEN } from './screen';

/** The per-bot figures polled apart from the bot list (spec §9: every 10 s). */
export interface BotFigures {
  dca: number | null;
  pnl: number;
  ttr: number;
  qty: number;
  price: number | null;
}

/** What the add-funds call answered: shown under the input ('Compra enviada' for 2 s). */
export type FundsResult = { ok: true; message: string } | { ok: false; message: string };

const dotColor = (bot: ClassicBotView) =>
  bot.status === 'error'
    ? '#e03131'
    : bot.waiting_for === 'trend' || bot.phase === 'waiting'
      ? '#f59f00'
      : '#2f9e44';

export function BotRow({
  bot,
  figures,
  edit,
  now,
  clock,
  r,
  rOs,
  tpVnc,
  optimistic,
  paused,
  onEdit,
  onFlag,
  onTpVnc,
  onAddFunds,
  onHistory,
  onPending,
  onEvents,
  onStop,
}: {
  bot: ClassicBotView;
  figures: BotFigures;
  edit: SlTpEdit;
  now: number;
  /** The list's minute clock, for the runtime. */
  clock: number;
  r: boolean;
  rOs: boolean;
  tpVnc: number;
  optimistic?: boolean;
  paused: boolean;
  onEdit: (field: SlTpField, value: string) => void;
  onFlag: (field: 'r' | 'r_os', value: boolean) => void;
  onTpVnc: (value: number) => void;
  onAddFunds: (amount: string) => Promise<FundsResult>;
  onHistory: () => void;
  onPending: () => void;
  onEvents: () => void;
  onStop: () => void;
}) {
  const { t } = useTranslation();
  const num = useNumbers();
  const [funds, setFunds] = useState('');
  const [fundsBusy, setFundsBusy] = useState(false);
  const [fundsResult, setFundsResult] = useState<FundsResult | null>(null);
  useEffect(() => {
    if (!fundsResult?.ok) return;
    const timer = setTimeout(() => setFundsResult(null), 2_000);
    return () => clearTimeout(timer);
  }, [fundsResult]);
  const statusLabel =
    bot.status === 'error'
      ? t('classic-dca.bots.statusError')
      : bot.waiting_for === 'trend'
        ? t('classic-dca.bots.statusWaiting')
        : t('classic-dca.bots.statusActive');

  const addFunds = async () => {
    setFundsBusy(true);
    setFundsResult(null);
    const res = await onAddFunds(funds);
    setFundsBusy(false);
    setFundsResult(res);
    if (res.ok) setFunds('');
  };

  return (
    <BotRowCard
      screen={DASH_SCREEN}
      bot={bot}
      optimistic={optimistic}
      entry={figures.dca === null ? '—' : num.fixed(figures.dca, FIXED.entryPrice)}
      dot={
        <Tooltip label={statusLabel}>
          <Box
            data-testid="dash-status-dot"
            data-status={bot.status}
            aria-label={statusLabel}
            role="status"
            w={12}
            h={12}
            style={{ borderRadius: '50%', background: dotColor(bot), flex: 'none' }}
          />
        </Tooltip>
      }
    >
      <BotFiguresLine
        testPrefix="dash-bot"
        pnl={figures.pnl}
        capital={dcaCapital(bot.monto, bot.os)}
        startedAt={bot.started_at}
        now={clock}
      />
      <SimpleGrid cols={4} spacing={4}>
        <Text size="xs">
          {t('classic-dca.bots.dca')}:{' '}
          <span data-testid="dash-bot-dca" data-value={figures.dca ?? ''}>
            {figures.dca === null ? '—' : fmt(figures.dca, 4)}
          </span>
        </Text>
        <Text size="xs">
          {t('bots.row.pnl')}:{' '}
          <Text
            span
            size="xs"
            c={figures.pnl >= 0 ? 'green' : 'red'}
            data-testid="dash-bot-pnl"
            data-value={figures.pnl}
          >
            {figures.pnl.toFixed(4)} USDT
          </Text>
        </Text>
        <Text size="xs">
          {t('classic-dca.bots.ttr')}: <span data-testid="dash-bot-ttr">{formatTtr(figures.ttr)}</span>
        </Text>
        <Text size="xs">
          {t('classic-dca.bots.vnc')}: <span data-testid="dash-bot-vnc">{fmt(figures.qty)}</span>
        </Text>
      </SimpleGrid>
      {bot.phase === 'waiting' && bot.status !== 'error' && (
        <Text size="xs" c="yellow" data-testid="dash-bot-waiting" data-waiting={bot.waiting_for ?? ''}>
          {t(`classic-dca.bots.waiting.${bot.waiting_for ?? 'start'}`, {
            defaultValue: t('classic-dca.bots.waiting.start'),
          })}
        </Text>
      )}
      <BotChart
        exchange={bot.exchange}
        symbol={bot.symbol}
        dca={figures.dca}
        tpPrice={bot.tp_price}
        nextSafety={bot.next_safety}
        price={figures.price}
        paused={paused || !!optimistic}
      />
      <Group gap="xs" align="flex-end">
        <Switch
          label={t('classic-dca.bots.r')}
          checked={r}
          disabled={optimistic}
          onChange={(e) => onFlag('r', e.currentTarget.checked)}
          data-testid="dash-r-switch"
        />
        <Switch
          label={t('classic-dca.bots.rOs')}
          checked={rOs}
          disabled={optimistic}
          onChange={(e) => onFlag('r_os', e.currentTarget.checked)}
          data-testid="dash-ros-switch"
        />
        <SlTpInputs screen={DASH_SCREEN} edit={edit} now={now} disabled={optimistic} onEdit={onEdit} />
        <NativeSelect
          size="xs"
          w={100}
          label={t('classic-dca.bots.tpVnc')}
          value={String(tpVnc)}
          disabled={optimistic}
          onChange={(e) => onTpVnc(Number(e.currentTarget.value))}
          data={TP_VNC_OPTIONS.map((v) => ({ value: String(v), label: `${v} %` }))}
          data-testid="dash-tpvnc-select"
        />
      </Group>
      <Group gap="xs" align="flex-end">
        <TextInput
          size="xs"
          w={120}
          label={t('classic-dca.bots.fundsAmount')}
          value={funds}
          disabled={optimistic}
          onChange={(e) => setFunds(e.currentTarget.value.replace(/,/g, '.'))}
          data-testid="dash-funds-input"
        />
        <Button
          size="xs"
          variant="light"
          color="teal"
          loading={fundsBusy}
          disabled={optimistic}
          onClick={() => void addFunds()}
          data-testid="dash-funds-btn"
        >
          {t('classic-dca.bots.funds')}
        </Button>
        {fundsResult && (
          <Text
            size="xs"
            c={fundsResult.ok ? 'green' : 'red'}
            data-testid={fundsResult.ok ? 'dash-funds-ok' : 'dash-funds-error'}
          >
            {fundsResult.message}
          </Text>
        )}
      </Group>
      <BotActions
        screen={DASH_SCREEN}
        symbol={bot.symbol}
        optimistic={optimistic}
        onStop={onStop}
        actions={[
          { name: 'history', label: t('bots.row.history'), onClick: onHistory },
          { name: 'pending', label: t('bots.row.pending'), onClick: onPending },
          { name: 'events', label: t('classic-dca.bots.events'), onClick: onEvents },
        ]}
      />
    </BotRowCard>
  );
}
