import { Badge, Group, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { BotFiguresLine } from '../../../shared/bots/BotRowParts';
import { exchangeName, fmt, pnlColor } from '../../../shared/bots/format';
import { useNow } from '../../../shared/bots/hooks';
import {
  ARBITRAGE_EXCHANGES,
  currenciesOf,
  DIRECTIONS,
  parseWaiting,
  spreadVerdict,
  type ArbitrageBotView,
} from '../api/arbitrage';

const pct = (n: number) => (Number.isFinite(n) ? n.toFixed(3) : '—');
const VERDICT_COLOR = { trade: 'green', below: 'gray', thin: 'yellow', unknown: 'gray' } as const;

/**
 * What the running bot sees: the best bid and ask of both books, the executable spread of each
 * direction against both taker fees plus the safety margin (so a user sees why it trades or not), the
 * cumulative profit (and as a percentage of the amount, with the bot's runtime), the inventory on each
 * exchange and why it waits, if it does.
 */
export function ArbitrageLive({ bot }: { bot: ArbitrageBotView | null }) {
  const { t } = useTranslation();
  const now = useNow();
  if (!bot) {
    return (
      <Paper withBorder p="md" data-testid="arb-live">
        <Title order={2} size="h4" mb="sm">
          {t('arbitrage.live.title')}
        </Title>
        <Text c="dimmed" size="sm" data-testid="arb-live-none">
          {t('arbitrage.live.none')}
        </Text>
      </Paper>
    );
  }
  const { base, quote } = currenciesOf(bot.symbol);
  const venues = [...new Set([...ARBITRAGE_EXCHANGES, ...Object.keys(bot.books)])];
  const waiting = parseWaiting(bot.waiting);
  return (
    <Paper withBorder p="md" data-testid="arb-live">
      <Title order={2} size="h4" mb="sm">
        {t('arbitrage.live.title')}
      </Title>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
        <Stack gap={4}>
          <Text fw={600} size="sm">
            {t('arbitrage.live.books')}
          </Text>
          <Table fz="sm" data-testid="arb-books">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('arbitrage.live.exchange')}</Table.Th>
                <Table.Th>{t('arbitrage.live.bid')}</Table.Th>
                <Table.Th>{t('arbitrage.live.ask')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {venues.map((ex) => (
                <Table.Tr key={ex} data-testid="arb-book" data-exchange={ex}>
                  <Table.Td>{exchangeName(ex)}</Table.Td>
                  <Table.Td data-testid="arb-book-bid">{fmt(bot.books[ex]?.bid, 2)}</Table.Td>
                  <Table.Td data-testid="arb-book-ask">{fmt(bot.books[ex]?.ask, 2)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Stack>
        <Stack gap={4}>
          <Text fw={600} size="sm">
            {t('arbitrage.live.spread')}
          </Text>
          {!bot.spread ? (
            <Text size="sm" c="dimmed" data-testid="arb-spread-none">
              {t('arbitrage.live.noSpread')}
            </Text>
          ) : (
            DIRECTIONS.map((d) => {
              const s = bot.spread?.[d.key] ?? null;
              const verdict = spreadVerdict(s);
              return (
                <Paper key={d.key} withBorder p="xs" data-testid="arb-spread" data-direction={d.key}>
                  <Group justify="space-between" gap="xs">
                    <Text size="sm" fw={500}>
                      {t('arbitrage.live.direction', {
                        buy: exchangeName(d.buy),
                        sell: exchangeName(d.sell),
                      })}
                    </Text>
                    <Badge
                      size="sm"
                      color={VERDICT_COLOR[verdict]}
                      data-testid="arb-spread-verdict"
                      data-verdict={verdict}
                    >
                      {t(`arbitrage.live.verdict.${verdict}`)}
                    </Badge>
                  </Group>
                  {s && (
                    <Group gap="xs">
                      <Text
                        size="sm"
                        c={verdict === 'trade' ? 'green' : undefined}
                        data-testid="arb-spread-edge"
                        data-edge={s.edge_pct ?? ''}
                      >
                        {t('arbitrage.live.edge', { edge: s.edge_pct === null ? '—' : pct(s.edge_pct) })}
                      </Text>
                      <Text size="sm" c="dimmed" data-testid="arb-spread-fees">
                        {t('arbitrage.live.fees', { fees: pct(s.fees_pct), margin: pct(s.margin_pct) })}
                      </Text>
                    </Group>
                  )}
                </Paper>
              );
            })
          )}
        </Stack>
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md" mt="md">
        <Stack gap={2}>
          <Text size="sm" c="dimmed">
            {t('arbitrage.live.profit')}
          </Text>
          <Text fw={700} c={pnlColor(bot.pnl)} data-testid="arb-pnl" data-pnl={bot.pnl}>
            {`${bot.pnl.toFixed(4)} ${quote}`}
          </Text>
          <Text size="sm" c="dimmed">
            {t('arbitrage.live.trips')}: <span data-testid="arb-trips">{bot.trips}</span>
          </Text>
          <BotFiguresLine
            testPrefix="arb-bot"
            pnl={bot.pnl}
            capital={bot.monto_usdt}
            startedAt={bot.started_at}
            now={now}
          />
        </Stack>
        <Stack gap={2} data-testid="arb-inventory">
          <Text size="sm" c="dimmed">
            {t('arbitrage.live.inventory')}
          </Text>
          {Object.entries(bot.inventory).map(([ex, inv]) => (
            <Text size="sm" key={ex} data-testid="arb-inventory-row" data-exchange={ex}>
              {`${exchangeName(ex)}: ${fmt(inv.base, 6)} ${base} · ${fmt(inv.quote, 2)} ${quote}`}
            </Text>
          ))}
        </Stack>
        <Stack gap={2}>
          <Text size="sm" c="dimmed">
            {t('arbitrage.live.waiting')}
          </Text>
          <Text size="sm" c={bot.waiting ? 'orange' : undefined} data-testid="arb-waiting">
            {waiting
              ? t(waiting.side === 'base' ? 'arbitrage.live.waitingBase' : 'arbitrage.live.waitingQuote', {
                  base,
                  quote,
                  exchange: exchangeName(waiting.exchange),
                })
              : (bot.waiting ?? t('arbitrage.live.waitingNone'))}
          </Text>
          {bot.paused_until && (
            <Text size="sm" c="orange" data-testid="arb-paused">
              {t('arbitrage.live.paused', { time: new Date(bot.paused_until).toLocaleTimeString() })}
            </Text>
          )}
        </Stack>
      </SimpleGrid>
    </Paper>
  );
}
