import { Alert, Container, Grid, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../shared/api/client';
import { BotNav, NoSession, RealisedLine } from '../../../shared/bots/BotScreen';
import { fmtFigure, realisedSummary } from '../../../shared/bots/figures';
import { useFillToasts, useNow } from '../../../shared/bots/hooks';
import { useSession, userIdOf } from '../../../shared/session/session';
import { SIGNAL_POLL_MS, signalApi, type SignalBotView } from '../api/signal';
import { serverText } from './serverText';
import { SignalBotCard } from './SignalBotCard';
import { SignalCreateForm } from './SignalCreateForm';
import { StopSignalDialog } from './StopSignalDialog';

/**
 * The Signal Bot page (/signalbot, issue 15 §2; the spec shows no screen content): create a bot on a
 * connected exchange, then per bot its webhook URL, secret (shown once after create or rotate; Rotate), the TradingView alert
 * message, position and PnL, the signal log, and Stop. The list is polled every 5 s.
 */
export function SignalBotPage() {
  const { t, i18n } = useTranslation();
  const { user, checking } = useSession();
  const qc = useQueryClient();
  const userId = userIdOf(user);
  /** Secrets the create call answered, shown on the new bot's card until hidden. */
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const [stopping, setStopping] = useState<SignalBotView | null>(null);

  const bots = useQuery({
    queryKey: ['signal', 'bots', userId],
    queryFn: () => signalApi.list(),
    enabled: !!user,
    refetchInterval: stopping ? false : SIGNAL_POLL_MS,
  });

  const stop = async (bot: SignalBotView, keepAssets: boolean) => {
    setStopping(null);
    try {
      const r = await signalApi.stop(bot.id, keepAssets);
      if (!r.success) throw new Error(r.message);
      notifications.show({ color: 'green', message: serverText(t, r.message), autoClose: 3_000 });
    } catch (err) {
      notifications.show({
        color: 'red',
        message: t('signal.bot.stopFailed', { message: serverText(t, errorMessage(err)) }),
      });
    }
    await qc.invalidateQueries({ queryKey: ['signal'] });
  };

  const now = useNow();
  // The stopped bots' realised profit by the day they stopped (issue 40 pt 3), in USDT-quoted bots.
  const realised = useMemo(
    () =>
      bots.data
        ? realisedSummary(
            bots.data.bots
              .filter((b) => b.status === 'stopped' && b.quote === 'USDT')
              .map((b) => ({ at: b.stopped_at, pnl: b.pnl_realized })),
            now,
          )
        : null,
    [bots.data, now],
  );
  // A fill toast when a poll shows the position changed (a signal's order filled).
  useFillToasts(
    bots.data?.bots,
    (b) => b.id,
    (before, after) =>
      after.position_qty !== before.position_qty || after.pnl_realized !== before.pnl_realized
        ? t('bots.toasts.signalFilled', {
            symbol: after.symbol,
            qty: fmtFigure(after.position_qty, i18n.language || 'en'),
          })
        : null,
  );

  if (!user) return <NoSession checking={checking} />;
  const list = bots.data?.bots ?? [];

  return (
    <Container fluid py="md" data-testid="signal-page">
      <BotNav active="signal" />
      <Title order={1} size="h2">
        {t('signal.title')}
      </Title>
      <Text c="dimmed" mb="md" maw={900}>
        {t('signal.intro')}
      </Text>
      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 5, lg: 4 }}>
          <SignalCreateForm
            userId={userId}
            onCreated={(bot, secret) => setSecrets((s) => ({ ...s, [bot.id]: secret }))}
          />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 7, lg: 8 }}>
          <Stack gap="md" data-testid="signal-bots">
            <Title order={2} size="h4">
              {t('signal.list.title')}
            </Title>
            <RealisedLine testPrefix="signal" realised={realised} />
            {bots.isError && (
              <Alert color="red" data-testid="signal-list-error">
                {t('signal.list.failed', { message: errorMessage(bots.error) })}
              </Alert>
            )}
            {!bots.data && !bots.isError && (
              <Text c="dimmed" size="sm">
                {t('signal.list.loading')}
              </Text>
            )}
            {bots.data && list.length === 0 && (
              <Text c="dimmed" size="sm" data-testid="signal-no-bots">
                {t('signal.list.none')}
              </Text>
            )}
            {list.map((b) => (
              <SignalBotCard
                key={b.id}
                bot={b}
                {...(secrets[b.id] !== undefined ? { initialSecret: secrets[b.id] } : {})}
                onStop={setStopping}
                now={now}
              />
            ))}
          </Stack>
        </Grid.Col>
      </Grid>
      <StopSignalDialog
        bot={stopping}
        onCancel={() => setStopping(null)}
        onConfirm={(b, k) => void stop(b, k)}
      />
    </Container>
  );
}
