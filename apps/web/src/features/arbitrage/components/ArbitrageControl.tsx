import { Alert, Badge, Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { fmt, fmtDate } from '../../../shared/bots/format';
import { ARBITRAGE_SYMBOL, currenciesOf, type ArbitrageStatusResponse } from '../api/arbitrage';

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
          <Title order={4}>{t('arbitrage.control.title')}</Title>
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
        <TextInput
          label={t('arbitrage.control.amount')}
          placeholder={t('arbitrage.control.amountPlaceholder')}
          description={t('arbitrage.control.amountHint', { base })}
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
            onClick={onStart}
            loading={busy === 'start'}
            disabled={busy !== null}
            data-testid="arb-start"
          >
            {busy === 'start' ? t('arbitrage.control.starting') : t('arbitrage.control.start')}
          </Button>
        )}
        {error && (
          <Text c="red" size="sm" data-testid="arb-form-error">
            {error}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
