import { Anchor, Button, NativeSelect, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ApiError, errorMessage } from '../../../shared/api/client';
import { exchangeName } from '../../../shared/bots/format';
import { PresetPicker } from '../../../shared/bots/PresetPicker';
import { PRESET_KEYS, presetOf, type PresetKey } from '../../../shared/bots/presets';
import { parseNumber, signalApi, validateSignalCreate, type SignalBotView } from '../api/signal';
import { serverText } from './serverText';

const quoteOf = (symbol: string) => symbol.split(':')[0]!.split('/')[1] || 'USDT';

/** Help under an input (Mantine's `description`, in the input's `aria-describedby`), below it. */
const HELP_BELOW = ['label', 'input', 'description', 'error'] as (
  'label' | 'input' | 'description' | 'error'
)[];

/**
 * The signal bot presets, in the pair's quote currency: the amount per signal and the max position
 * (at least the amount, as the server checks; the smallest well above a usual 5-10 USDT minimum order).
 */
export const SIGNAL_PRESETS: Record<PresetKey, { amount: string; max: string }> = {
  conservative: { amount: '10', max: '50' },
  balanced: { amount: '25', max: '150' },
  aggressive: { amount: '50', max: '500' },
};

/**
 * 'New signal bot': an exchange among the user's connected ones, the pair, the amount per signal and
 * the max position (both in the quote currency). The checks run in the server's order with its texts;
 * the server's refusal (pair not listed, below the minimum order…) is shown as it answers.
 */
export function SignalCreateForm({
  userId,
  onCreated,
}: {
  userId: string;
  onCreated: (bot: SignalBotView, secret: string) => void;
}) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const listId = useId();
  const [exchange, setExchange] = useState('');
  const [symbol, setSymbol] = useState('');
  const [amount, setAmount] = useState('');
  const [maxPosition, setMaxPosition] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);

  const conns = useQuery({
    queryKey: ['signal', 'conexiones', userId],
    queryFn: () => signalApi.connections(userId),
  });
  const connected = useMemo(() => conns.data?.conexiones ?? {}, [conns.data]);
  const connectedKeys = Object.keys(connected).filter((k) => connected[k]);
  const pairs = useQuery({
    queryKey: ['signal', 'pairs', exchange],
    queryFn: () => signalApi.pairs(exchange),
    enabled: exchange !== '',
    staleTime: 5 * 60_000,
  });
  const quote = quoteOf(symbol);

  const fail = (msg: string) => {
    setError(msg);
    notifications.show({ color: 'red', message: msg });
  };

  const create = async () => {
    setError(null);
    const v = validateSignalCreate({ exchange, symbol, amount, maxPosition, connected });
    if (v) return fail(t(`signal.messages.${v.key}`, v.params));
    setCreating(true);
    try {
      const r = await signalApi.create({
        exchange,
        symbol: symbol.trim(),
        amount: parseNumber(amount),
        max_position: parseNumber(maxPosition),
      });
      notifications.show({ color: 'green', message: serverText(t, r.message), autoClose: 4_000 });
      onCreated(r.bot, r.secret);
      setAmount('');
      setMaxPosition('');
      await qc.invalidateQueries({ queryKey: ['signal', 'bots'] });
    } catch (err) {
      fail(
        err instanceof ApiError
          ? serverText(t, errorMessage(err))
          : t('signal.create.createFailed', { message: errorMessage(err) }),
      );
    } finally {
      setCreating(false);
    }
  };

  return (
    <Paper withBorder p="md" data-testid="signal-create">
      {/* A <form>: Enter in a field creates the bot (through the submit button's click, once). */}
      <form noValidate onSubmit={(e: FormEvent) => e.preventDefault()} data-testid="signal-form">
        <Stack gap="sm">
          <Title order={2} size="h4">
            {t('signal.create.title')}
          </Title>
          {conns.data && connectedKeys.length === 0 && (
            <Text size="sm" c="orange" data-testid="signal-no-connections">
              {t('signal.create.noConnections')}{' '}
              <Anchor component={Link} to="/settings" size="sm">
                {t('signal.create.settings')}
              </Anchor>
            </Text>
          )}
          <NativeSelect
            label={t('signal.create.exchange')}
            description={t('signal.help.exchange')}
            inputWrapperOrder={HELP_BELOW}
            value={exchange}
            onChange={(e) => {
              setExchange(e.currentTarget.value);
              setError(null);
            }}
            data={[
              { value: '', label: t('signal.create.exchangePlaceholder') },
              ...connectedKeys.map((k) => ({ value: k, label: exchangeName(k) })),
            ]}
            data-testid="signal-exchange"
          />
          <TextInput
            label={t('signal.create.symbol')}
            description={t('signal.help.symbol')}
            inputWrapperOrder={HELP_BELOW}
            placeholder={t('signal.create.symbolPlaceholder')}
            value={symbol}
            onChange={(e) => setSymbol(e.currentTarget.value.toUpperCase())}
            list={listId}
            autoComplete="off"
            data-testid="signal-symbol"
          />
          <datalist id={listId}>
            {(pairs.data ?? []).map((p) => (
              <option key={p} value={p} />
            ))}
          </datalist>
          <PresetPicker
            figures={
              Object.fromEntries(
                PRESET_KEYS.map((k) => [k, t('signal.presets.figures', { ...SIGNAL_PRESETS[k], quote })]),
              ) as Record<PresetKey, string>
            }
            active={presetOf(SIGNAL_PRESETS, { amount, max: maxPosition })}
            onPick={(k) => {
              setAmount(SIGNAL_PRESETS[k].amount);
              setMaxPosition(SIGNAL_PRESETS[k].max);
            }}
            testId="signal-presets"
          />
          <TextInput
            label={t('signal.create.amount', { quote })}
            description={t('signal.help.amount', { quote })}
            inputWrapperOrder={HELP_BELOW}
            inputMode="decimal"
            value={amount}
            onChange={(e) => setAmount(e.currentTarget.value.replace(/,/g, '.'))}
            data-testid="signal-amount"
          />
          <TextInput
            label={t('signal.create.maxPosition', { quote })}
            description={t('signal.help.maxPosition', { quote })}
            inputWrapperOrder={HELP_BELOW}
            inputMode="decimal"
            value={maxPosition}
            onChange={(e) => setMaxPosition(e.currentTarget.value.replace(/,/g, '.'))}
            data-testid="signal-max-position"
          />
          <Button
            type="submit"
            onClick={(e) => {
              e.preventDefault();
              void create();
            }}
            loading={creating}
            data-testid="signal-create-submit"
          >
            {creating ? t('signal.create.creating') : t('signal.create.submit')}
          </Button>
          <Text size="xs" c="dimmed">
            {t('signal.help.keyboard')}
          </Text>
          {error && (
            <Text c="red" size="sm" data-testid="signal-form-error">
              {error}
            </Text>
          )}
        </Stack>
      </form>
    </Paper>
  );
}
