import { EXCHANGES, PASSPHRASE_EXCHANGES, type ExchangeKey } from '@bytx/contract';
import {
  Alert,
  Badge,
  Button,
  Group,
  PasswordInput,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { serverError } from '../../api/account';
import { useConnectExchange, useConnectionStatus } from '../../api/exchanges';

type Mode = 'live' | 'paper';
type Note = { ok: boolean; text: string; notice?: string } | null;

const available = (key: ExchangeKey) => EXCHANGES.find((e) => e.key === key)?.ccxtId != null;

/**
 * Exchange dropdown with its connection badge (red '❌ No conectado' plus an alert, green
 * '✅ Conectado'), API Key and API Secret, the paper choice, and Connect with the spec's messages.
 */
export function ConnectExchangeForm() {
  const { t } = useTranslation();
  const status = useConnectionStatus();
  const connect = useConnectExchange();
  const [exchange, setExchange] = useState<ExchangeKey>('binance');
  const [mode, setMode] = useState<Mode>('live');
  const [apiKey, setApiKey] = useState('');
  const [apiSecret, setApiSecret] = useState('');
  const [password, setPassword] = useState('');
  const [note, setNote] = useState<Note>(null);

  const connected = status.data?.[exchange] === true;
  const needsPassphrase = PASSPHRASE_EXCHANGES.includes(exchange);
  const name = EXCHANGES.find((e) => e.key === exchange)?.name ?? exchange;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setNote(null);
    if (mode === 'live' && (!apiKey.trim() || !apiSecret.trim())) {
      setNote({ ok: false, text: t('settings.exchange.missingKeys') });
      return;
    }
    try {
      const answer = await connect.mutateAsync(
        mode === 'paper'
          ? { exchange, mode: 'paper' }
          : {
              exchange,
              apiKey: apiKey.trim(),
              apiSecret: apiSecret.trim(),
              ...(needsPassphrase && password.trim() ? { password: password.trim() } : {}),
            },
      );
      setApiKey('');
      setApiSecret('');
      setPassword('');
      setNote({
        ok: true,
        text: t(mode === 'paper' ? 'settings.exchange.connectedPaper' : 'settings.exchange.connectedLive', {
          name,
        }),
        // The exchange does not show whether the key can withdraw: say so (docs/exchanges.md).
        ...(answer.withdraw_check === 'unchecked'
          ? { notice: t('settings.exchange.withdrawUnchecked', { name }) }
          : {}),
      });
    } catch (err) {
      setNote({ ok: false, text: `❌ ${serverError(err) ?? t('settings.exchange.couldNotConnect')}` });
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <Stack gap="sm" maw={520}>
        <Group align="flex-end" gap="sm" wrap="nowrap">
          <Select
            label={t('settings.exchange.exchange')}
            data-testid="exchange-select"
            data={EXCHANGES.map((x) => ({
              value: x.key,
              label: available(x.key) ? x.name : `${x.name} (${t('settings.exchange.unavailable')})`,
            }))}
            value={exchange}
            onChange={(v) => {
              if (v) setExchange(v);
              setNote(null);
            }}
            allowDeselect={false}
            searchable
            style={{ flex: 1 }}
            comboboxProps={{ withinPortal: true }}
          />
          {status.data && (
            <Badge
              color={connected ? 'green' : 'red'}
              variant="light"
              size="lg"
              tt="none"
              data-testid="exchange-badge"
              data-connected={connected ? 'true' : 'false'}
            >
              {t(connected ? 'settings.exchange.connectedMark' : 'settings.exchange.notConnectedMark')}
            </Badge>
          )}
        </Group>
        {status.data && !connected && (
          <Alert color="red" variant="light" data-testid="exchange-not-connected">
            {t('settings.exchange.notConnectedAlert', { name })}
          </Alert>
        )}
        {!available(exchange) && (
          <Text size="sm" c="orange">
            {t('settings.exchange.unavailableNote', { name })}
          </Text>
        )}
        <SegmentedControl
          value={mode}
          onChange={(v) => {
            setMode(v);
            setNote(null);
          }}
          data={[
            { value: 'live', label: t('settings.exchange.modeLive') },
            { value: 'paper', label: t('settings.exchange.modePaper') },
          ]}
          data-testid="exchange-mode"
        />
        {mode === 'live' ? (
          <>
            <TextInput
              label={t('settings.exchange.apiKey')}
              value={apiKey}
              onChange={(e) => setApiKey(e.currentTarget.value)}
              autoComplete="off"
              spellCheck={false}
              data-testid="exchange-api-key"
            />
            <PasswordInput
              label={t('settings.exchange.apiSecret')}
              value={apiSecret}
              onChange={(e) => setApiSecret(e.currentTarget.value)}
              autoComplete="new-password"
              data-testid="exchange-api-secret"
            />
            {needsPassphrase && (
              <PasswordInput
                label={t('settings.exchange.passphrase')}
                value={password}
                onChange={(e) => setPassword(e.currentTarget.value)}
                autoComplete="new-password"
                data-testid="exchange-api-passphrase"
              />
            )}
            <Text size="xs" c="dimmed">
              {t('settings.exchange.tradeOnlyHint')}
            </Text>
          </>
        ) : (
          <Text size="sm" c="dimmed">
            {t('settings.exchange.paperHint')}
          </Text>
        )}
        <Group>
          <Button type="submit" loading={connect.isPending} data-testid="exchange-connect">
            {t('settings.exchange.connect')}
          </Button>
        </Group>
        {note && (
          <Text
            c={note.ok ? 'green' : 'red'}
            size="sm"
            data-testid="exchange-note"
            role={note.ok ? 'status' : 'alert'}
          >
            {note.text}
          </Text>
        )}
        {note?.notice && (
          <Text c="orange" size="sm" data-testid="exchange-withdraw-notice" role="status">
            {note.notice}
          </Text>
        )}
      </Stack>
    </form>
  );
}
