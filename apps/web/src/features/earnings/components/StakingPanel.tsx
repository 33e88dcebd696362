import { Alert, Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../shared/api/client';
import { sameAddress, shortAddress } from '../../../shared/onchain/api';
import { balanceKeys, chainContext, useWalletBalances } from '../../../shared/onchain/hooks';
import { loadChainActions, type ChainActions } from '../../../shared/onchain/load';
import { TxSteps, useTxSteps, type TxStepKey } from '../../../shared/onchain/TxSteps';
import { isLive, type ChainInfo } from '../../../shared/onchain/types';
import { WalletButton, WrongNetworkAlert } from '../../../shared/onchain/WalletConnect';
import type { BrowserWallet } from '../../../shared/onchain/wallet';
import { useBuyTokenModal } from '../../../shared/ui/BuyTokenContext';
import { fmtTokens } from './format';

const isAmount = (v: string) => /^\d+(\.\d{1,18})?$|^\.\d{1,18}$/.test(v.trim()) && Number(v) > 0;

type Action = 'stake' | 'unstake' | 'claim';

/**
 * Staking through the browser wallet: approve → stake, unstake, claim; each step shown with its
 * transaction. After a confirmed transaction the earnings figures are asked again at once.
 */
export function StakingPanel({
  info,
  wallet,
  consulted,
  onConfirmed,
}: {
  info: ChainInfo | undefined;
  wallet: BrowserWallet;
  consulted: string | null;
  onConfirmed: () => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const buyToken = useBuyTokenModal();
  const balances = useWalletBalances(info, wallet);
  const steps = useTxSteps();
  const [amount, setAmount] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState<Action | null>(null);

  if (!isLive(info)) return null;
  const ctx = chainContext(info, wallet);

  const act = async (action: Action) => {
    setError(null);
    setDone(null);
    if (action !== 'claim' && !isAmount(amount)) {
      setError(t('earnings.staking.invalidAmount'));
      return;
    }
    if (!ctx) return;
    const keys: TxStepKey[] = action === 'stake' ? ['approve', 'stake'] : [action];
    setBusy(action);
    steps.start(keys);
    let actions: ChainActions | null = null;
    try {
      actions = await loadChainActions();
      if (action === 'stake') await actions.stakeTokens(ctx, amount.trim(), steps.onStep);
      else if (action === 'unstake') await actions.unstakeTokens(ctx, amount.trim(), steps.onStep);
      else await actions.claimRewards(ctx, steps.onStep);
      setDone(t('earnings.staking.done'));
      onConfirmed();
      await queryClient.invalidateQueries({ queryKey: balanceKeys.wallet(wallet.account, wallet.chainId) });
    } catch (err) {
      steps.fail();
      const message = actions ? actions.chainErrorText(err) : errorMessage(err);
      setError(t('earnings.staking.error', { message: message.slice(0, 120) }));
    } finally {
      setBusy(null);
    }
  };

  return (
    <Paper withBorder p="md" radius="md" data-testid="earnings-staking">
      <Title order={2} size="h4" mb="xs">
        {t('earnings.staking.title')}
      </Title>
      <Stack gap="xs">
        <Group>
          <WalletButton wallet={wallet} onError={setError} testIdPrefix="earnings-wallet" />
          <Button variant="light" onClick={buyToken.open} data-testid="earnings-buy-token">
            {t('earnings.staking.buy')}
          </Button>
        </Group>
        <WrongNetworkAlert wallet={wallet} info={info} testIdPrefix="earnings-wallet" />
        {ctx && balances.data && (
          <Text size="sm" data-testid="earnings-wallet-balance" data-amount={balances.data.token}>
            {t('earnings.staking.walletBalance', { amount: fmtTokens(balances.data.token) })}
          </Text>
        )}
        {ctx && consulted && !sameAddress(consulted, wallet.account) && (
          <Alert color="yellow" data-testid="earnings-wallet-mismatch">
            {t('earnings.staking.mismatch', {
              wallet: shortAddress(wallet.account ?? ''),
              consulted: shortAddress(consulted),
            })}
          </Alert>
        )}
        <Group align="flex-end" gap="xs">
          <TextInput
            style={{ flex: 1, minWidth: 160 }}
            label={t('earnings.staking.amount')}
            placeholder="1000"
            inputMode="decimal"
            value={amount}
            onChange={(e) => setAmount(e.currentTarget.value)}
            disabled={busy !== null}
            data-testid="earnings-stake-amount"
          />
          <Button
            onClick={() => void act('stake')}
            loading={busy === 'stake'}
            disabled={!ctx || (busy !== null && busy !== 'stake')}
            data-testid="earnings-stake"
          >
            {t('earnings.staking.stake')}
          </Button>
          <Button
            variant="default"
            onClick={() => void act('unstake')}
            loading={busy === 'unstake'}
            disabled={!ctx || (busy !== null && busy !== 'unstake')}
            data-testid="earnings-unstake"
          >
            {t('earnings.staking.unstake')}
          </Button>
          <Button
            variant="light"
            onClick={() => void act('claim')}
            loading={busy === 'claim'}
            disabled={!ctx || (busy !== null && busy !== 'claim')}
            data-testid="earnings-claim"
          >
            {t('earnings.staking.claim')}
          </Button>
        </Group>
        <TxSteps steps={steps.steps} info={info} testId="earnings-steps" />
        {error && (
          <Alert color="red" data-testid="earnings-staking-error">
            {error}
          </Alert>
        )}
        {done && (
          <Alert color="teal" data-testid="earnings-staking-done">
            {done}
          </Alert>
        )}
      </Stack>
    </Paper>
  );
}
