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
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { BacktestButton } from '../../../shared/backtest/BacktestButton';
import { HelpText } from '../../../shared/bots/FormHelp';
import { commaToDot } from '../../../shared/bots/format';
import { MarketSupportNotice } from '../../../shared/bots/MarketSupportNotice';
import { PresetPicker } from '../../../shared/bots/PresetPicker';
import { PRESET_KEYS, type PresetKey } from '../../../shared/bots/presets';
import {
  GRID_EXCHANGES,
  GRID_MARKET_TYPES,
  GRID_POSITIONS,
  PROFIT_CURRENCIES,
  type GridMarketType,
} from '../api/grid';
import { GRID_PRESETS, type GridFormState } from './useGridForm';

/** Help under an input (Mantine's `description`, in the input's `aria-describedby`), below it. */
const HELP_BELOW = ['label', 'input', 'description', 'error'] as (
  'label' | 'input' | 'description' | 'error'
)[];

/**
 * 'Grid Bot Settings' (spec part 2 §2): exchange (19, no Bybit_Testnet), market type, pair search,
 * the leverage button, the presets, high, low, profit currency, amount per level, step %, position,
 * 'Start Grid Bot'. Every field has its help under it (what, unit, example). A `<form>`: Enter in a
 * field starts the grid, except in the pair search while a pair is being chosen (Enter picks it).
 */
export function GridSettings({ form, onLeverage }: { form: GridFormState; onLeverage: () => void }) {
  const { t } = useTranslation();
  const [focus, setFocus] = useState(false);
  // The pair search is a combobox (WAI-ARIA): ↑ ↓ move through the suggestions, Enter picks one.
  const listId = `${useId()}-pairs`;
  const [active, setActive] = useState(-1);
  const open = focus && form.suggestions.length > 0;
  const helpId = useId();
  const quote = form.pair.split(':')[0]!.split('/')[1] || 'USDT';
  const blurTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (blurTimer.current) clearTimeout(blurTimer.current);
    },
    [],
  );
  return (
    <Paper withBorder p="md" data-testid="grid-settings">
      <form noValidate onSubmit={(e: FormEvent) => e.preventDefault()} data-testid="grid-form">
        <Stack gap="sm">
          <Title order={2} size="h4">
            {t('grid.settings.title')}
          </Title>
          <Group align="flex-start" gap="xs" wrap="nowrap">
            <NativeSelect
              label={t('grid.settings.exchange')}
              description={t('grid.help.exchange')}
              inputWrapperOrder={HELP_BELOW}
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
              <Badge color={form.isConnected ? 'green' : 'red'} mt={30} data-testid="grid-exchange-badge">
                {form.isConnected ? t('bots.form.connected') : t('bots.form.notConnected')}
              </Badge>
            )}
          </Group>
          <NativeSelect
            label={t('grid.settings.marketType')}
            description={t('grid.help.marketType')}
            inputWrapperOrder={HELP_BELOW}
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
              description={t('grid.help.pair')}
              inputWrapperOrder={HELP_BELOW}
              placeholder={t('grid.settings.pairPlaceholder')}
              value={form.query}
              onChange={(e) => {
                setFocus(true);
                setActive(-1);
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
                const n = form.suggestions.length;
                if (open && e.key === 'ArrowDown') {
                  e.preventDefault();
                  setActive((i) => (i + 1) % n);
                } else if (open && e.key === 'ArrowUp') {
                  e.preventDefault();
                  setActive((i) => (i <= 0 ? n : i) - 1);
                } else if (open && e.key === 'Escape') {
                  setFocus(false);
                  setActive(-1);
                } else if (e.key === 'Enter' && (open || form.query.trim().toUpperCase() !== form.pair)) {
                  // Enter picks the pair rather than starting; once it is picked, Enter starts the grid.
                  e.preventDefault();
                  const chosen = open && active >= 0 ? form.suggestions[active] : undefined;
                  setActive(-1);
                  if (chosen) {
                    setFocus(false);
                    void form.pickPair(chosen);
                  } else form.submitPair();
                }
              }}
              role="combobox"
              aria-autocomplete="list"
              aria-expanded={open}
              aria-controls={open ? listId : undefined}
              aria-activedescendant={open && active >= 0 ? `${listId}-${active}` : undefined}
              autoComplete="off"
              data-testid="grid-pair"
            />
            {open && (
              <Card
                withBorder
                padding={4}
                role="listbox"
                id={listId}
                aria-label={t('grid.settings.pair')}
                style={{ position: 'absolute', zIndex: 20, left: 0, right: 0 }}
                data-testid="grid-pair-suggestions"
              >
                {form.suggestions.map((s, i) => (
                  <Text
                    key={s}
                    id={`${listId}-${i}`}
                    role="option"
                    aria-selected={i === active}
                    size="sm"
                    p={4}
                    bg={i === active ? 'var(--mantine-primary-color-light)' : undefined}
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
          <div>
            <Button
              variant="default"
              fullWidth
              onClick={onLeverage}
              aria-describedby={`${helpId}-leverage`}
              data-testid="grid-leverage-btn"
            >
              {t('grid.settings.leverage', { n: form.leverage })}
            </Button>
            <HelpText id={`${helpId}-leverage`}>{t('grid.help.leverage')}</HelpText>
          </div>
          <PresetPicker
            figures={
              Object.fromEntries(
                PRESET_KEYS.map((k) => [k, t('grid.presets.figures', { ...GRID_PRESETS[k], quote })]),
              ) as Record<PresetKey, string>
            }
            active={form.preset}
            onPick={form.applyPreset}
            testId="grid-presets"
          />
          <SimpleGrid cols={2} spacing="xs">
            <TextInput
              label={t('grid.settings.high')}
              description={t('grid.help.high')}
              inputWrapperOrder={HELP_BELOW}
              value={form.high}
              onChange={(e) => form.setHigh(commaToDot(e.currentTarget.value))}
              inputMode="decimal"
              data-testid="grid-high"
            />
            <TextInput
              label={t('grid.settings.low')}
              description={t('grid.help.low')}
              inputWrapperOrder={HELP_BELOW}
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
              aria-describedby={`${helpId}-profit`}
              data-testid="grid-profit-currency"
            />
            <HelpText id={`${helpId}-profit`}>{t('grid.help.profitCurrency')}</HelpText>
          </div>
          <SimpleGrid cols={2} spacing="xs">
            <TextInput
              label={t('grid.settings.amount')}
              description={t('grid.help.amount')}
              inputWrapperOrder={HELP_BELOW}
              value={form.amount}
              placeholder="20"
              onChange={(e) => form.setAmount(commaToDot(e.currentTarget.value))}
              inputMode="decimal"
              data-testid="grid-amount"
            />
            <TextInput
              label={t('grid.settings.step')}
              description={t('grid.help.step')}
              inputWrapperOrder={HELP_BELOW}
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
              aria-describedby={`${helpId}-position`}
              data-testid="grid-position"
            />
            <HelpText id={`${helpId}-position`}>{t('grid.help.position')}</HelpText>
          </div>
          {form.error && (
            <Alert color="red" data-testid="grid-form-error">
              {form.error}
            </Alert>
          )}
          <Group gap="xs" wrap="nowrap">
            <Button
              type="submit"
              onClick={(e) => {
                // The click, or Enter's implicit submission (which clicks this button), starts once.
                e.preventDefault();
                void form.start();
              }}
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
      </form>
    </Paper>
  );
}
