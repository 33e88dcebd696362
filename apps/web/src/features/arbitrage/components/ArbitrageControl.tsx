import { Alert, Badge, Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import type { FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { PresetPicker } from '../../../shared/bots/PresetPicker';
import { PRESET_KEYS, presetOf, type PresetKey } from '../../../shared/bots/presets';
import { fmt, fmtDate } from '../../../shared/bots/format';
import { ARBITRAGE_SYMBOL, currenciesOf, type ArbitrageStatusResponse } from '../api/arbitrage';

/**
 * The arbitrage presets, USDT: each round trip trades a quarter of the amount, so even the conservative
 * 100 stays above four times a usual 5-10 USDT exchange minimum (the server's start check).
 */
export const ARB_PRESETS: Record<PresetKey, { amount: string }> = {
  conservative: { amount: '100' },
  balanced: { amount: '500' },
  aggressive: { amount: '2000' },
};

/**
 * The left panel: the fixed symbol, the status line ('✅ Exchanges Connected' / '❌ Connect both Binance
 * and Bybit', from the status call's `connected`), the amount in USDT and Start or Stop, with the
 * bot's state when one runs.
 */
export function ArbitrageControl({
  status,
  amount,
  onAmount,
  error,
  busy,
  onStart,
  onStop,
}: {
  status: ArbitrageStatusResponse | undefined;
  amount: string;
  onAmount: (v: string) => void;
  error: string | null;
  busy: 'start' | 'stop' | null;
  onStart: () => void;
  onStop: () => void;
}) {
  const { t } = useTranslation();
  const bot = status?.bot ?? null;
  const active = status?.activo === true;
  const { base } = currenciesOf(ARBITRAGE_SYMBOL);
  const stopping = bot?.status === 'stopping' || bot?.phase === 'stopping';
  return (
    <Paper withBorder p="md" data-testid="arb-control">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4">
            {t('arbitrage.control.title')}
          </Title>
          <Badge variant="light" data-testid="arb-symbol">
            {ARBITRAGE_SYMBOL}
          </Badge>
        </Group>
        {status && (
          <Text
            fw={600}
            c={status.connected ? 'green' : 'red'}
            data-testid="arb-connection"
            data-connected={status.connected ? '1' : '0'}
          >
            {status.connected ? t('arbitrage.messages.connected') : t('arbitrage.messages.connectBoth')}
          </Text>
        )}
        {active && bot ? (
          <Stack gap={4} data-testid="arb-bot">
            <Text size="sm" data-testid="arb-bot-since">
              {t('arbitrage.control.active', {
                time: fmtDate(bot.started_at),
                amount: fmt(bot.monto_usdt, 2),
              })}
            </Text>
            <Group gap="xs">
              <Text size="sm" c="dimmed">
                {t('arbitrage.control.statusLabel')}
              </Text>
              <Badge
                color={bot.status === 'error' ? 'red' : stopping ? 'yellow' : 'green'}
                data-testid="arb-bot-status"
                data-status={bot.status}
              >
                {t(`arbitrage.control.statuses.${bot.status}`, { defaultValue: bot.status })}
              </Badge>
              {bot.phase && (
                <Text size="sm" data-testid="arb-bot-phase">
                  {t(`arbitrage.control.phases.${bot.phase}`, { defaultValue: bot.phase })}
                </Text>
              )}
            </Group>
            {bot.problem && (
              <Alert color="red" p="xs" data-testid="arb-bot-problem">
                {t('arbitrage.control.problem', { problem: bot.problem })}
              </Alert>
            )}
          </Stack>
        ) : (
          status && (
            <Text size="sm" c="dimmed" data-testid="arb-inactive">
              {t('arbitrage.control.inactive')}
            </Text>
          )
        )}
        <form noValidate onSubmit={(e: FormEvent) => e.preventDefault()} data-testid="arb-form">
          <Stack gap="sm">
            {!active && (
              <PresetPicker
                figures={
                  Object.fromEntries(
                    PRESET_KEYS.map((k) => [k, t('arbitrage.presets.figures', { ...ARB_PRESETS[k] })]),
                  ) as Record<PresetKey, string>
                }
                active={presetOf(ARB_PRESETS, { amount })}
                onPick={(k) => onAmount(ARB_PRESETS[k].amount)}
                testId="arb-presets"
              />
            )}
            <TextInput
              label={t('arbitrage.control.amount')}
              placeholder={t('arbitrage.control.amountPlaceholder')}
              description={t('arbitrage.help.amount', { base })}
              inputWrapperOrder={['label', 'input', 'description', 'error']}
              inputMode="decimal"
              value={amount}
              onChange={(e) => onAmount(e.currentTarget.value)}
              disabled={active}
              rightSection={
                <Text size="xs" c="dimmed">
                  USDT
                </Text>
              }
              rightSectionWidth={48}
              data-testid="arb-amount"
            />
            {active ? (
              <Button
                color="red"
                onClick={onStop}
                loading={busy === 'stop'}
                disabled={stopping || busy !== null}
                data-testid="arb-stop"
              >
                {stopping ? t('arbitrage.control.stopping') : t('arbitrage.control.stop')}
              </Button>
            ) : (
              <Button
                type="submit"
                onClick={(e) => {
                  // The click, or Enter's implicit submission in the amount (which clicks this button).
                  e.preventDefault();
                  onStart();
                }}
                loading={busy === 'start'}
                disabled={busy !== null}
                data-testid="arb-start"
              >
                {busy === 'start' ? t('arbitrage.control.starting') : t('arbitrage.control.start')}
              </Button>
            )}
          </Stack>
        </form>
        {error && (
          <Text c="red" size="sm" data-testid="arb-form-error">
            {error}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
