import { HISTORY_BAR_MIN_PCT, HISTORY_TOKENS_SHOWN, type HistoryTokenTotal } from '@bytx/contract';
import { Badge, Box, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { validPrice } from '../api/history';
import { fix2, fix8, signColor } from './format';

/** Bar width (percent) of a PnL against the largest absolute PnL, at least the spec's 4 %. */
export function barWidth(pnl: number, maxAbs: number): number {
  if (!(maxAbs > 0)) return HISTORY_BAR_MIN_PCT;
  return Math.max(HISTORY_BAR_MIN_PCT, Math.min(100, (Math.abs(pnl) / maxAbs) * 100));
}

/** 'Tokens (PNL total)': net PnL per symbol with base and quote tags, a bar and its approximate USD. */
export function TokenPanel({ tokens, loading }: { tokens: HistoryTokenTotal[]; loading: boolean }) {
  const { t } = useTranslation();
  const [all, setAll] = useState(false);
  const maxAbs = tokens.reduce((m, x) => Math.max(m, Math.abs(x.pnl)), 0);
  const shown = all ? tokens : tokens.slice(0, HISTORY_TOKENS_SHOWN);
  const hidden = tokens.length - HISTORY_TOKENS_SHOWN;
  return (
    <Paper withBorder p="sm" data-testid="gh-tokens">
      <Title order={2} size="h4" mb="xs">
        {t('history.tokens.title')}
      </Title>
      {loading && tokens.length === 0 && <Text size="sm">{t('history.table.loading')}</Text>}
      {!loading && tokens.length === 0 && (
        <Text size="sm" c="dimmed">
          {t('history.tokens.none')}
        </Text>
      )}
      <Stack gap="xs">
        {shown.map((x) => {
          const usd = validPrice(x.usd);
          return (
            <Box key={x.symbol} data-testid="gh-token" data-symbol={x.symbol} data-pnl={x.pnl}>
              <Group justify="space-between" gap={4} wrap="nowrap">
                <Text size="sm" fw={600}>
                  {x.symbol}
                </Text>
                <Group gap={4} wrap="nowrap">
                  <Badge size="xs" variant="light" data-testid="gh-token-base">
                    {x.base}
                  </Badge>
                  <Badge size="xs" variant="outline" color="gray" data-testid="gh-token-quote">
                    {x.quote}
                  </Badge>
                </Group>
              </Group>
              <Box h={6} bg="gray.2" style={{ borderRadius: 3 }}>
                <Box
                  h={6}
                  bg={x.pnl >= 0 ? 'green.6' : 'red.6'}
                  style={{ width: `${barWidth(x.pnl, maxAbs)}%`, borderRadius: 3 }}
                  data-testid="gh-token-bar"
                />
              </Box>
              <Group justify="space-between" gap={4} wrap="nowrap">
                <Text size="xs" c={signColor(x.pnl)} data-testid="gh-token-pnl">
                  {fix8(x.pnl)} {x.quote}
                </Text>
                <Text size="xs" c="dimmed" data-testid="gh-token-usd">
                  {usd === null ? t('history.tokens.usdNa') : t('history.tokens.usd', { value: fix2(usd) })}
                </Text>
              </Group>
            </Box>
          );
        })}
      </Stack>
      {hidden > 0 && (
        <Button
          variant="subtle"
          size="xs"
          mt="xs"
          onClick={() => setAll((v) => !v)}
          data-testid="gh-token-more"
        >
          {all ? t('history.tokens.less') : t('history.tokens.more', { n: hidden })}
        </Button>
      )}
    </Paper>
  );
}
