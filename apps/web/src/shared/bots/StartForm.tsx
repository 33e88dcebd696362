import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  NativeSelect,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { EXCHANGES, MARKET_TYPES } from '@bytx/contract';
import { botsApi } from './api';
import { commaToDot, exchangeName, pctOk } from './format';
import { useLater } from './hooks';
import { MarketSupportNotice } from './MarketSupportNotice';
import { HELP_CLASS } from './formHelp';
import { PresetPicker } from './PresetPicker';
import { DCA_PRESETS, presetOf, type PresetKey } from './presets';
import type { BotScreen } from './screen';
import { tid } from './testIds';

/** The red pulsing border of a TP or Separation below 0.5 % (`<prefix>-invalid`). */
export const pulseCss = (prefix: string) =>
  `@keyframes ${prefix}Pulse { 0% { box-shadow: 0 0 0 0 rgba(224,49,49,.7) } 70% { box-shadow: 0 0 0 6px rgba(224,49,49,0) } 100% { box-shadow: 0 0 0 0 rgba(224,49,49,0) } }
.${prefix}-invalid input { border-color: #e03131 !important; animation: ${prefix}Pulse 1.2s infinite; }`;

/** What the start form checked: the pair as sent and the amount as a number. */
export interface StartChecked {
  symbol: string;
  amt: number;
}

/**
 * The start form both bot screens share (spec part 2 §2 and §5): exchange (with its connection),
 * market type (saved for the user), pair (suggested from the exchange's list), amount, # TP,
 * Separation and # OS, and the checks before a start.
 */
export function useStartForm(screen: BotScreen, userId: string, enabled: boolean) {
  const { t } = useTranslation();
  const [exchange, setExchange] = useState('');
  const [apartado, setApartado] = useState<string>('Spot');
  const [pair, setPair] = useState('');
  const [pairFocus, setPairFocus] = useState(false);
  const [amount, setAmount] = useState('20');
  const [tp, setTp] = useState('1');
  const [sep, setSep] = useState('1');
  const [os, setOs] = useState('3');
  const [formError, setFormError] = useState<string | null>(null);
  const [invalid, setInvalid] = useState<{ tp: boolean; sep: boolean }>({ tp: false, sep: false });
  const [attention, setAttention] = useState<null | 'tp' | 'sep'>(null);
  const tpRef = useRef<HTMLInputElement>(null);
  const sepRef = useRef<HTMLInputElement>(null);
  const later = useLater();

  const conns = useQuery({
    queryKey: [screen.scope, 'conexiones', userId],
    queryFn: () => botsApi.connections(userId),
    enabled,
  });
  const connected = conns.data?.conexiones ?? {};
  const pairs = useQuery({
    queryKey: [screen.scope, 'pairs', exchange],
    queryFn: () => botsApi.pairs(exchange),
    enabled: enabled && exchange !== '',
    staleTime: 5 * 60_000,
  });
  const savedApartado = useQuery({
    queryKey: [screen.scope, 'apartado'],
    queryFn: botsApi.apartado,
    enabled,
  });
  useEffect(() => {
    if (savedApartado.data?.apartado) setApartado(savedApartado.data.apartado);
  }, [savedApartado.data]);

  const onPct = (field: 'tp' | 'sep', raw: string) => {
    const v = commaToDot(raw);
    if (field === 'tp') setTp(v);
    else setSep(v);
    // The flag clears once the value is at least 0.5.
    if (pctOk(v)) setInvalid((p) => ({ ...p, [field]: false }));
  };
  const chooseExchange = (key: string) => {
    setExchange(key);
    setFormError(null);
    if (key && conns.data && !connected[key]) setFormError(t('bots.form.notConnectedAlert'));
  };
  const chooseApartado = (v: string) => {
    setApartado(v);
    void botsApi.saveApartado(userId, v).catch(() => undefined);
  };
  const suggestions = useMemo(() => {
    const q = pair.trim().toUpperCase();
    if (!q) return [];
    return (pairs.data ?? []).filter((p) => p.toUpperCase().includes(q)).slice(0, 10);
  }, [pair, pairs.data]);

  const fail = (msg: string) => {
    setFormError(msg);
    notifications.show({ color: 'red', message: msg });
  };

  /** The checks before a start, in the spec's order; null when one failed (and said so). */
  const check = async (): Promise<StartChecked | null> => {
    setFormError(null);
    // 1. TP and Separation at least 0.5 (red pulsing border + attention dialog).
    const badTp = !pctOk(tp);
    const badSep = !pctOk(sep);
    if (badTp || badSep) {
      setInvalid({ tp: badTp, sep: badSep });
      setAttention(badSep ? 'sep' : 'tp');
      return null;
    }
    const refuse = (msg: string) => {
      fail(msg);
      return null;
    };
    // 2. Exchange selected and connected (state refreshed just before start).
    if (!exchange) return refuse(t('bots.validation.noExchange'));
    const fresh = await conns.refetch();
    if (!fresh.data?.conexiones?.[exchange]) return refuse(t('bots.validation.notConnected'));
    // 3. Pair required and on the exchange.
    const symbol = pair.trim().toUpperCase();
    if (!symbol) return refuse(t('bots.validation.noPair'));
    if (pairs.data && !pairs.data.includes(symbol)) {
      return refuse(t('bots.form.pairNotAvailable', { exchange: exchangeName(exchange) }));
    }
    // 4. Amount numeric and not below the minimum cost (a failing check lets the start proceed).
    const amt = Number(commaToDot(amount));
    if (amount.trim() === '' || !Number.isFinite(amt)) return refuse(t('bots.validation.badAmount'));
    try {
      const mc = await botsApi.minCost(userId, exchange, symbol);
      if (mc.success && amt < mc.min_cost) {
        return refuse(
          t('bots.validation.belowMinCost', {
            pair: symbol,
            x: Number(mc.min_cost.toFixed(2)),
            n: Number((mc.min_cost / (mc.price || 1)).toFixed(8)),
            p: mc.price,
          }),
        );
      }
    } catch {
      // The minimum-cost check failing does not block the start (spec part 2 §5).
    }
    return { symbol, amt };
  };

  /** A preset (presets.ts) fills amount, TP, Separation and # OS; the red flags go with the old values. */
  const applyPreset = (key: PresetKey) => {
    const p = DCA_PRESETS[key];
    setAmount(p.amount);
    setTp(p.tp);
    setSep(p.sep);
    setOs(p.os);
    setInvalid({ tp: false, sep: false });
  };

  /** ACCEPT on the attention dialog: close it and focus the offending field. */
  const acceptAttention = () => {
    const field = attention;
    setAttention(null);
    later(() => (field === 'sep' ? sepRef : tpRef).current?.focus(), 50);
  };

  return {
    exchange,
    apartado,
    pair,
    setPair,
    pairFocus,
    setPairFocus,
    /** Blur: the suggestions stay 150 ms so a click on one lands first. */
    setPairFocusLater: (focus: boolean) => later(() => setPairFocus(focus), 150),
    amount,
    setAmount,
    tp,
    sep,
    os,
    setOs,
    onPct,
    invalid,
    tpRef,
    sepRef,
    formError,
    fail,
    attention,
    acceptAttention,
    connected,
    /** The connection state is not known yet ('loading') or could not be read ('unknown'). */
    connState: conns.data ? ('ready' as const) : conns.isError ? ('unknown' as const) : ('loading' as const),
    isConnected: exchange !== '' && !!connected[exchange],
    pairs: pairs.data,
    suggestions,
    chooseExchange,
    chooseApartado,
    check,
    applyPreset,
    preset: presetOf(DCA_PRESETS, { amount, tp, sep, os }),
  };
}

export type StartFormState = ReturnType<typeof useStartForm>;

/** Help under an input (Mantine's `description`, named by the input's `aria-describedby`), below it. */
const HELP_BELOW = ['label', 'input', 'description', 'error'] as (
  'label' | 'input' | 'description' | 'error'
)[];

/**
 * Exchange (with its badge), market type, pair with suggestions, the presets, and amount, # TP,
 * Separation, # OS. Every field has its help under it (what it does, its unit, an example): the shared
 * ones from `bots.help`, the four figures from the screen's own `<ns>.help` (a ladder buy and a safety
 * order are not the same thing). The pair is a combobox: ↑ ↓ move through the suggestions, Enter picks
 * one (and does not start the bot), Escape closes them.
 */
export function StartFormFields({ screen, form }: { screen: BotScreen; form: StartFormState }) {
  const { t } = useTranslation();
  const { ids, ns } = screen;
  const { exchange, pair, pairs, pairFocus, suggestions, connected, connState, isConnected, invalid } = form;
  const uid = useId();
  const listId = `${uid}-pairs`;
  const [activeOption, setActiveOption] = useState(-1);
  const open = pairFocus && suggestions.length > 0 && !suggestions.includes(pair);
  const pick = (s: string) => {
    form.setPair(s);
    form.setPairFocus(false);
    setActiveOption(-1);
  };
  // Until the connection state has loaded nothing is known: saying '❌ No conectado' then reads as a
  // failure (issue 37 point 21), so the options and the badge say it is being checked.
  const mark = (key: string) =>
    connState === 'loading'
      ? t('bots.form.checkingMark')
      : connState === 'unknown'
        ? t('bots.form.unknownMark')
        : connected[key]
          ? t('bots.form.connectedMark')
          : t('bots.form.notConnectedMark');
  return (
    <>
      <Group align="flex-start" gap="xs">
        <NativeSelect
          label={t('bots.form.exchange')}
          description={t('bots.help.exchange')}
          inputWrapperOrder={HELP_BELOW}
          value={exchange}
          onChange={(e) => form.chooseExchange(e.currentTarget.value)}
          data={[
            { value: '', label: t('bots.form.exchangePlaceholder') },
            ...EXCHANGES.map((e) => ({
              value: e.key,
              label: `${e.name} ${mark(e.key)}`,
            })),
          ]}
          style={{ flex: 1 }}
          data-testid={tid(ids, 'exchange')}
        />
        {exchange && (
          <Badge
            color={connState !== 'ready' ? 'gray' : isConnected ? 'green' : 'red'}
            data-state={connState}
            mt={30}
            data-testid={tid(ids, 'exchange-badge')}
          >
            {connState === 'loading'
              ? t('bots.form.checking')
              : connState === 'unknown'
                ? t('bots.form.unknown')
                : isConnected
                  ? t('bots.form.connected')
                  : t('bots.form.notConnected')}
          </Badge>
        )}
      </Group>
      <NativeSelect
        label={t('bots.form.marketType')}
        description={t('bots.help.marketType')}
        inputWrapperOrder={HELP_BELOW}
        value={form.apartado}
        onChange={(e) => form.chooseApartado(e.currentTarget.value)}
        data={[...MARKET_TYPES]}
        data-testid={tid(ids, 'market-type')}
      />
      {/* A live exchange that cannot trade this market type is named before the start (issue 38 #8). */}
      <MarketSupportNotice
        exchange={exchange}
        marketType={form.apartado}
        testId={tid(ids, 'market-unsupported')}
      />
      <div style={{ position: 'relative' }}>
        <TextInput
          label={t('bots.form.pair')}
          description={t('bots.help.pair')}
          inputWrapperOrder={HELP_BELOW}
          placeholder={t('bots.form.pairPlaceholder')}
          value={pair}
          onChange={(e) => {
            form.setPair(e.currentTarget.value.toUpperCase());
            form.setPairFocus(true);
            setActiveOption(-1);
          }}
          onFocus={() => form.setPairFocus(true)}
          onBlur={() => form.setPairFocusLater(false)}
          onKeyDown={(e) => {
            if (!open) return;
            const n = suggestions.length;
            if (e.key === 'ArrowDown') {
              e.preventDefault();
              setActiveOption((i) => (i + 1) % n);
            } else if (e.key === 'ArrowUp') {
              e.preventDefault();
              setActiveOption((i) => (i <= 0 ? n : i) - 1);
            } else if (e.key === 'Enter') {
              // Enter picks a suggestion (the highlighted one, else the first) rather than starting.
              e.preventDefault();
              pick(suggestions[Math.max(activeOption, 0)]!);
            } else if (e.key === 'Escape') {
              e.preventDefault();
              form.setPairFocus(false);
              setActiveOption(-1);
            }
          }}
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={open ? listId : undefined}
          aria-activedescendant={open && activeOption >= 0 ? `${listId}-${activeOption}` : undefined}
          autoComplete="off"
          data-testid={tid(ids, 'pair')}
        />
        {open && (
          <Card
            withBorder
            padding={4}
            role="listbox"
            id={listId}
            aria-label={t('bots.form.pair')}
            style={{ position: 'absolute', zIndex: 20, left: 0, right: 0 }}
            data-testid={tid(ids, 'pair-suggestions')}
          >
            {suggestions.map((s, i) => (
              <Text
                key={s}
                id={`${listId}-${i}`}
                role="option"
                aria-selected={i === activeOption}
                size="sm"
                p={4}
                bg={i === activeOption ? 'var(--mantine-primary-color-light)' : undefined}
                style={{ cursor: 'pointer' }}
                onMouseDown={(e) => {
                  e.preventDefault();
                  pick(s);
                }}
                data-testid={tid(ids, 'pair-suggestion')}
              >
                {s}
              </Text>
            ))}
          </Card>
        )}
        {exchange && pair && pairs && !pairFocus && !pairs.includes(pair.trim()) && (
          <Text size="xs" c="red" mt={4}>
            {t('bots.form.pairNotAvailable', { exchange: exchangeName(exchange) })}
          </Text>
        )}
      </div>
      <PresetPicker
        figures={
          Object.fromEntries(
            (Object.keys(DCA_PRESETS) as PresetKey[]).map((k) => [
              k,
              t('bots.presets.dcaFigures', { ...DCA_PRESETS[k] }),
            ]),
          ) as Record<PresetKey, string>
        }
        active={form.preset}
        onPick={form.applyPreset}
        testId={tid(ids, 'presets')}
      />
      <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs">
        <TextInput
          label={t('bots.form.amount')}
          description={t(`${ns}.help.amount`)}
          inputWrapperOrder={HELP_BELOW}
          inputMode="decimal"
          value={form.amount}
          onChange={(e) => form.setAmount(commaToDot(e.currentTarget.value))}
          data-testid={tid(ids, 'amount')}
        />
        {(
          [
            { field: 'tp', ref: form.tpRef, label: 'bots.form.tp', value: form.tp },
            { field: 'sep', ref: form.sepRef, label: 'bots.form.separation', value: form.sep },
          ] as const
        ).map(({ field, ref, label, value }) => (
          <TextInput
            key={field}
            ref={ref}
            label={t(label)}
            description={t(`${ns}.help.${field}`)}
            inputWrapperOrder={HELP_BELOW}
            inputMode="decimal"
            value={value}
            className={invalid[field] ? tid(ids, 'invalid') : undefined}
            onChange={(e) => form.onPct(field, e.currentTarget.value)}
            data-testid={tid(ids, field)}
          />
        ))}
        <TextInput
          label={t('bots.form.os')}
          description={t(`${ns}.help.os`)}
          inputWrapperOrder={HELP_BELOW}
          inputMode="numeric"
          value={form.os}
          onChange={(e) => form.setOs(commaToDot(e.currentTarget.value))}
          data-testid={tid(ids, 'os')}
        />
      </SimpleGrid>
    </>
  );
}

/** Whether the fields' help shows: `auto` shows it from Mantine's `sm` (48em) up and hides it on a phone. */
type HelpState = 'auto' | 'shown' | 'hidden';

const HELP_KEY = 'botFormHelp';
const PHONE = '(max-width: 47.99em)';
/**
 * The help under the fields (Mantine's input descriptions) hidden where the form says so. On a phone it
 * starts hidden behind one "Show help" button: shown at once, the help paragraphs (three lines each at
 * 412 px) were the page's largest paint, drawn after the title, and moved /bot-dca's mobile LCP from
 * 2.3 to 2.7 s (Lighthouse, bench/web.bench.ts). Hidden, a field still has its help as its accessible
 * description (aria-describedby reads hidden text).
 */
const HELP = `.mantine-InputWrapper-description, .${HELP_CLASS}`;
const HELP_CSS = `@media ${PHONE} { form[data-help='auto'] :is(${HELP}) { display: none; } }
form[data-help='hidden'] :is(${HELP}) { display: none; }`;

function readHelp(): HelpState {
  try {
    const v = localStorage.getItem(HELP_KEY);
    return v === 'shown' || v === 'hidden' ? v : 'auto';
  } catch {
    return 'auto';
  }
}

/**
 * The start form as a `<form>`: Enter in a field starts the bot (the browser's implicit submission
 * clicks 'Start Bot', whose click starts it once), Tab goes through the controls in their order. Above
 * the fields, a button shows or hides every field's help (remembered on this device).
 */
export function StartFormShell({ children, testId }: { children: ReactNode; testId: string }) {
  const { t } = useTranslation();
  const [help, setHelp] = useState<HelpState>(readHelp);
  const phone = typeof matchMedia === 'function' && matchMedia(PHONE).matches;
  const shown = help === 'shown' || (help === 'auto' && !phone);
  const toggle = () => {
    const next: HelpState = shown ? 'hidden' : 'shown';
    setHelp(next);
    try {
      localStorage.setItem(HELP_KEY, next);
    } catch {
      // Private mode: the choice lasts for this page.
    }
  };
  return (
    <form noValidate onSubmit={(e: FormEvent) => e.preventDefault()} data-testid={testId} data-help={help}>
      <style>{HELP_CSS}</style>
      <Stack gap="sm">
        <Group justify="flex-end">
          <Button
            variant="subtle"
            size="compact-xs"
            type="button"
            aria-pressed={shown}
            onClick={toggle}
            data-testid={`${testId}-help-toggle`}
          >
            {t(shown ? 'bots.form.hideHelp' : 'bots.form.showHelp')}
          </Button>
        </Group>
        {children}
      </Stack>
    </form>
  );
}

/** The form's error (also shown as a notification) and 'Start Bot', with `beside` it (the Backtest button). */
export function StartFormSubmit({
  screen,
  form,
  onStart,
  beside,
}: {
  screen: BotScreen;
  form: StartFormState;
  onStart: () => void;
  beside?: ReactNode;
}) {
  const { t } = useTranslation();
  const start = (
    <Button
      type="submit"
      onClick={(e) => {
        // The click (or Enter's implicit submission, which clicks this button) starts; the form's own
        // submit is not needed.
        e.preventDefault();
        onStart();
      }}
      data-testid={tid(screen.ids, 'start')}
      style={beside ? { flex: 1 } : undefined}
    >
      {t('bots.form.start')}
    </Button>
  );
  return (
    <>
      {form.formError && (
        <Alert color="red" data-testid={tid(screen.ids, 'form-error')}>
          {form.formError}
        </Alert>
      )}
      {beside ? (
        <Group gap="xs" wrap="nowrap">
          {start}
          {beside}
        </Group>
      ) : (
        start
      )}
      <Text size="xs" c="dimmed" className={HELP_CLASS}>
        {t('bots.help.keyboard')}
      </Text>
    </>
  );
}
