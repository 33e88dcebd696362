import type { DerivativesWalletResponse } from '@bytx/contract';
import { Badge, Card, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';

const fmt = (n: number, max = 8) => n.toLocaleString(undefined, { maximumFractionDigits: max });

/**
 * The derivatives (swap) wallet and the open positions of the account: size, entry, mark, isolated
 * margin, liquidation price, unrealized PnL and funding (rate per 8 h and what was paid). Hidden when
 * the venue has no derivatives.
 */
export function DerivativesPanel({ data }: { data: DerivativesWalletResponse | undefined }) {
  const { t } = useTranslation();
  if (!data?.supported) return null;
  const coins = Object.entries(data.wallet).sort((a, b) => b[1] - a[1]);
  return (
    <Card withBorder data-testid="wallet-derivatives">
      <Stack gap="xs">
        <Title order={4}>{t('wallet.derivatives.title')}</Title>
        <Group gap="xs" data-testid="wallet-derivatives-balances">
          {coins.length === 0 && <Text c="dimmed">{t('wallet.derivatives.empty')}</Text>}
          {coins.map(([coin, total]) => (
            <Badge key={coin} variant="light" size="lg">
              {coin} {fmt(total)}
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
                    <Table.Td>{fmt(p.contracts)}</Table.Td>
                    <Table.Td>{fmt(p.entry_price, 4)}</Table.Td>
                    <Table.Td>{fmt(p.mark_price, 4)}</Table.Td>
                    <Table.Td>{p.leverage}x</Table.Td>
                    <Table.Td>
                      {fmt(p.margin)} {p.settle}
                    </Table.Td>
                    <Table.Td data-testid="wallet-position-liq">
                      {p.liquidation_price === null ? '—' : fmt(p.liquidation_price, 4)}
                    </Table.Td>
                    <Table.Td c={p.unrealized_pnl >= 0 ? 'teal' : 'red'}>
                      {fmt(p.unrealized_pnl)} {p.settle}
                    </Table.Td>
                    <Table.Td>
                      {p.funding_rate === null
                        ? '—'
                        : t('wallet.derivatives.fundingValue', {
                            rate: (p.funding_rate * 100).toFixed(4),
                            paid: fmt(p.funding_paid),
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
