import { EXCHANGES, PAPER_ADDRESS_PREFIX, PAPER_SEED_USDT, WALLET_COINS } from '@bytx/contract';
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Container,
  Group,
  Modal,
  Paper,
  Select,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ApiError, errorMessage } from '../../../shared/api/client';
import { useSession } from '../../../shared/session/session';
import { useNumbers } from '../../../shared/ui/numbers';
import {
  useAddresses,
  useBalances,
  useCoinPrices,
  useDerivatives,
  useGenerateAddress,
  useResetPaper,
  useWalletConnections,
} from '../api/wallet';
import { CoinRow } from './CoinRow';
import { DerivativesPanel } from './DerivativesPanel';
import { EXCHANGE_WEBSITES } from './exchangeLinks';
import { heldCoins, walletValue } from './walletValue';

const nameOf = (key: string | null) => EXCHANGES.find((e) => e.key === key)?.name ?? key ?? '';

/** Rows sorted by balance, highest first; equal balances keep the spec's coin order. */
export function sortCoins(balances: Record<string, number>, search: string): string[] {
  const q = search.trim().toUpperCase();
  return WALLET_COINS.filter((c) => c.includes(q))
    .map((c, i) => ({ c, i, b: balances[c] ?? 0 }))
    .sort((x, y) => y.b - x.b || x.i - y.i)
    .map((x) => x.c);
}

/**
 * Wallet (spec part 1 §2): balances and deposit addresses of the user's connected account (paper or
 * live). Withdrawals happen on the exchange: the platform's keys are trade-only.
 */
export function WalletPage() {
  const { t } = useTranslation();
  const { user, checking } = useSession();
  if (checking) {
    return (
      <Container size="lg" py="xl">
        <Text data-testid="wallet-verifying">{t('wallet.verifying')}</Text>
      </Container>
    );
  }
  if (!user) {
    return (
      <Container size="lg" py="xl">
        <Text data-testid="wallet-login-required">{t('wallet.mustLogin')}</Text>
      </Container>
    );
  }
  return <Wallet />;
}

function Wallet() {
  const { t } = useTranslation();
  const [chosen, setChosen] = useState<string | null>(null);
  const [search, setSearch] = useState('');
  const [withdrawOf, setWithdrawOf] = useState<string | null>(null);
  const [generating, setGenerating] = useState<Set<string>>(new Set());
  const [genError, setGenError] = useState<string | null>(null);
  const connections = useWalletConnections();
  const balances = useBalances(chosen);
  const derivatives = useDerivatives(chosen);
  const exchange = balances.data?.exchange ?? chosen;
  const addresses = useAddresses(chosen);
  const generate = useGenerateAddress(chosen);
  const reset = useResetPaper();
  const [resetOpen, setResetOpen] = useState(false);
  const paper = balances.data?.mode === 'paper';
  const num = useNumbers();
  const seed = num.upTo(PAPER_SEED_USDT, 2);
  // Zero balances hidden by default (issue 40 point 5); a search still finds every coin, so a coin
  // with nothing on it can be looked up to deposit to it.
  const [hideZero, setHideZero] = useState(true);
  const held = useMemo(() => heldCoins(balances.data?.balances ?? {}), [balances.data]);
  const prices = useCoinPrices(exchange, held);
  const value = walletValue(balances.data?.balances ?? {}, prices);

  /** Reset balances (paper only, confirmed first): a 409 means bots or open orders run on the account. */
  const onReset = async () => {
    if (!exchange) return;
    try {
      await reset.mutateAsync(exchange);
      notifications.show({ color: 'green', message: t('wallet.reset.done', { usdt: seed }) });
    } catch (err) {
      const running =
        err instanceof ApiError && err.status === 409
          ? Number((err.body as { running?: unknown } | null)?.running ?? 0) || ''
          : null;
      notifications.show({
        color: 'red',
        message:
          running !== null
            ? t('wallet.reset.botsRunning', { n: running })
            : t('wallet.reset.failed', { message: errorMessage(err) }),
      });
    } finally {
      setResetOpen(false);
    }
  };

  // Spec part 1 §8: wallet load failures go to the console only (the rows stay at 0).
  useEffect(() => {
    if (balances.error) console.error('Wallet load failed', balances.error);
    if (addresses.error) console.error('Wallet load failed', addresses.error);
  }, [balances.error, addresses.error]);

  const sorted = useMemo(() => sortCoins(balances.data?.balances ?? {}, search), [balances.data, search]);
  const rows =
    hideZero && !search.trim() ? sorted.filter((c) => (balances.data?.balances[c] ?? 0) > 0) : sorted;
  const hiddenZero = sorted.length - rows.length;
  const list = connections.data ?? [];

  const onGenerate = async (symbol: string): Promise<string | null> => {
    setGenError(null);
    setGenerating((s) => new Set(s).add(symbol));
    try {
      return (await generate.mutateAsync(symbol)).address;
    } catch (err) {
      setGenError(`❌ ${errorMessage(err)}`);
      return null;
    } finally {
      setGenerating((s) => {
        const n = new Set(s);
        n.delete(symbol);
        return n;
      });
    }
  };

  return (
    <Container size="lg" py="md">
      <Stack gap="md">
        <Group justify="space-between" align="flex-end">
          <Stack gap={2}>
            <Group gap="xs">
              <Title order={1} size="h2">
                {t('wallet.title')}
              </Title>
              {paper && (
                <Badge color="orange" variant="filled" data-testid="wallet-paper-badge">
                  {t('wallet.paper')}
                </Badge>
              )}
            </Group>
            {balances.data?.exchange && (
              <Text c="dimmed" size="sm" data-testid="wallet-connection">
                {t(balances.data.mode === 'paper' ? 'wallet.accountPaper' : 'wallet.accountLive', {
                  name: nameOf(balances.data.exchange),
                })}
              </Text>
            )}
          </Stack>
          {paper && (
            <Button
              variant="light"
              color="orange"
              onClick={() => setResetOpen(true)}
              data-testid="wallet-reset"
            >
              {t('wallet.reset.button')}
            </Button>
          )}
          {list.length > 1 && (
            <Select
              label={t('wallet.account')}
              data={list.map((c) => ({
                value: c.exchange,
                label: `${c.name} · ${t(c.mode === 'paper' ? 'wallet.paper' : 'wallet.live')}`,
              }))}
              value={exchange}
              onChange={(v) => setChosen(v)}
              allowDeselect={false}
              data-testid="wallet-account-select"
            />
          )}
        </Group>
        {connections.data && list.length === 0 && (
          <Alert color="yellow" data-testid="wallet-no-connection">
            {t('wallet.noConnection')}{' '}
            <Anchor component={Link} to="/settings">
              {t('wallet.goSettings')}
            </Anchor>
          </Alert>
        )}
        <Paper withBorder p="sm" radius="md" data-testid="wallet-total">
          <Group justify="space-between" align="center" gap="sm">
            <Stack gap={0}>
              <Text size="sm" c="dimmed">
                {t('wallet.total.label')}
              </Text>
              <Text fw={700} size="xl" data-testid="wallet-total-value">
                {balances.isLoading || value.pending.length > 0
                  ? t('wallet.total.pending')
                  : t('wallet.total.value', { value: num.money(value.total) })}
              </Text>
              {value.unvalued.length > 0 && (
                <Text size="sm" c="orange" data-testid="wallet-unvalued">
                  {t('wallet.total.unvalued', { coins: value.unvalued.join(', ') })}
                </Text>
              )}
            </Stack>
            <Switch
              checked={hideZero}
              onChange={(e) => setHideZero(e.currentTarget.checked)}
              label={t('wallet.hideZero')}
              data-testid="wallet-hide-zero"
            />
          </Group>
        </Paper>
        <TextInput
          placeholder={t('wallet.search')}
          aria-label={t('wallet.search')}
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          data-testid="wallet-search"
        />
        {genError && (
          <Text c="red" size="sm" role="alert">
            {genError}
          </Text>
        )}
        {balances.isLoading ? (
          <Text c="dimmed" data-testid="wallet-loading">
            {t('wallet.loading')}
          </Text>
        ) : (
          <Stack gap="xs" data-testid="wallet-rows">
            {rows.map((symbol) => (
              <CoinRow
                key={symbol}
                symbol={symbol}
                balance={balances.data?.balances[symbol] ?? 0}
                value={value.values[symbol]}
                address={addresses.data?.[symbol]}
                simulated={paper || !!addresses.data?.[symbol]?.startsWith(PAPER_ADDRESS_PREFIX)}
                loading={addresses.isLoading}
                generating={generating.has(symbol)}
                onGenerate={() => onGenerate(symbol)}
                onWithdraw={() => setWithdrawOf(symbol)}
              />
            ))}
            {rows.length === 0 && hiddenZero > 0 && (
              <Text c="dimmed" data-testid="wallet-all-zero">
                {t('wallet.allZero')}
              </Text>
            )}
            {rows.length > 0 && hiddenZero > 0 && (
              <Text c="dimmed" size="sm" data-testid="wallet-zero-hidden">
                {t('wallet.zeroHidden', { count: hiddenZero })}
              </Text>
            )}
            {sorted.length === 0 && <Text c="dimmed">{t('wallet.noMatch')}</Text>}
          </Stack>
        )}
        <DerivativesPanel data={derivatives.data} />
      </Stack>
      <Modal
        opened={resetOpen}
        onClose={() => !reset.isPending && setResetOpen(false)}
        title={t('wallet.reset.title', { name: nameOf(exchange) })}
        centered
      >
        <Stack gap="sm" data-testid="wallet-reset-dialog">
          <Text size="sm">{t('wallet.reset.text', { usdt: seed })}</Text>
          <Group justify="flex-end">
            <Button
              variant="default"
              onClick={() => setResetOpen(false)}
              disabled={reset.isPending}
              data-testid="wallet-reset-cancel"
            >
              {t('wallet.reset.cancel')}
            </Button>
            <Button
              color="orange"
              loading={reset.isPending}
              onClick={() => void onReset()}
              data-testid="wallet-reset-confirm"
            >
              {t('wallet.reset.confirm')}
            </Button>
          </Group>
        </Stack>
      </Modal>
      <Modal
        opened={!!withdrawOf}
        onClose={() => setWithdrawOf(null)}
        title={t('wallet.withdrawTitle', { symbol: withdrawOf ?? '' })}
        centered
      >
        <Stack gap="sm" data-testid="wallet-withdraw-dialog">
          <Text size="sm">{t('wallet.withdrawText')}</Text>
          {balances.data?.mode === 'paper' && (
            <Text size="sm" c="dimmed">
              {t('wallet.withdrawPaper')}
            </Text>
          )}
          <Group justify="flex-end">
            {exchange && EXCHANGE_WEBSITES[exchange] && (
              <Button
                component="a"
                href={EXCHANGE_WEBSITES[exchange]}
                target="_blank"
                rel="noopener noreferrer"
                data-testid="wallet-withdraw-link"
              >
                {t('wallet.withdrawOn', { name: nameOf(exchange) })}
              </Button>
            )}
            <Button variant="default" onClick={() => setWithdrawOf(null)}>
              {t('common.close')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Container>
  );
}
