import { Alert, Anchor, Button, Group, Modal, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../shared/api/client';
import { sameAddress, useChainInfo } from '../../../shared/onchain/api';
import { balanceKeys, chainContext, useWalletBalances } from '../../../shared/onchain/hooks';
import { loadChainActions } from '../../../shared/onchain/load';
import { TxSteps, useTxSteps } from '../../../shared/onchain/TxSteps';
import { isLive } from '../../../shared/onchain/types';
import { connectErrorText, WalletButton, WrongNetworkAlert } from '../../../shared/onchain/WalletConnect';
import { browserWallet, useBrowserWallet } from '../../../shared/onchain/wallet';
import { useSession } from '../../../shared/session/session';
import { useFaucet } from '../api/faucet';
import {
  estimatedTokens,
  first120,
  formatAmount,
  isNetworkError,
  isValidAmount,
  TOKEN_SALE,
  type PaymentMethod,
} from '../config';

/**
 * Token purchase modal (spec part 1 §2 "Token purchase modal", §4, §5, §8): fixed estimated price,
 * USDT or USDC, amount, connect/disconnect a browser wallet, the chain check with a switch button,
 * Buy Now (approve → wait → buy → wait, each step shown with its transaction), Withdraw USDT for the
 * sale owner's wallet, "Get test USDT" on the embedded chain, and the DEX swap link.
 *
 * The content mounts only while the modal is open, so the chain settings are read then; viem and the
 * ABIs are loaded on the first on-chain action.
 */
export function BuyTokenModal({
  opened,
  onClose,
  ownerAddress,
}: {
  opened: boolean;
  onClose: () => void;
  /** Overrides the sale owner GET /api/chain gives (tests). */
  ownerAddress?: string | null;
}) {
  const { t } = useTranslation();
  return (
    <Modal opened={opened} onClose={onClose} title={t('token.title')} centered data-testid="buy-token-modal">
      {opened && <BuyTokenPanel ownerAddress={ownerAddress} />}
    </Modal>
  );
}

function BuyTokenPanel({ ownerAddress }: { ownerAddress?: string | null }) {
  const { t } = useTranslation();
  const { user } = useSession();
  const queryClient = useQueryClient();
  const chain = useChainInfo();
  const info = chain.data;
  const wallet = useBrowserWallet(info?.chainId);
  const balances = useWalletBalances(info, wallet);
  const faucet = useFaucet();
  const steps = useTxSteps();
  const [method, setMethod] = useState<PaymentMethod>('USDT');
  const [amount, setAmount] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [success, setSuccess] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const owner = ownerAddress !== undefined ? ownerAddress : (info?.owner ?? null);
  const isOwner = sameAddress(wallet.account, owner);
  const live = isLive(info);
  /** A failed transaction's text: the spec's provider error when the network is not reachable. */
  const failureText = async (err: unknown): Promise<string> => {
    if (isNetworkError(err)) return t('token.networkError');
    const actions = await loadChainActions().catch(() => null);
    return actions ? actions.chainErrorText(err) : errorMessage(err);
  };
  const refreshBalances = () =>
    queryClient.invalidateQueries({ queryKey: balanceKeys.wallet(wallet.account, wallet.chainId) });

  const buy = async () => {
    setSuccess(null);
    if (!isValidAmount(amount)) {
      setError(t('token.invalidAmount'));
      return;
    }
    if (!browserWallet()) {
      setError(t('onchain.metamaskNotDetected'));
      return;
    }
    const current = info ?? (await chain.refetch()).data;
    if (!isLive(current)) {
      setError(current ? t('onchain.chainOff') : t('onchain.chainUnavailable'));
      return;
    }
    setError(null);
    let account = wallet.account;
    let chainId = wallet.chainId;
    if (!account) {
      try {
        ({ account, chainId } = await wallet.connect());
      } catch (err) {
        setError(connectErrorText(t, err));
        return;
      }
    }
    // The network warning (with its switch button) is on screen while the wallet is elsewhere.
    if (chainId !== current.chainId || !account) return;
    const provider = browserWallet();
    if (!provider) return;
    setBusy(true);
    steps.start(['approve', 'buy']);
    try {
      const actions = await loadChainActions();
      const ctx = { provider, info: current, account };
      const { tokens } = await actions.buyTokens(ctx, method, amount.trim(), steps.onStep);
      setSuccess(t('token.purchaseDone', { tokens: formatAmount(tokens), symbol: TOKEN_SALE.symbol }));
      await refreshBalances();
    } catch (err) {
      steps.fail();
      setError(t('token.purchaseError', { message: first120(await failureText(err)) }));
    } finally {
      setBusy(false);
    }
  };

  const withdraw = async () => {
    setSuccess(null);
    setError(null);
    const ctx = chainContext(info, wallet);
    if (!ctx) return;
    setBusy(true);
    steps.start(['withdraw']);
    try {
      const actions = await loadChainActions();
      const { amount: taken } = await actions.withdrawSaleUsdt(ctx, steps.onStep);
      setSuccess(t('token.withdrawDone', { amount: formatAmount(taken, 6) }));
      await refreshBalances();
    } catch (err) {
      steps.fail();
      setError(t('token.withdrawError', { message: first120(await failureText(err)) }));
    } finally {
      setBusy(false);
    }
  };

  const getTestFunds = async () => {
    if (!wallet.account) return;
    setError(null);
    setSuccess(null);
    try {
      await faucet.mutateAsync(wallet.account);
      setSuccess(t('token.faucetDone'));
      await refreshBalances();
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  const parsed = isValidAmount(amount) ? Number(amount) : 0;
  const onChain = live && wallet.account !== null && !wallet.wrongChain;

  return (
    <Stack gap="sm">
      <Text size="sm" data-testid="token-price">
        {t('token.estimatedPrice', {
          price: formatAmount(TOKEN_SALE.estimatedPrice, 6),
          symbol: TOKEN_SALE.symbol,
        })}
      </Text>
      <div>
        <Text size="sm" fw={500} mb={4}>
          {t('token.paymentMethod')}
        </Text>
        <SegmentedControl
          fullWidth
          value={method}
          onChange={(v) => setMethod(v)}
          data={[...TOKEN_SALE.paymentMethods]}
          aria-label={t('token.paymentMethod')}
          disabled={busy}
        />
      </div>
      <TextInput
        label={t('token.amount', { method })}
        placeholder="100"
        inputMode="decimal"
        value={amount}
        onChange={(e) => setAmount(e.currentTarget.value)}
        disabled={busy}
        data-testid="token-amount"
      />
      <Text size="sm" c="dimmed" data-testid="token-estimate">
        {t('token.youReceive', {
          tokens: formatAmount(estimatedTokens(parsed), 6),
          symbol: TOKEN_SALE.symbol,
        })}
      </Text>
      <Group grow>
        <WalletButton wallet={wallet} onError={setError} testIdPrefix="token" />
        <Button onClick={() => void buy()} loading={busy} data-testid="token-buy">
          {t('token.buyNow')}
        </Button>
      </Group>
      <WrongNetworkAlert wallet={wallet} info={info} testIdPrefix="token" />
      {onChain && balances.error && isNetworkError(balances.error) && (
        <Text size="sm" c="red" data-testid="token-network-error">
          {t('token.networkError')}
        </Text>
      )}
      {onChain && balances.data && (
        <Text
          size="sm"
          data-testid="token-balances"
          data-token={balances.data.token}
          data-usdt={balances.data.usdt}
        >
          {t('token.balances', {
            token: formatAmount(balances.data.token),
            usdt: formatAmount(balances.data.usdt),
            usdc: formatAmount(balances.data.usdc),
          })}
        </Text>
      )}
      {info?.faucet && (
        <Stack gap={4}>
          <Text size="xs" c="dimmed">
            {t('token.faucetHint')}
          </Text>
          {user ? (
            <Button
              variant="light"
              onClick={() => void getTestFunds()}
              loading={faucet.isPending}
              disabled={!onChain || busy}
              data-testid="token-faucet"
            >
              {t('token.faucet')}
            </Button>
          ) : (
            <Text size="xs" c="dimmed" data-testid="token-faucet-login">
              {t('token.faucetLogin')}
            </Text>
          )}
        </Stack>
      )}
      {isOwner && onChain && (
        <Button
          color="red"
          variant="light"
          onClick={() => void withdraw()}
          disabled={busy}
          data-testid="token-withdraw"
        >
          {t('token.withdraw')}
        </Button>
      )}
      <TxSteps steps={steps.steps} info={info} testId="token-steps" />
      {error && (
        <Alert color="red" data-testid="token-error">
          {error}
        </Alert>
      )}
      {success && (
        <Alert color="teal" data-testid="token-success">
          {success}
        </Alert>
      )}
      <Anchor href={TOKEN_SALE.swapUrl} target="_blank" rel="noopener noreferrer" data-testid="token-swap">
        {t('token.swapLink')}
      </Anchor>
    </Stack>
  );
}
