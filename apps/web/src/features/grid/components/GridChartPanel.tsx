import { Alert, Badge, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { GRID_POLL_MS, gridApi, roundPrice, venueSymbol, type GridBotDetail } from '../api/grid';
import type { ChartLevel } from './GridChart';

/** lightweight-charts is loaded only once there is something to chart. */
const GridChart = lazy(() => import('./GridChart'));

/** The settings' pair and range: the chart previews the grid they would start. */
export interface ChartSource {
  exchange: string;
  pair: string;
  marketType: string;
  price: number | null;
  high: string;
  low: string;
  step: string;
}

const toNum = (s: string) => (s.trim() === '' ? NaN : Number(s));

/** A running grid's levels: resting buys and sells where its orders are, the rest empty. */
export function botLevels(bot: Pick<GridBotDetail, 'level_prices' | 'orders'>): ChartLevel[] {
  const near = (a: number, b: number) => Math.abs(a - b) <= Math.abs(a) * 1e-9;
  return bot.level_prices.map((price) => {
    const o = bot.orders.find((x) => near(x.price, price));
    return { price, kind: o ? o.side : 'empty' };
  });
}

/**
 * The centre of the grid page: the venue symbol's candles with the high and low lines and every level,
 * or 'Select a pair to view chart'. With a running grid selected (`botId`), its own levels and open
 * orders from GET /api/gridbot/{id} (refreshed every 5 s); otherwise the levels the settings would
 * start, from POST /api/gridbot/niveles (debounced while typing; an error is logged only, spec §8).
 */
export function GridChartPanel({
  source,
  botId,
  paused,
}: {
  source: ChartSource;
  botId: string | null;
  paused: boolean;
}) {
  const { t } = useTranslation();

  const detail = useQuery({
    queryKey: ['grid', 'detail', botId],
    queryFn: async () => (await gridApi.detail(botId!)).bot,
    enabled: botId !== null,
    refetchInterval: paused ? false : GRID_POLL_MS,
    retry: false,
  });
  const bot = botId !== null ? (detail.data ?? null) : null;

  const exchange = bot?.exchange ?? source.exchange;
  const pair = bot?.symbol ?? source.pair;
  const marketType = bot?.market_type ?? source.marketType;
  const ready = exchange !== '' && pair !== '';
  const symbol = bot?.market_symbol ?? (ready ? venueSymbol(pair, marketType) : '');

  // Debounced as one string: a new object each render would never settle.
  const [key] = useDebouncedValue(`${source.high}|${source.low}|${source.step}|${source.price ?? ''}`, 300);
  const range = useMemo(() => {
    const [h = '', l = '', s = '', p = ''] = key.split('|');
    return { high: toNum(h), low: toNum(l), step: toNum(s), price: p === '' ? null : Number(p) };
  }, [key]);

  const candles = useQuery({
    queryKey: ['grid', 'candles', exchange, pair, marketType],
    queryFn: () => gridApi.candles(exchange, pair, marketType),
    enabled: ready,
    refetchInterval: paused ? false : 10_000,
    retry: false,
  });
  const last = candles.data?.candles[candles.data.candles.length - 1]?.[4] ?? null;
  const price = range.price ?? last;
  const rangeOk =
    Number.isFinite(range.high) && Number.isFinite(range.low) && range.low < range.high && range.step > 0;

  const preview = useQuery({
    queryKey: ['grid', 'levels', exchange, pair, marketType, range.high, range.low, range.step, price],
    queryFn: async () => {
      const r = await gridApi.levels({
        exchange,
        pair,
        price: price!,
        highPrice: range.high,
        lowPrice: range.low,
        stepPercentage: range.step,
        marketType,
      });
      if (!r.ok) throw new Error(r.error ?? 'niveles failed');
      return r;
    },
    enabled: botId === null && ready && rangeOk && price !== null,
    placeholderData: keepPreviousData,
    retry: false,
  });
  if (preview.error) console.error('grid levels', preview.error);

  const high = bot ? bot.high_price : rangeOk ? range.high : null;
  const low = bot ? bot.low_price : rangeOk ? range.low : null;
  const levels = useMemo<ChartLevel[]>(() => {
    if (bot) return botLevels(bot);
    if (!rangeOk || !preview.data) return [];
    const buys = new Set(preview.data.buyLevels);
    const sells = new Set(preview.data.sellLevels);
    const all = preview.data.levels ?? [...preview.data.buyLevels, ...preview.data.sellLevels];
    return all.map((p) => ({ price: p, kind: buys.has(p) ? 'buy' : sells.has(p) ? 'sell' : 'empty' }));
  }, [bot, rangeOk, preview.data]);
  const titles = useMemo(
    () => ({
      high: t('grid.chart.high'),
      low: t('grid.chart.low'),
      buy: t('grid.chart.buy'),
      sell: t('grid.chart.sell'),
    }),
    [t],
  );
  const facts = {
    symbol,
    high: high === null ? '—' : roundPrice(high),
    low: low === null ? '—' : roundPrice(low),
    levels: levels.length,
    buys: levels.filter((l) => l.kind === 'buy').length,
    sells: levels.filter((l) => l.kind === 'sell').length,
  };

  return (
    <Paper withBorder p="md" data-testid="grid-chart">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          {ready ? symbol : t('grid.chart.title')}
        </Title>
        {bot && (
          <Badge
            color={bot.pnl_quote >= 0 ? 'green' : 'red'}
            variant="light"
            tt="none"
            data-testid="grid-chart-pnl"
          >
            {t('grid.chart.pnl', { pnl: bot.pnl_quote.toFixed(4), quote: bot.quote, rounds: bot.rounds })}
          </Badge>
        )}
      </Group>
      {!ready ? (
        // The page explains itself before a pair is picked (issue 40 pt 3): the spec's line, then what a
        // grid does and where to start.
        <Stack align="center" gap="sm" py={120} px="md">
          <Text c="dimmed" ta="center" data-testid="grid-chart-empty">
            {t('grid.chart.empty')}
          </Text>
          <Text size="sm" ta="center" maw={520} data-testid="grid-intro">
            {t('grid.intro')}
          </Text>
        </Stack>
      ) : candles.isError ? (
        <Alert color="red">{t('grid.chart.failed', { symbol })}</Alert>
      ) : (
        <Suspense fallback={<Loader />}>
          <GridChart
            candles={candles.data?.candles ?? []}
            high={high}
            low={low}
            levels={levels}
            label={t('grid.chart.label', facts)}
            titles={titles}
          />
        </Suspense>
      )}
      {ready && (
        <Text
          size="sm"
          c="dimmed"
          mt="xs"
          data-testid="grid-chart-legend"
          data-levels={facts.levels}
          data-buys={facts.buys}
          data-sells={facts.sells}
          data-bot={bot?.id ?? ''}
        >
          {t(bot ? 'grid.chart.legendBot' : 'grid.chart.legend', facts)}
        </Text>
      )}
    </Paper>
  );
}
