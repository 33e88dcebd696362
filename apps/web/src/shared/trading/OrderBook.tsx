import { SPOT } from '@bytx/contract';
import { Alert, Group, Paper, Skeleton, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../api/client';
import { tradingApi, tradingKeys } from './api';
import { useTradeNumbers } from './format';
import { rovingKeyDown } from './roving';

export interface BookLevel {
  price: number;
  amount: number;
  /** Cumulative amount from the best price to this level. */
  total: number;
  /** total / the deepest total of both sides, 0..1: the row's shading. */
  depth: number;
}

/**
 * The 10 levels of each side with the cumulative depth: asks from the highest to the best (lowest)
 * as a book reads top down, bids from the best (highest) down.
 */
export function bookRows(
  book: { bids: [number, number][]; asks: [number, number][] },
  levels = SPOT.bookDepth,
): { asks: BookLevel[]; bids: BookLevel[]; spread: number | null } {
  const side = (rows: [number, number][]) => {
    let total = 0;
    return rows.slice(0, levels).map(([price, amount]) => {
      total += amount;
      return { price, amount, total, depth: 0 };
    });
  };
  const asks = side([...book.asks].sort((a, b) => a[0] - b[0]));
  const bids = side([...book.bids].sort((a, b) => b[0] - a[0]));
  const max = Math.max(asks[asks.length - 1]?.total ?? 0, bids[bids.length - 1]?.total ?? 0);
  for (const l of [...asks, ...bids]) l.depth = max > 0 ? l.total / max : 0;
  const spread = asks[0] && bids[0] ? asks[0].price - bids[0].price : null;
  return { asks: asks.reverse(), bids, spread };
}

const ASK = 'rgba(224, 49, 49, 0.16)';
const BID = 'rgba(47, 158, 68, 0.16)';

function Row({
  level,
  side,
  priceStep,
  tabStop,
  onPick,
}: {
  level: BookLevel;
  side: 'ask' | 'bid';
  priceStep: number | undefined;
  tabStop: boolean;
  onPick: (price: number) => void;
}) {
  const { t } = useTranslation();
  const { fmtPrice, fmtQty } = useTradeNumbers();
  const price = fmtPrice(level.price, priceStep);
  return (
    <UnstyledButton
      onClick={() => onPick(level.price)}
      tabIndex={tabStop ? 0 : -1}
      data-roving
      // Named by what it shows (price and amount, WCAG 2.5.3 label in name); what a click does, as a hint.
      title={t('trading.book.pick', { price })}
      px={6}
      py={1}
      data-testid={`trade-book-${side}`}
      data-price={level.price}
      data-amount={level.amount}
      style={{
        display: 'block',
        width: '100%',
        borderRadius: 2,
        // Depth shading: the cumulative amount, from the right edge.
        background: `linear-gradient(to left, ${side === 'ask' ? ASK : BID} ${(level.depth * 100).toFixed(1)}%, transparent ${(level.depth * 100).toFixed(1)}%)`,
      }}
    >
      <Group justify="space-between" wrap="nowrap" gap={4}>
        <Text size="xs" ff="monospace" c={side === 'ask' ? 'red' : 'teal'} data-testid="trade-book-price">
          {price}
        </Text>
        <Text size="xs" ff="monospace">
          {fmtQty(level.amount)}
        </Text>
      </Group>
    </UnstyledButton>
  );
}

/**
 * The order book of the pair from our server: 10 levels per side every 5 s, shaded by cumulative
 * depth; clicking (or Enter / Space on) a price makes it the order price. One tab stop (the best
 * bid); Up / Down move through the prices. Test ids `trade-book`,
 * rows `trade-book-ask` / `trade-book-bid` (data-price, data-amount) with `trade-book-price`,
 * `trade-book-spread`, `trade-book-loading`, `trade-book-error`.
 */
export function OrderBook({
  exchange,
  symbol,
  base,
  quote,
  priceStep,
  paused = false,
  onPick,
}: {
  exchange: string;
  symbol: string;
  base: string;
  quote: string;
  priceStep?: number | undefined;
  paused?: boolean;
  onPick: (price: number) => void;
}) {
  const { t } = useTranslation();
  const { fmtPrice } = useTradeNumbers();
  const q = useQuery({
    queryKey: tradingKeys.book(exchange, symbol),
    queryFn: () => tradingApi.book(exchange, symbol),
    enabled: exchange !== '',
    refetchInterval: paused ? false : SPOT.bookRefreshMs,
    retry: false,
  });
  const rows = q.data ? bookRows(q.data) : null;

  return (
    <Paper withBorder p="sm" data-testid="trade-book" h="100%">
      <Title order={2} size="h5" mb={4}>
        {t('trading.book.title')}
      </Title>
      <Group justify="space-between" px={6} mb={2} wrap="nowrap" gap={4}>
        <Text size="xs" c="dimmed">
          {t('trading.book.price', { quote })}
        </Text>
        <Text size="xs" c="dimmed">
          {t('trading.book.amount', { base })}
        </Text>
      </Group>
      {q.isError && !rows ? (
        <Alert color="red" p="xs" data-testid="trade-book-error">
          {t('trading.book.failed', { message: errorMessage(q.error) })}
        </Alert>
      ) : !rows ? (
        <Stack gap={4} data-testid="trade-book-loading">
          {Array.from({ length: 12 }, (_, i) => (
            <Skeleton key={i} h={14} />
          ))}
        </Stack>
      ) : (
        <Stack gap={1} onKeyDown={(e) => rovingKeyDown(e)}>
          {rows.asks.map((l, i) => (
            <Row
              key={`a${l.price}`}
              level={l}
              side="ask"
              priceStep={priceStep}
              tabStop={rows.bids.length === 0 && i === rows.asks.length - 1}
              onPick={onPick}
            />
          ))}
          <Text size="xs" c="dimmed" ta="center" py={2} data-testid="trade-book-spread">
            {t('trading.book.spread', { spread: fmtPrice(rows.spread, priceStep) })}
          </Text>
          {rows.bids.map((l, i) => (
            <Row
              key={`b${l.price}`}
              level={l}
              side="bid"
              priceStep={priceStep}
              tabStop={i === 0}
              onPick={onPick}
            />
          ))}
        </Stack>
      )}
    </Paper>
  );
}
