import type { DerivativesWalletResponse } from '@bytx/contract';
import { Badge, Card, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useNumbers, type Numbers } from '../../../shared/ui/numbers';
import { USD_STABLES } from '../api/wallet';

/** An amount of `coin`: money (2 decimals) in a stablecoin, up to 8 decimals in a coin (BTC margin). */
const amountOf = (num: Numbers, n: number, coin: string) =>
  USD_STABLES.includes(coin) ? num.money(n) : num.upTo(n, 8);

/**
 * The derivatives (swap) wallet and the open positions of the account: size, entry, mark, isolated
 * margin, liquidation price, unrealized PnL and funding (rate per 8 h and what was paid). Hidden when
 * the venue has no derivatives.
 */
export function DerivativesPanel({ data }: { data: DerivativesWalletResponse | undefined }) {
  const { t } = useTranslation();
  const num = useNumbers();
  if (!data?.supported) return null;
  const coins = Object.entries(data.wallet).sort((a, b) => b[1] - a[1]);
  return (
    <Card withBorder data-testid="wallet-derivatives">
      <Stack gap="xs">
        <Title order={2} size="h4">
          {t('wallet.derivatives.title')}
        </Title>
        <Group gap="xs" data-testid="wallet-derivatives-balances">
          {coins.length === 0 && <Text c="dimmed">{t('wallet.derivatives.empty')}</Text>}
          {coins.map(([coin, total]) => (
            <Badge key={coin} variant="light" size="lg">
              {coin} {amountOf(num, total, coin)}
            </Badge>
          ))}
        </Group>
        {data.positions.length === 0 ? (
          <Text c="dimmed" size="sm" data-testid="wallet-positions-empty">
            {t('wallet.derivatives.noPositions')}
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={900}>
            <Table striped data-testid="wallet-positions">
              <Table.Thead>
                <Table.Tr>
                  {(
                    [
                      'symbol',
                      'side',
                      'size',
                      'entry',
                      'mark',
                      'leverage',
                      'margin',
                      'liquidation',
                      'pnl',
                      'funding',
                    ] as const
                  ).map((k) => (
                    <Table.Th key={k}>{t(`wallet.derivatives.${k}`)}</Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.positions.map((p) => (
                  <Table.Tr key={`${p.symbol}-${p.market_type}`} data-testid="wallet-position">
                    <Table.Td>
                      {p.symbol}{' '}
                      <Text span c="dimmed" size="xs">
                        {p.market_type}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Badge color={p.side === 'long' ? 'teal' : 'red'}>
                        {t(`wallet.derivatives.${p.side}`)}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{num.upTo(p.contracts, 8)}</Table.Td>
                    <Table.Td>{num.price(p.entry_price)}</Table.Td>
                    <Table.Td>{num.price(p.mark_price)}</Table.Td>
                    <Table.Td>{p.leverage}x</Table.Td>
                    <Table.Td>
                      {amountOf(num, p.margin, p.settle)} {p.settle}
                    </Table.Td>
                    <Table.Td data-testid="wallet-position-liq">{num.price(p.liquidation_price)}</Table.Td>
                    <Table.Td c={p.unrealized_pnl >= 0 ? 'teal' : 'red'}>
                      {amountOf(num, p.unrealized_pnl, p.settle)} {p.settle}
                    </Table.Td>
                    <Table.Td>
                      {p.funding_rate === null
                        ? '—'
                        : t('wallet.derivatives.fundingValue', {
                            rate: num.fixed(p.funding_rate * 100, 4),
                            paid: num.upTo(p.funding_paid, 8),
                            settle: p.settle,
                          })}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>
    </Card>
  );
}
