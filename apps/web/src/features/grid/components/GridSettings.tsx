import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  NativeSelect,
  Paper,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { BacktestButton } from '../../../shared/backtest/BacktestButton';
import { commaToDot } from '../../../shared/bots/format';
import { MarketSupportNotice } from '../../../shared/bots/MarketSupportNotice';
import {
  GRID_EXCHANGES,
  GRID_MARKET_TYPES,
  GRID_POSITIONS,
  PROFIT_CURRENCIES,
  type GridMarketType,
} from '../api/grid';
import type { GridFormState } from './useGridForm';

/**
 * 'Grid Bot Settings' (spec part 2 §2): exchange (19, no Bybit_Testnet), market type, pair search,
 * the leverage button, high, low, profit currency, amount per level, step %, position, 'Start Grid Bot'.
 */
export function GridSettings({ form, onLeverage }: { form: GridFormState; onLeverage: () => void }) {
  const { t } = useTranslation();
  const [focus, setFocus] = useState(false);
  const blurTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (blurTimer.current) clearTimeout(blurTimer.current);
    },
    [],
  );
  return (
    <Paper withBorder p="md" data-testid="grid-settings">
      <Stack gap="sm">
        <Title order={4}>{t('grid.settings.title')}</Title>
        <Group align="flex-end" gap="xs" wrap="nowrap">
          <NativeSelect
            label={t('grid.settings.exchange')}
            value={form.exchange}
            onChange={(e) => form.chooseExchange(e.currentTarget.value)}
            data={[
              { value: '', label: t('grid.settings.exchangePlaceholder') },
              ...GRID_EXCHANGES.map((e) => ({ value: e.key, label: e.name })),
            ]}
            style={{ flex: 1 }}
            data-testid="grid-exchange"
          />
          {form.exchange && form.connectionsKnown && (
            <Badge color={form.isConnected ? 'green' : 'red'} mb={8} data-testid="grid-exchange-badge">
              {form.isConnected ? t('bots.form.connected') : t('bots.form.notConnected')}
            </Badge>
          )}
        </Group>
        <NativeSelect
          label={t('grid.settings.marketType')}
          value={form.marketType}
          onChange={(e) => form.chooseMarketType(e.currentTarget.value as GridMarketType)}
          data={GRID_MARKET_TYPES.map((m) => ({ value: m, label: t(`grid.settings.marketTypes.${m}`) }))}
          data-testid="grid-market-type"
        />
        {/* A live exchange that cannot trade this market type is named before the start (issue 38 #8). */}
        <MarketSupportNotice
          exchange={form.exchange}
          marketType={form.marketType}
          testId="grid-market-unsupported"
        />
        <div style={{ position: 'relative' }}>
          <TextInput
            label={t('grid.settings.pair')}
            placeholder={t('grid.settings.pairPlaceholder')}
            value={form.query}
            onChange={(e) => {
              setFocus(true);
              form.typePair(e.currentTarget.value);
            }}
            onFocus={() => {
              if (blurTimer.current) clearTimeout(blurTimer.current);
              setFocus(true);
            }}
            onBlur={() => {
              blurTimer.current = setTimeout(() => setFocus(false), 150);
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter') form.submitPair();
            }}
            data-testid="grid-pair"
          />
          {focus && form.suggestions.length > 0 && (
            <Card
              withBorder
              padding={4}
              style={{ position: 'absolute', zIndex: 20, left: 0, right: 0 }}
              data-testid="grid-pair-suggestions"
            >
              {form.suggestions.map((s) => (
                <Text
                  key={s}
                  size="sm"
                  p={4}
                  style={{ cursor: 'pointer' }}
                  onMouseDown={(e) => {
                    e.preventDefault();
                    setFocus(false);
                    void form.pickPair(s);
                  }}
                  data-testid="grid-pair-suggestion"
                >
                  {s}
                </Text>
              ))}
            </Card>
          )}
        </div>
        <Button variant="default" onClick={onLeverage} data-testid="grid-leverage-btn">
          {t('grid.settings.leverage', { n: form.leverage })}
        </Button>
        <SimpleGrid cols={2} spacing="xs">
          <TextInput
            label={t('grid.settings.high')}
            value={form.high}
            onChange={(e) => form.setHigh(commaToDot(e.currentTarget.value))}
            inputMode="decimal"
            data-testid="grid-high"
          />
          <TextInput
            label={t('grid.settings.low')}
            value={form.low}
            onChange={(e) => form.setLow(commaToDot(e.currentTarget.value))}
            inputMode="decimal"
            data-testid="grid-low"
          />
        </SimpleGrid>
        <div>
          <Text size="sm" fw={500} mb={4}>
            {t('grid.settings.profitCurrency')}
          </Text>
          <SegmentedControl
            fullWidth
            value={form.profitCurrency}
            onChange={(v) => form.setProfitCurrency(v)}
            data={PROFIT_CURRENCIES.map((c) => ({ value: c, label: t(`grid.settings.${c}`) }))}
            aria-label={t('grid.settings.profitCurrency')}
            data-testid="grid-profit-currency"
          />
        </div>
        <SimpleGrid cols={2} spacing="xs">
          <TextInput
            label={t('grid.settings.amount')}
            value={form.amount}
            placeholder="20"
            onChange={(e) => form.setAmount(commaToDot(e.currentTarget.value))}
            inputMode="decimal"
            data-testid="grid-amount"
          />
          <TextInput
            label={t('grid.settings.step')}
            value={form.step}
            onChange={(e) => form.setStep(commaToDot(e.currentTarget.value))}
            inputMode="decimal"
            data-testid="grid-step"
          />
        </SimpleGrid>
        <div>
          <Text size="sm" fw={500} mb={4}>
            {t('grid.settings.position')}
          </Text>
          <SegmentedControl
            fullWidth
            value={form.position}
            onChange={(v) => form.setPosition(v)}
            data={GRID_POSITIONS.map((p) => ({
              value: p,
              label: t(`grid.settings.positions.${p}`),
              disabled: p !== 'long' && form.marketType === 'spot',
            }))}
            aria-label={t('grid.settings.position')}
            data-testid="grid-position"
          />
        </div>
        {form.error && (
          <Alert color="red" data-testid="grid-form-error">
            {form.error}
          </Alert>
        )}
        <Group gap="xs" wrap="nowrap">
          <Button
            onClick={() => void form.start()}
            loading={form.starting}
            style={{ flex: 1 }}
            data-testid="grid-start"
          >
            {t('grid.settings.start')}
          </Button>
          <BacktestButton
            kind="grid"
            getParams={() => ({ ...form.startInput() })}
            exchange={form.exchange}
            symbol={form.pair}
            onStart={() => void form.start()}
          />
        </Group>
      </Stack>
    </Paper>
  );
}
