import { Container, Grid, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, errorMessage } from '../../../shared/api/client';
import { BotNav, NoSession } from '../../../shared/bots/BotScreen';
import { useFillToasts } from '../../../shared/bots/hooks';
import { useSession, userIdOf } from '../../../shared/session/session';
import {
  ARBITRAGE_POLL_MS,
  ARBITRAGE_SYMBOL,
  arbitrageApi,
  parseAmount,
  validateArbitrageStart,
} from '../api/arbitrage';
import { ArbitrageControl } from './ArbitrageControl';
import { ArbitrageEvents } from './ArbitrageEvents';
import { ArbitrageHistory } from './ArbitrageHistory';
import { ArbitrageLive } from './ArbitrageLive';
import { serverText } from './serverText';
import { StopArbitrageDialog } from './StopArbitrageDialog';

/**
 * The Arbitrage page (/arbitraje, spec part 2 §2 "Arbitrage page"; issue 15 §1): amount in USDT,
 * Start/Stop, the status line, the live spread of both directions against the fees (so a user sees why
 * the bot trades or not), both books, profit, inventory and the waiting reason, and the Operation
 * History polled every 5 s. The symbol is fixed to ETH/USDT.
 */
export function ArbitragePage() {
  const { t } = useTranslation();
  const { user, checking } = useSession();
  const qc = useQueryClient();
  const userId = userIdOf(user);
  const [amount, setAmount] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<'start' | 'stop' | null>(null);
  const [stopOpen, setStopOpen] = useState(false);

  const status = useQuery({
    queryKey: ['arbitrage', 'status', userId],
    queryFn: () => arbitrageApi.status(userId),
    enabled: !!user,
    refetchInterval: ARBITRAGE_POLL_MS,
  });
  const history = useQuery({
    queryKey: ['arbitrage', 'history', userId],
    queryFn: async () => {
      const r = await arbitrageApi.history(userId);
      if (!r.success) throw new Error(r.error ?? 'Error');
      return r.historial;
    },
    enabled: !!user,
    refetchInterval: ARBITRAGE_POLL_MS,
  });

  // A fill toast when a poll shows a round trip completed.
  const polledBot = useMemo(() => (status.data?.bot ? [status.data.bot] : undefined), [status.data]);
  useFillToasts(
    polledBot,
    (b) => b.id,
    (before, now) =>
      now.trips > before.trips
        ? t('bots.toasts.tripDone', { symbol: now.symbol, pnl: (now.pnl - before.pnl).toFixed(4) })
        : null,
  );

  const fail = (msg: string) => {
    setError(msg);
    notifications.show({ color: 'red', message: msg });
  };
  const refresh = async () => {
    await qc.invalidateQueries({ queryKey: ['arbitrage'] });
  };

  const start = async () => {
    setError(null);
    const key = validateArbitrageStart({ connected: status.data?.connected === true, amount });
    if (key) return fail(t(`arbitrage.messages.${key}`));
    setBusy('start');
    try {
      const r = await arbitrageApi.start(userId, parseAmount(amount));
      if (!r.success) return fail(serverText(t, r.error ?? r.message));
      notifications.show({ color: 'green', message: serverText(t, r.message), autoClose: 3_000 });
    } catch (err) {
      fail(
        err instanceof ApiError
          ? serverText(t, errorMessage(err))
          : t('arbitrage.control.startFailed', { message: errorMessage(err) }),
      );
    } finally {
      setBusy(null);
      await refresh();
    }
  };

  const stop = async (keepAssets: boolean) => {
    setStopOpen(false);
    setError(null);
    setBusy('stop');
    try {
      const r = await arbitrageApi.stop(userId, keepAssets);
      if (!r.success) throw new Error(r.error ?? r.message);
      notifications.show({ color: 'green', message: serverText(t, r.message), autoClose: 3_000 });
    } catch (err) {
      fail(t('arbitrage.control.stopFailed', { message: serverText(t, errorMessage(err)) }));
    } finally {
      setBusy(null);
      await refresh();
    }
  };

  if (!user) return <NoSession checking={checking} />;
  const bot = status.data?.bot ?? null;

  return (
    <Container fluid py="md" data-testid="arb-page">
      <BotNav active="arbitrage" />
      <Title order={1} size="h2">
        {t('arbitrage.title')}
      </Title>
      <Text c="dimmed" mb="md">
        {t('arbitrage.subtitle', { symbol: ARBITRAGE_SYMBOL })}
      </Text>
      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 5, lg: 4 }}>
          <ArbitrageControl
            status={status.data}
            amount={amount}
            onAmount={(v) => {
              setAmount(v.replace(/,/g, '.'));
              setError(null);
            }}
            error={error}
            busy={busy}
            onStart={() => void start()}
            onStop={() => setStopOpen(true)}
          />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 7, lg: 8 }}>
          <ArbitrageLive bot={bot} />
        </Grid.Col>
        <Grid.Col span={12}>
          <ArbitrageHistory
            rows={history.data}
            error={history.isError ? errorMessage(history.error) : null}
          />
        </Grid.Col>
        <Grid.Col span={12}>
          <ArbitrageEvents userId={userId} />
        </Grid.Col>
      </Grid>
      <StopArbitrageDialog
        opened={stopOpen}
        symbol={bot?.symbol ?? ARBITRAGE_SYMBOL}
        onCancel={() => setStopOpen(false)}
        onConfirm={(keep) => void stop(keep)}
      />
    </Container>
  );
}
