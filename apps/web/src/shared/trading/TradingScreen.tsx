import { SPOT } from '@bytx/contract';
import {
  Alert,
  Badge,
  Button,
  Container,
  Grid,
  Group,
  NativeSelect,
  Skeleton,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useDocumentVisibility } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ApiError, errorMessage } from '../api/client';
import { tradingApi, tradingKeys } from './api';
import { ChartPanel } from './ChartPanel';
import { useTradeNumbers } from './format';
import { OrderBook } from './OrderBook';
import { ORDER_TOAST_MS, OrderPanel } from './OrderPanel';
import {
  emptyDraft,
  inputNum,
  roundToStep,
  serverText,
  stepDecimals,
  withPrice,
  type OrderDraft,
  type TradeMarket,
} from './orderRules';
import { OrdersPanel } from './OrdersPanel';
import { PairList } from './PairList';
import {
  readLastPair,
  readOrderType,
  readTpSl,
  readTradeExchange,
  saveLastPair,
  saveOrderType,
  saveTpSl,
  saveTradeExchange,
  venueSymbol,
  type Pair,
  type Quote,
} from './storage';

/** What the screen hands to `renderExtras` (the futures screen's leverage, funding and position). */
export interface TradingExtrasContext {
  exchange: string;
  /** The order call's symbol: 'BTC/USDT' (spot) or 'BTC/USDT:USDT' (futures). */
  symbol: string;
  /** The pair's last price (GET /api/spot/market, refreshed every 300 s), null when unknown. */
  price: number | null;
  /** Reloads the screen's balances, orders, leverage and chart lines. */
  refresh: () => void;
}

export interface TradingScreenProps {
  market: TradeMarket;
  /** Rendered under the order panel. */
  renderExtras?: (ctx: TradingExtrasContext) => ReactNode;
}

/**
 * The spot screen (spec part 1 §2 "Spot screen") and, with market 'swap', the futures screen: the
 * exchange selector over the user's connections (remembered as `tradeExchange`), the pair list, the
 * chart, the order book, the order panel with its confirmation dialog, and the open orders / fills.
 * Test ids `trade-screen` (data-market), `trade-title`, `trade-exchange`, `trade-symbol`,
 * `trade-price`, `trade-loading`, `trade-no-exchange`, `trade-connections-error`, `trade-extras`.
 */
export function TradingScreen({ market, renderExtras }: TradingScreenProps) {
  const { t } = useTranslation();
  const { fmtPrice } = useTradeNumbers();
  const qc = useQueryClient();
  const paused = useDocumentVisibility() === 'hidden';

  // --- exchange ------------------------------------------------------------------------------------
  const connections = useQuery({
    queryKey: tradingKeys.connections,
    queryFn: () => tradingApi.connections(),
    retry: false,
  });
  const list = connections.data?.connections ?? [];
  const [picked, setPicked] = useState(readTradeExchange);
  const exchange = list.some((c) => c.exchange === picked) ? picked : (list[0]?.exchange ?? '');
  const exchangeName = list.find((c) => c.exchange === exchange)?.name ?? exchange;
  const pickExchange = (ex: string) => {
    setPicked(ex);
    saveTradeExchange(ex);
  };

  // --- pair ----------------------------------------------------------------------------------------
  const [pair, setPair] = useState<Pair>(readLastPair);
  const symbol = venueSymbol(pair, market);
  const pairSymbol = `${pair.base}/${pair.quote}`;

  const pairs = useQuery({
    queryKey: tradingKeys.pairs(exchange),
    queryFn: () => tradingApi.pairs(exchange),
    enabled: exchange !== '',
    staleTime: 10 * 60_000,
    retry: false,
  });
  const favorites = useQuery({
    queryKey: tradingKeys.favorites,
    queryFn: async () => (await tradingApi.favorites()).favorites,
    retry: false,
  });
  const favorite = useMutation({
    mutationFn: ({ symbol: s, on }: { symbol: string; on: boolean }) => tradingApi.setFavorite(s, on),
    onMutate: ({ symbol: s, on }) => {
      const before = qc.getQueryData<string[]>(tradingKeys.favorites) ?? [];
      qc.setQueryData<string[]>(tradingKeys.favorites, on ? [...before, s] : before.filter((x) => x !== s));
      return { before };
    },
    onSuccess: (r) => qc.setQueryData(tradingKeys.favorites, r.favorites),
    onError: (err, _v, saved) => {
      if (saved) qc.setQueryData(tradingKeys.favorites, saved.before);
      notifications.show({
        color: 'red',
        message: err instanceof ApiError ? serverText(t, err.message) : errorMessage(err),
        autoClose: ORDER_TOAST_MS,
      });
    },
  });

  // --- market facts, leverage ------------------------------------------------------------------------
  const info = useQuery({
    queryKey: tradingKeys.market(exchange, symbol),
    queryFn: () => tradingApi.market(exchange, symbol),
    enabled: exchange !== '',
    refetchInterval: paused ? false : SPOT.priceRefreshMs,
    retry: false,
  });
  const leverageQ = useQuery({
    queryKey: tradingKeys.leverage(exchange, pairSymbol),
    queryFn: () => tradingApi.leverage(exchange, pairSymbol),
    enabled: market === 'swap' && exchange !== '',
    retry: false,
  });
  const leverage = market === 'swap' ? Math.max(1, leverageQ.data?.leverage ?? 1) : 1;
  const price = info.data?.price ?? null;
  const priceStep = info.data?.price_step;

  const listed = useMemo(() => {
    if (!pairs.data) return null;
    const set = new Set(pairs.data);
    // The selected pair: the market call knows best (a futures market may differ from the spot list).
    if (info.data) {
      if (info.data.listed) set.add(pairSymbol);
      else set.delete(pairSymbol);
    }
    return set;
  }, [pairs.data, info.data, pairSymbol]);

  // --- the order draft (orderType and tpSlValues remembered) ---------------------------------------
  const [draft, setDraft] = useState<OrderDraft>(() => {
    const tpSl = readTpSl();
    return emptyDraft(readOrderType(), tpSl.tp, tpSl.sl);
  });
  const onDraft = useCallback((d: OrderDraft) => {
    setDraft(d);
    saveOrderType(d.type);
    saveTpSl({ tp: d.tp, sl: d.sl });
  }, []);

  // The limit price starts at the pair's last price.
  const prefilled = useRef('');
  useEffect(() => {
    const key = `${exchange}|${symbol}`;
    if (prefilled.current === key || price === null || !info.data) return;
    prefilled.current = key;
    const step = info.data.price_step;
    setDraft((d) =>
      d.price === ''
        ? { ...d, price: inputNum(roundToStep(price, step), Math.min(stepDecimals(step), 12)) }
        : d,
    );
  }, [exchange, symbol, price, info.data]);

  const choosePair = (next: Pair) => {
    if (next.base === pair.base && next.quote === pair.quote) return;
    setPair(next);
    saveLastPair(next);
    setDraft((d) => ({ ...d, price: '', quantity: '', value: '', reduceOnly: false }));
  };

  const pickPrice = useCallback(
    (p: number) => {
      const d = priceStep ? Math.min(stepDecimals(priceStep), 12) : 12;
      onDraft(withPrice({ ...draft, type: 'Limit' }, inputNum(p, d), price));
    },
    [draft, onDraft, price, priceStep],
  );

  const refresh = useCallback(() => {
    for (const k of ['market', 'orders', 'leverage', 'dca'] as const) {
      void qc.invalidateQueries({ queryKey: ['trading', k] });
    }
  }, [qc]);

  // --- render --------------------------------------------------------------------------------------
  const title = (
    <Title order={1} size="h2" data-testid="trade-title">
      {t(`trading.title.${market}`)}
    </Title>
  );

  if (connections.isPending) {
    return (
      <Container fluid py="md" data-testid="trade-screen" data-market={market}>
        {title}
        <Stack gap="sm" mt="md" data-testid="trade-loading">
          <Skeleton h={36} w={260} />
          <Skeleton h={400} />
        </Stack>
      </Container>
    );
  }
  if (connections.isError || list.length === 0) {
    return (
      <Container fluid py="md" data-testid="trade-screen" data-market={market}>
        {title}
        {connections.isError ? (
          <Alert color="red" mt="md" data-testid="trade-connections-error">
            {t('trading.exchange.failed', { message: errorMessage(connections.error) })}
          </Alert>
        ) : (
          <Alert color="yellow" mt="md" data-testid="trade-no-exchange">
            <Stack gap="xs" align="flex-start">
              <Text size="sm">{t('trading.exchange.none')}</Text>
              <Button component={Link} to="/settings" size="xs">
                {t('trading.exchange.settings')}
              </Button>
            </Stack>
          </Alert>
        )}
      </Container>
    );
  }

  return (
    <Container fluid py="md" px={{ base: 'xs', sm: 'md' }} data-testid="trade-screen" data-market={market}>
      <Group justify="space-between" align="flex-end" mb="sm" gap="sm">
        <Group gap="md" align="baseline">
          {title}
          <Text fw={700} size="lg" data-testid="trade-symbol">
            {symbol}
          </Text>
          <Text ff="monospace" size="lg" data-testid="trade-price">
            {info.data ? fmtPrice(price, priceStep) : '…'}
          </Text>
          {info.data && !info.data.listed && (
            <Badge color="gray" variant="light" data-testid="trade-unlisted">
              {t('trading.pairs.unlistedHint', { exchange: exchangeName, symbol: pairSymbol })}
            </Badge>
          )}
        </Group>
        <NativeSelect
          label={t('trading.exchange.label')}
          value={exchange}
          onChange={(e) => pickExchange(e.currentTarget.value)}
          data={list.map((c) => ({
            value: c.exchange,
            label: c.mode === 'paper' ? t('trading.exchange.paper', { name: c.name }) : c.name,
          }))}
          w={{ base: '100%', xs: 240 }}
          data-testid="trade-exchange"
        />
      </Group>
      {info.isError && (
        <Alert color="red" mb="sm" data-testid="trade-market-error">
          {info.error instanceof ApiError ? serverText(t, info.error.message) : t('trading.messages.noPrice')}
        </Alert>
      )}
      <Grid gap="sm">
        <Grid.Col span={{ base: 12, md: 3, lg: 2 }}>
          <PairList
            exchangeName={exchangeName}
            pair={pair}
            favorites={favorites.data ?? []}
            listed={listed}
            onSelect={(base) => choosePair({ ...pair, base })}
            onQuote={(quote: Quote) => choosePair({ ...pair, quote })}
            onFavorite={(s, on) => favorite.mutate({ symbol: s, on })}
          />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 9, lg: 5 }}>
          <ChartPanel
            market={market}
            exchange={exchange}
            symbol={symbol}
            tp={draft.tp}
            sl={draft.sl}
            paused={paused}
          />
        </Grid.Col>
        <Grid.Col span={{ base: 12, sm: 5, md: 4, lg: 2 }} order={{ base: 4, sm: 3 }}>
          <OrderBook
            exchange={exchange}
            symbol={symbol}
            base={pair.base}
            quote={pair.quote}
            priceStep={priceStep}
            paused={paused}
            onPick={pickPrice}
          />
        </Grid.Col>
        <Grid.Col span={{ base: 12, sm: 7, md: 8, lg: 3 }} order={{ base: 3, sm: 4 }}>
          <Stack gap="sm">
            <OrderPanel
              // A new pair or exchange starts with no message and no open dialog.
              key={`${exchange}|${symbol}`}
              market={market}
              exchange={exchange}
              connected={list.some((c) => c.exchange === exchange)}
              symbol={symbol}
              base={pair.base}
              quote={pair.quote}
              info={info.data}
              infoError={info.error}
              leverage={leverage}
              draft={draft}
              onDraft={onDraft}
              onPlaced={refresh}
            />
            {renderExtras && (
              <div data-testid="trade-extras">{renderExtras({ exchange, symbol, price, refresh })}</div>
            )}
          </Stack>
        </Grid.Col>
        <Grid.Col span={12} order={5}>
          <OrdersPanel
            market={market}
            exchange={exchange}
            symbol={symbol}
            priceStep={priceStep}
            paused={paused}
            onChanged={refresh}
          />
        </Grid.Col>
      </Grid>
    </Container>
  );
}
