import { Alert, Button, Card, Group, Stack, Text, TextInput } from '@mantine/core';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { BotProblem } from '@bytx/contract';
import { fmtMoney, fmtPct, profitPct, runtimeKey, runtimeParts } from './figures';
import { pnlColor } from './format';
import { secondsLeft, type SlTpEdit, type SlTpField } from './hooks';
import { fmtPrice, type SlTpProblem } from './slTp';
import type { BotScreen } from './screen';
import type { RowAction } from './RowMenuPart';
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

/**
 * A row's profit (in its quote and as a percentage of what the bot commits, `capital`) and how long it
 * has run ('3 d 4 h'), from `now` (the list's clock, not a per-row timer).
 */
export function BotFiguresLine({
  testPrefix,
  pnl,
  capital,
  startedAt,
  now,
  quote = 'USDT',
}: {
  testPrefix: string;
  pnl: number;
  capital: number;
  startedAt: string | null | undefined;
  now: number;
  quote?: string;
}) {
  const { t, i18n } = useTranslation();
  const locale = i18n.language || 'en';
  const pct = profitPct(pnl, capital);
  const run = runtimeParts(startedAt, now);
  const runtime = run ? runtimeKey(run) : null;
  return (
    <Group gap="md" wrap="wrap">
      <Text
        size="sm"
        fw={600}
        c={pnlColor(Number.isFinite(pnl) ? pnl : 0)}
        data-testid={`${testPrefix}-profit`}
        data-pnl={pnl}
        data-pct={pct ?? ''}
      >
        {pct === null
          ? t('bots.row.profitNoPct', { pnl: fmtMoney(pnl, locale), quote })
          : t('bots.row.profit', { pnl: fmtMoney(pnl, locale), quote, pct: fmtPct(pct, locale) })}
      </Text>
      {runtime && (
        <Text size="sm" c="dimmed" data-testid={`${testPrefix}-runtime`}>
          {t('bots.row.runtime', { time: t(runtime.key, runtime.values) })}
        </Text>
      )}
    </Group>
  );
}

export type { RowAction } from './RowMenuPart';

const RowMenuPart = lazy(() => import('./RowMenuPart'));
/** Asks for the menu's chunk ahead of the click (pointer over the button, focus on it). */
const preloadRowMenu = () => void import('./RowMenuPart');

/**
 * A row's actions in one menu (issue 40 pt 3: rows were walls of buttons). The button reads 'Actions';
 * each item keeps the test id its button had (`<testId>`), so a test opens the menu, then clicks it.
 * Until it is first pressed the button is a plain one: Mantine's Menu (with floating-ui) is its own
 * chunk (RowMenuPart.tsx), fetched then and opened at once, so a screen's first paint carries none of it.
 */
export function RowActionsMenu({
  menuTestId,
  label,
  actions,
  disabled,
}: {
  menuTestId: string;
  label: string;
  actions: readonly (RowAction & { testId: string })[];
  disabled?: boolean | undefined;
}) {
  const { t } = useTranslation();
  const [wanted, setWanted] = useState(false);
  const text = t('bots.row.actions');
  const plainButton = (
    <Button
      size="xs"
      variant="default"
      disabled={disabled}
      aria-label={label}
      aria-haspopup="menu"
      rightSection={<span aria-hidden="true">▾</span>}
      onClick={() => setWanted(true)}
      onPointerEnter={preloadRowMenu}
      onFocus={preloadRowMenu}
      data-testid={menuTestId}
    >
      {text}
    </Button>
  );
  if (!wanted) return plainButton;
  return (
    <Suspense fallback={plainButton}>
      <RowMenuPart
        menuTestId={menuTestId}
        label={label}
        text={text}
        actions={actions}
        disabled={disabled}
        defaultOpened
      />
    </Suspense>
  );
}

/**
 * The row's dialogs ('Trading history', 'Pending Orders', …) and 'Detener' in its actions menu
 * (`<prefix>-actions-btn`); each item keeps its old button's id (`<prefix>-<name>-btn`).
 */
export function BotActions({
  screen,
  symbol,
  actions,
  optimistic,
  onStop,
}: {
  screen: BotScreen;
  symbol: string;
  actions: readonly { name: string; label: string; onClick: () => void }[];
  optimistic: boolean | undefined;
  onStop: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Group gap="xs" justify="flex-end">
      <RowActionsMenu
        menuTestId={tid(screen.ids, 'actions-btn')}
        label={t('bots.row.actionsFor', { symbol })}
        disabled={optimistic}
        actions={[
          ...actions.map((a) => ({ ...a, testId: tid(screen.ids, `${a.name}-btn`) })),
          {
            name: 'stop',
            label: t('bots.row.stop'),
            onClick: onStop,
            danger: true,
            testId: tid(screen.ids, 'stop-btn'),
          },
        ]}
      />
    </Group>
  );
}
