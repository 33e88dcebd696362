import { Container, Grid, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../shared/api/client';
import { BotNav, NoSession } from '../../../shared/bots/BotScreen';
import { LeverageDialog } from '../../../shared/bots/LeverageDialog';
import { useSession, userIdOf } from '../../../shared/session/session';
import { useFillToasts } from '../../../shared/bots/hooks';
import { GRID_POLL_MS, gridApi, quoteOf, type GridBotRow } from '../api/grid';
import { GridChartPanel } from './GridChartPanel';
import { GridDataPanel } from './GridDataPanel';
import { GridSettings } from './GridSettings';
import { StopGridDialog } from './StopGridDialog';
import { useGridForm } from './useGridForm';

/**
 * The Grid Bot page (/grid-bot, spec part 2 §2 "Grid Bot page"): 'Real-Time Grid Data' on the left,
 * the chart in the centre, 'Grid Bot Settings' on the right.
 */
export function GridBotPage() {
  const { t } = useTranslation();
  const { user, checking } = useSession();
  const qc = useQueryClient();
  const userId = userIdOf(user);
  /** The running grid the chart shows (after its start, or picked in Active Bots); null: the settings' pair. */
  const [selected, setSelected] = useState<string | null>(null);
  const form = useGridForm(userId, user?.email, !!user, {
    onStarted: setSelected,
    onPairChanged: () => setSelected(null),
  });
  const [leverageOpen, setLeverageOpen] = useState(false);
  const [stopping, setStopping] = useState<GridBotRow | null>(null);
  // The active bots are polled every 5 s, except while a dialog is open (spec part 2 §4).
  const dialogOpen = leverageOpen || stopping !== null;

  const active = useQuery({
    queryKey: ['grid', 'active', userId],
    queryFn: () => gridApi.active(userId),
    enabled: !!user,
    refetchInterval: dialogOpen ? false : GRID_POLL_MS,
  });

  // A fill toast when a poll shows a round completed or an order of the grid filled (its base moved).
  useFillToasts(
    active.data?.bots,
    (b) => b.id,
    (before, now) =>
      (now.rounds ?? 0) > (before.rounds ?? 0)
        ? t('bots.toasts.roundDone', {
            symbol: now.symbol,
            pnl: (now.pnl_quote - before.pnl_quote).toFixed(4),
            quote: now.quote ?? quoteOf(now.symbol),
          })
        : now.base_held !== undefined && now.base_held !== before.base_held
          ? t('bots.toasts.gridFilled', { symbol: now.symbol })
          : null,
  );

  const openLeverage = () => {
    if (!form.exchange) return form.fail(t('bots.leverage.noExchange'));
    setLeverageOpen(true);
  };
  const { exchange, pair, setLeverage } = form;
  const confirmLeverage = useCallback(
    (n: number) => {
      setLeverageOpen(false);
      setLeverage(n);
      // The answer is not read; an error is only logged (spec part 2 §7, §8).
      void gridApi
        .setLeverage(userId, exchange, pair, n)
        .catch((err: unknown) => console.error('set_leverage failed', err));
      notifications.show({ message: t('bots.leverage.toast', { n }), autoClose: 3_000 });
    },
    [exchange, pair, setLeverage, t, userId],
  );

  const stop = async (b: GridBotRow, vender: boolean) => {
    setStopping(null);
    try {
      const r = await gridApi.stop(b.id, vender);
      if (!r.ok) throw new Error(r.error ?? 'Error');
      notifications.show({ color: 'green', message: t('grid.stopDialog.stopped', { symbol: b.symbol }) });
      setSelected((cur) => (cur === b.id ? null : cur));
    } catch (err) {
      notifications.show({
        color: 'red',
        message: t('grid.errors.stopFailed', { message: errorMessage(err) }),
      });
    }
    await qc.invalidateQueries({ queryKey: ['grid', 'active'] });
    await qc.invalidateQueries({ queryKey: ['grid', 'history'] });
  };

  if (!user) return <NoSession checking={checking} />;

  return (
    <Container fluid py="md" data-testid="grid-page">
      <BotNav active="grid" />
      <Title order={1} size="h2" mb="md">
        {t('grid.title')}
      </Title>
      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 6, lg: 4, xl: 3 }} order={{ base: 2, lg: 1 }}>
          <GridDataPanel
            userId={userId}
            bots={active.data?.bots ?? []}
            loading={active.isLoading}
            selected={selected}
            onSelect={(b) => setSelected(b.id)}
            onStop={setStopping}
          />
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 5, xl: 6 }} order={{ base: 1, lg: 2 }}>
          <GridChartPanel
            source={{
              exchange: form.exchange,
              pair: form.pair,
              marketType: form.marketType,
              price: form.price,
              high: form.high,
              low: form.low,
              step: form.step,
            }}
            botId={selected}
            paused={dialogOpen}
          />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 6, lg: 3 }} order={3}>
          <GridSettings form={form} onLeverage={openLeverage} />
        </Grid.Col>
      </Grid>
      {leverageOpen && (
        <LeverageDialog
          prefix="grid"
          opened={leverageOpen}
          value={form.leverage}
          onCancel={() => setLeverageOpen(false)}
          onConfirm={confirmLeverage}
        />
      )}
      <StopGridDialog
        bot={stopping}
        onCancel={() => setStopping(null)}
        onConfirm={(b, v) => void stop(b, v)}
      />
    </Container>
  );
}
