import { Badge, Group, Paper, SimpleGrid, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { EarningsResponse } from '../api/earnings';
import { liveRewards } from '../apy';
import { fmtPercent, fmtRate, fmtTokens } from './format';

function Stat({
  label,
  value,
  testId,
  hint,
}: {
  label: string;
  value: string;
  testId: string;
  hint?: string;
}) {
  return (
    <Paper withBorder p="sm" radius="md">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="lg" fw={700} data-testid={testId}>
        {value}
      </Text>
      {hint && (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      )}
    </Paper>
  );
}

/**
 * The connected wallet's figures from POST /api/earnings. Available rewards move between two lookups
 * at the reward per second, capped at 2 (paid out there).
 */
export function EarningsStats({ data, updatedAt }: { data: EarningsResponse; updatedAt: number }) {
  const { t } = useTranslation();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, []);
  const available = liveRewards(
    Number(data.available_rewards),
    Number(data.reward_per_second),
    (now - updatedAt) / 1000,
  );

  return (
    <Paper withBorder p="md" radius="md" data-testid="earnings-stats">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4">
          {t('earnings.stats.title')}
        </Title>
        <Badge variant="light" color="gray">
          {t('earnings.stats.refresh')}
        </Badge>
      </Group>
      <SimpleGrid cols={{ base: 2, sm: 3 }}>
        <Stat
          label={t('earnings.stats.balance')}
          value={`${fmtTokens(data.balance)} BYTX`}
          testId="earnings-balance"
        />
        <Stat label={t('earnings.stats.apy')} value={fmtPercent(data.apy)} testId="earnings-apy" />
        <Stat
          label={t('earnings.stats.today')}
          value={`${fmtTokens(data.today_profit, 6)} BYTX`}
          testId="earnings-today"
        />
        <Stat
          label={t('earnings.stats.total')}
          value={`${fmtTokens(data.total_profit, 6)} BYTX`}
          testId="earnings-total"
        />
        <Stat
          label={t('earnings.stats.available')}
          value={`${fmtTokens(available, 6)} BYTX`}
          testId="earnings-available"
          hint={t('earnings.stats.autoPay')}
        />
        <Stat
          label={t('earnings.stats.perSecond')}
          value={`${fmtRate(data.reward_per_second)} BYTX`}
          testId="earnings-per-second"
        />
      </SimpleGrid>
    </Paper>
  );
}
