import { SPOT, type CandleTimeframe } from '@bytx/contract';
import {
  Alert,
  Badge,
  Button,
  Group,
  Paper,
  Popover,
  ScrollArea,
  Skeleton,
  Stack,
  Switch,
  Text,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../api/client';
import { useSession, userIdOf } from '../session/session';
import { CANDLES_POLL_MS, tradingApi, tradingKeys, type CandlesResponse, type SpotFill } from './api';
import { useCountdownToggle, useOrders } from './hooks';
import { FIXED, useNumbers } from '../ui/numbers';
import { parseNum } from './orderRules';
import type { ChartLine, ChartMarker } from './PriceChart';

/** lightweight-charts is loaded only when the chart is shown. */
const PriceChart = lazy(() => import('./PriceChart'));

/** The spec's timeframes as the buttons name them, and ours (default 15M). */
export const TIMEFRAMES = [
  ['1M', '1m'],
  ['5M', '5m'],
  ['15M', '15m'],
  ['1H', '1h'],
  ['4H', '4h'],
  ['1D', '1d'],
  ['1W', '1w'],
  ['1Mth', '1M'],
] as const satisfies readonly (readonly [string, CandleTimeframe])[];
export type TimeframeLabel = (typeof TIMEFRAMES)[number][0];
export const DEFAULT_TIMEFRAME: TimeframeLabel = '15M';

/** The chart's height: 400 px, 300 on a phone-width screen. */
const CHART_HEIGHT = 400;
const PHONE_CHART_HEIGHT = 300;

/** Each fill at the candle it happened in (the latest candle opening at or before it); older ones drop. */
export function fillMarkers(
  candles: CandlesResponse['candles'],
  fills: SpotFill[],
  text: (f: SpotFill) => string,
): ChartMarker[] {
  if (candles.length === 0) return [];
  const out: ChartMarker[] = [];
  for (const f of fills) {
    const ts = Date.parse(f.time);
    if (!Number.isFinite(ts) || ts < candles[0]![0]) continue;
    let lo = 0;
    let hi = candles.length - 1;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (candles[mid]![0] <= ts) lo = mid;
      else hi = mid - 1;
    }
    out.push({ time: candles[lo]![0], side: f.side, text: text(f) });
  }
  return out;
}

/**
 * The chart: timeframes 1M … 1Mth (default 15M), the pair's candles from our server with the last
 * candle polled, and the settings menu: Trade History (the user's fills as markers), DCA (the average
 * entry of an active DCA bot on the pair, or the futures position's entry), Take Profit and Stop Loss
 * (lines at the panel's values). Switching TP or SL on starts the 30 s counter shown beside it; at 0
 * the toggle switches itself off. Test ids `trade-chart`, `trade-tf-<label>`, `trade-chart-settings`,
 * `trade-chart-toggle-{history,dca,tp,sl}`, `trade-chart-counter-{tp,sl}`, `trade-chart-canvas`,
 * `trade-chart-loading`, `trade-chart-error`.
 */
export function ChartPanel({
  market,
  exchange,
  symbol,
  tp,
  sl,
  paused = false,
}: {
  market: 'spot' | 'swap';
  exchange: string;
  symbol: string;
  /** The order panel's TP and SL inputs. */
  tp: string;
  sl: string;
  paused?: boolean;
}) {
  const { t } = useTranslation();
  const num = useNumbers();
  const { user } = useSession();
  const [label, setLabel] = useState<TimeframeLabel>(DEFAULT_TIMEFRAME);
  const timeframe = TIMEFRAMES.find(([l]) => l === label)![1];
  const [history, setHistory] = useState(true);
  const [dca, setDca] = useState(true);
  const tpToggle = useCountdownToggle(SPOT.tpSlCounterS);
  const slToggle = useCountdownToggle(SPOT.tpSlCounterS);
  const ready = exchange !== '' && symbol !== '';
  const height = useMediaQuery('(max-width: 48em)') ? PHONE_CHART_HEIGHT : CHART_HEIGHT;

  const candles = useQuery({
    queryKey: tradingKeys.candles(exchange, symbol, timeframe),
    queryFn: () => tradingApi.candles(exchange, symbol, timeframe),
    enabled: ready,
    refetchInterval: paused ? false : CANDLES_POLL_MS,
    retry: false,
  });
  const orders = useOrders(exchange, symbol, paused);
  const dcaLine = useQuery({
    queryKey: tradingKeys.dca(exchange, symbol),
    queryFn: async (): Promise<number | null> => {
      if (market === 'swap') {
        const w = await tradingApi.derivatives(exchange);
        return (
          w.positions.find((p) => p.symbol === symbol && p.market_type !== 'Margin')?.entry_price ?? null
        );
      }
      const r = await tradingApi.dcas(userIdOf(user), exchange, symbol);
      return r.dcas.find((d) => d.dca !== null)?.dca ?? null;
    },
    enabled: ready && dca && !!user,
    refetchInterval: paused ? false : 30_000,
    retry: false,
  });

  const list = candles.data?.candles;
  const markers = useMemo(
    () =>
      history && list
        ? fillMarkers(list, orders.data?.fills ?? [], (f) =>
            t('trading.chart.marker', {
              side: t(`trading.sides.${market}.${f.side}`),
              quantity: num.fixed(f.quantity, FIXED.quantity),
            }),
          )
        : [],
    [history, list, orders.data, t, market, num],
  );
  const tpNum = parseNum(tp);
  const slNum = parseNum(sl);
  const dcaPrice = dca ? (dcaLine.data ?? null) : null;
  const lines = useMemo(() => {
    const out: ChartLine[] = [];
    if (dcaPrice !== null) out.push({ id: 'dca', price: dcaPrice, title: t('trading.chart.dca') });
    if (tpToggle.on && tpNum > 0) out.push({ id: 'tp', price: tpNum, title: t('trading.chart.tpLine') });
    if (slToggle.on && slNum > 0) out.push({ id: 'sl', price: slNum, title: t('trading.chart.slLine') });
    return out;
  }, [dcaPrice, tpToggle.on, tpNum, slToggle.on, slNum, t]);

  const counter = (id: 'tp' | 'sl', left: number) =>
    left > 0 ? (
      <Badge
        size="sm"
        variant="light"
        color={id === 'tp' ? 'teal' : 'red'}
        data-testid={`trade-chart-counter-${id}`}
      >
        {t('trading.chart.counter', { s: left })}
      </Badge>
    ) : null;

  return (
    <Paper withBorder p="sm" data-testid="trade-chart">
      <Group justify="space-between" mb="xs" wrap="nowrap" gap="xs">
        <ScrollArea type="never" style={{ minWidth: 0 }}>
          <Group gap={2} wrap="nowrap" role="group" aria-label={t('trading.chart.timeframe')}>
            {TIMEFRAMES.map(([l]) => (
              <Button
                key={l}
                size="compact-xs"
                variant={l === label ? 'filled' : 'subtle'}
                aria-pressed={l === label}
                onClick={() => setLabel(l)}
                // Kept whole on a phone: the row scrolls instead of squeezing the labels.
                style={{ flexShrink: 0 }}
                data-testid={`trade-tf-${l}`}
              >
                {l}
              </Button>
            ))}
          </Group>
        </ScrollArea>
        <Group gap={4} wrap="nowrap">
          {counter('tp', tpToggle.left)}
          {counter('sl', slToggle.left)}
          <Popover position="bottom-end" shadow="md" withinPortal={false}>
            <Popover.Target>
              <Button size="compact-xs" variant="default" data-testid="trade-chart-settings">
                {t('trading.chart.settings')}
              </Button>
            </Popover.Target>
            <Popover.Dropdown>
              <Stack gap="xs" data-testid="trade-chart-menu">
                <Switch
                  label={t('trading.chart.history')}
                  checked={history}
                  onChange={(e) => setHistory(e.currentTarget.checked)}
                  data-testid="trade-chart-toggle-history"
                />
                <Switch
                  label={t('trading.chart.dca')}
                  checked={dca}
                  onChange={(e) => setDca(e.currentTarget.checked)}
                  data-testid="trade-chart-toggle-dca"
                />
                <Group gap="xs" wrap="nowrap">
                  <Switch
                    label={t('trading.chart.tp')}
                    checked={tpToggle.on}
                    onChange={(e) => tpToggle.set(e.currentTarget.checked)}
                    data-testid="trade-chart-toggle-tp"
                  />
                  {tpToggle.on && (
                    <Text size="xs" c="dimmed" data-testid="trade-chart-menu-counter-tp">
                      {t('trading.chart.counter', { s: tpToggle.left })}
                    </Text>
                  )}
                </Group>
                <Group gap="xs" wrap="nowrap">
                  <Switch
                    label={t('trading.chart.sl')}
                    checked={slToggle.on}
                    onChange={(e) => slToggle.set(e.currentTarget.checked)}
                    data-testid="trade-chart-toggle-sl"
                  />
                  {slToggle.on && (
                    <Text size="xs" c="dimmed" data-testid="trade-chart-menu-counter-sl">
                      {t('trading.chart.counter', { s: slToggle.left })}
                    </Text>
                  )}
                </Group>
                {(tpToggle.on || slToggle.on) && (
                  <Text size="xs" c="dimmed" maw={220}>
                    {t('trading.chart.counterHint', { s: SPOT.tpSlCounterS })}
                  </Text>
                )}
              </Stack>
            </Popover.Dropdown>
          </Popover>
        </Group>
      </Group>
      {!ready ? (
        <Skeleton h={height} data-testid="trade-chart-loading" />
      ) : candles.isError && !list ? (
        <Alert color="red" data-testid="trade-chart-error">
          {t('trading.chart.failed', { symbol, message: errorMessage(candles.error) })}
        </Alert>
      ) : !list ? (
        <Skeleton h={height} data-testid="trade-chart-loading" />
      ) : (
        <Suspense fallback={<Skeleton h={height} data-testid="trade-chart-loading" />}>
          <PriceChart
            candles={list}
            lines={lines}
            markers={markers}
            dataKey={`${exchange}|${symbol}|${timeframe}`}
            label={t('trading.chart.label', { symbol, timeframe: label, candles: list.length })}
            height={height}
          />
        </Suspense>
      )}
    </Paper>
  );
}
