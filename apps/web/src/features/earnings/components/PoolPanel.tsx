import { Alert, Badge, Group, Paper, SimpleGrid, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { PoolStateResponse } from '../api/earnings';
import { APY_TABLE, POOL_WARNING_BELOW, tierIndex, tierRange } from '../apy';
import { fmtPercent, fmtTokens } from './format';

/** The pool's size and APY (GET /api/pool_state), the warning under 5M and the APY table, current tier marked. */
export function PoolPanel({ pool }: { pool: PoolStateResponse | undefined }) {
  const { t } = useTranslation();
  const size = pool ? Number(pool.pool_available) : null;
  const current = size === null ? -1 : tierIndex(size);

  return (
    <Paper withBorder p="md" radius="md" data-testid="earnings-pool">
      <Title order={2} size="h4" mb="xs">
        {t('earnings.pool.title')}
      </Title>
      <SimpleGrid cols={2} mb="sm">
        <div>
          <Text size="xs" c="dimmed">
            {t('earnings.pool.available')}
          </Text>
          <Text size="lg" fw={700} data-testid="earnings-pool-available">
            {size === null ? '-' : `${fmtTokens(size, 0)} BYTX`}
          </Text>
        </div>
        <div>
          <Text size="xs" c="dimmed">
            {t('earnings.pool.apy')}
          </Text>
          <Text size="lg" fw={700} data-testid="earnings-pool-apy">
            {pool ? fmtPercent(pool.apy) : '-'}
          </Text>
        </div>
      </SimpleGrid>
      {size !== null && size < POOL_WARNING_BELOW && (
        <Alert color="orange" mb="sm" data-testid="earnings-pool-warning">
          {t('earnings.pool.warning')}
        </Alert>
      )}
      <Text fw={600} size="sm" mb={4}>
        {t('earnings.apy.title')}
      </Text>
      <Table striped withTableBorder data-testid="earnings-apy-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('earnings.apy.pool')}</Table.Th>
            <Table.Th>{t('earnings.apy.rate')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {APY_TABLE.map((row, i) => {
            const r = tierRange(row);
            const label =
              r.kind === 'above'
                ? t('earnings.apy.above', { from: r.from })
                : r.kind === 'under'
                  ? t('earnings.apy.under', { to: r.to })
                  : t('earnings.apy.between', { from: r.from, to: r.to });
            const isCurrent = i === current;
            return (
              <Table.Tr
                key={row.min}
                data-testid="earnings-apy-row"
                data-current={isCurrent ? 'true' : 'false'}
                aria-current={isCurrent ? 'true' : undefined}
                fw={isCurrent ? 700 : undefined}
                bg={isCurrent ? 'var(--mantine-color-yellow-light)' : undefined}
              >
                <Table.Td>
                  <Group gap="xs">
                    {label}
                    {isCurrent && (
                      <Badge size="xs" color="yellow">
                        {t('earnings.apy.current')}
                      </Badge>
                    )}
                  </Group>
                </Table.Td>
                <Table.Td>{row.apy} %</Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}
