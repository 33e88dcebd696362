import { Alert, Button, Card, Group, Stack, Text, TextInput } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { BotProblem } from '@bytx/contract';
import { secondsLeft, type SlTpEdit, type SlTpField } from './hooks';
import { fmtPrice, type SlTpProblem } from './slTp';
import type { BotScreen } from './screen';
import { tid } from './testIds';

interface RowBot {
  exchange: string;
  symbol: string;
  tp_pct: number;
  monto: number;
  os: number;
  sep_pct: number;
  problem: BotProblem | null;
  reason: { en: string; es: string } | null;
}

/**
 * A bot's card: its status dot and summary line ('… · Entry <entry>'), why it cannot trade when it
 * cannot, then the screen's own rows (`children`). An optimistic row is dimmed.
 */
export function BotRowCard({
  screen,
  bot,
  dot,
  entry,
  optimistic,
  children,
}: {
  screen: BotScreen;
  bot: RowBot;
  dot: ReactNode;
  entry: string;
  optimistic: boolean | undefined;
  children: ReactNode;
}) {
  const { t, i18n } = useTranslation();
  const { ids } = screen;
  const reason = bot.reason ? (i18n.language.startsWith('es') ? bot.reason.es : bot.reason.en) : null;
  return (
    <Card
      withBorder
      padding="sm"
      data-testid={tid(ids, 'bot-row')}
      data-symbol={bot.symbol}
      opacity={optimistic ? 0.6 : 1}
    >
      <Stack gap={6}>
        <Group gap="xs" wrap="nowrap">
          {dot}
          <Text size="sm" fw={600} data-testid={tid(ids, 'bot-summary')}>
            {t('bots.row.summary', {
              exchange: bot.exchange,
              symbol: bot.symbol,
              tp: bot.tp_pct ?? 1,
              amount: bot.monto ?? 20,
              os: bot.os,
              sep: bot.sep_pct,
              price: entry,
            })}
          </Text>
        </Group>
        {reason && (
          <Alert
            color="orange"
            variant="light"
            p="xs"
            data-testid={tid(ids, 'bot-problem')}
            data-problem={bot.problem ?? ''}
          >
            <Text size="xs">{reason}</Text>
          </Alert>
        )}
        {children}
      </Stack>
    </Card>
  );
}

/**
 * The SL and TP+ inputs, each with the seconds left of its 30 s window. With `quote` the labels say
 * the unit (a price in the quote currency) and the current price is shown beside them; `problem` is
 * what is wrong with a field's text (shown under it as the user types, slTp.ts).
 */
export function SlTpInputs({
  screen,
  edit,
  now,
  disabled,
  onEdit,
  quote,
  price,
  problem,
}: {
  screen: BotScreen;
  edit: SlTpEdit;
  now: number;
  disabled?: boolean | undefined;
  onEdit: (field: SlTpField, value: string) => void;
  quote?: string;
  price?: number | null;
  problem?: (field: SlTpField, value: string) => SlTpProblem | null;
}) {
  const { t } = useTranslation();
  const fields = [
    {
      field: 'sl',
      label: 'bots.row.sl',
      value: edit.sl,
      left: secondsLeft(edit.slEditedAt, now),
      id: 'sl-input',
    },
    {
      field: 'tpPlus',
      label: 'bots.row.tpPlus',
      value: edit.tpPlus,
      left: secondsLeft(edit.tpEditedAt, now),
      id: 'tpplus-input',
    },
  ] as const;
  const inputs = fields.map(({ field, label, value, left, id }) => {
    const p = problem?.(field, value) ?? null;
    return (
      <Stack key={field} gap={2} w={quote ? 150 : 110}>
        <TextInput
          size="xs"
          label={quote ? t('bots.slTp.label', { name: t(label), quote }) : t(label)}
          value={value}
          inputMode="decimal"
          {...(disabled === undefined ? {} : { disabled })}
          onChange={(e) => onEdit(field, e.currentTarget.value)}
          error={p !== null}
          aria-invalid={p !== null}
          rightSection={left > 0 ? <Text size="xs">{t('bots.row.countdown', { s: left })}</Text> : null}
          data-testid={tid(screen.ids, id)}
        />
        {p && (
          <Text size="xs" c="red" role="alert" data-testid={tid(screen.ids, `${id}-error`)}>
            {t(`bots.slTp.${p.key}`, p.params)}
          </Text>
        )}
      </Stack>
    );
  });
  if (!quote) return inputs;
  return (
    <>
      {inputs}
      <Text size="xs" c="dimmed" data-testid={tid(screen.ids, 'price-now')}>
        {price === null || price === undefined
          ? t('bots.slTp.priceUnknown')
          : t('bots.slTp.priceNow', { price: fmtPrice(price), quote })}
      </Text>
    </>
  );
}

/** The row's dialog buttons ('Trading history', 'Pending Orders', …) and 'Detener'. */
export function BotActions({
  screen,
  actions,
  optimistic,
  onStop,
}: {
  screen: BotScreen;
  actions: readonly { name: string; label: string; onClick: () => void }[];
  optimistic: boolean | undefined;
  onStop: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Group gap="xs">
      {actions.map(({ name, label, onClick }) => (
        <Button
          key={name}
          size="xs"
          variant="light"
          onClick={onClick}
          disabled={optimistic}
          data-testid={tid(screen.ids, `${name}-btn`)}
        >
          {label}
        </Button>
      ))}
      <Button
        size="xs"
        color="red"
        onClick={onStop}
        disabled={optimistic}
        data-testid={tid(screen.ids, 'stop-btn')}
      >
        {t('bots.row.stop')}
      </Button>
    </Group>
  );
}
