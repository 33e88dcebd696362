import { PLANS } from '@bytx/contract';
import { Alert, Badge, Button, Card, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../shared/api/client';
import { useChainInfo } from '../../../shared/onchain/api';
import { balanceKeys, chainContext } from '../../../shared/onchain/hooks';
import { loadChainActions, type ChainActions } from '../../../shared/onchain/load';
import { TxLink, TxSteps, useTxSteps } from '../../../shared/onchain/TxSteps';
import { isLive } from '../../../shared/onchain/types';
import { WalletButton, WrongNetworkAlert } from '../../../shared/onchain/WalletConnect';
import { useBrowserWallet } from '../../../shared/onchain/wallet';
import { userIdOf, useSession } from '../../../shared/session/session';
import { planKeys, usePlans, type PlanId } from '../api/plans';

const fmtTokens = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });

const fmtDate = (ms: number, lng: string) => {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toLocaleString(lng === 'es' ? 'es-ES' : 'en-US');
};

/**
 * Subscription plans (spec part 1 §2 "Settings", §9): Basic, Advanced, Professional with their prices in
 * USD and in tokens; paying through the browser wallet (approve the tokens → `payPlan(plan, ref)`),
 * the payment's confirmations while the server waits for them, then the active plan, its expiry and
 * the payment's transaction.
 */
export function PlansSection() {
  const { t, i18n } = useTranslation();
  const { user } = useSession();
  const queryClient = useQueryClient();
  const chain = useChainInfo();
  const info = chain.data;
  const wallet = useBrowserWallet(info?.chainId);
  const steps = useTxSteps();
  const [watching, setWatching] = useState(false);
  const plans = usePlans(watching);
  const [paying, setPaying] = useState<PlanId | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const data = plans.data;
  const live = isLive(info);
  const ctx = chainContext(info, wallet);
  const activeId = data?.active?.id ?? null;
  const planName = (id: PlanId) => t(`settings.plans.${id}`);

  // After a payment, ask every 2 s until the server has seen it (pending, or already active).
  const lastHash = steps.steps.at(-1)?.hash;
  const seen =
    !!data && (data.pending.some((p) => p.tx_hash === lastHash) || data.active?.tx_hash === lastHash);
  useEffect(() => {
    if (watching && seen) setWatching(false);
  }, [watching, seen]);

  const pay = async (id: PlanId, plan: number) => {
    setError(null);
    setNotice(null);
    if (!ctx || !data) return;
    setPaying(id);
    steps.start(['approve', 'pay']);
    let actions: ChainActions | null = null;
    try {
      actions = await loadChainActions();
      await actions.payPlan(ctx, plan, data.payment_ref as `0x${string}`, steps.onStep);
      setNotice(t('settings.plans.paid'));
      setWatching(true);
      await queryClient.invalidateQueries({ queryKey: planKeys.plans(userIdOf(user)) });
      await queryClient.invalidateQueries({ queryKey: balanceKeys.wallet(wallet.account, wallet.chainId) });
    } catch (err) {
      steps.fail();
      const message = actions ? actions.chainErrorText(err) : errorMessage(err);
      setError(t('settings.plans.payError', { message: message.slice(0, 120) }));
    } finally {
      setPaying(null);
    }
  };

  return (
    <Paper withBorder p="md" radius="md" data-testid="settings-plans">
      <Title order={4}>{t('settings.plans.title')}</Title>
      <Text size="sm" c="dimmed" mt={4}>
        {t('settings.plans.intro')} {t('settings.plans.duration')}
      </Text>

      {data?.active && (
        <Alert color="teal" mt="sm" data-testid="plans-active" data-plan={activeId ?? ''}>
          <Group gap="xs" justify="space-between">
            <Text size="sm" data-testid="plans-active-text">
              {t('settings.plans.activeText', {
                plan: planName(data.active.id),
                date: fmtDate(data.active.expires_at, i18n.language),
              })}
            </Text>
            <TxLink info={info} hash={data.active.tx_hash} testId="plans-active-tx" />
          </Group>
        </Alert>
      )}
      {data && data.pending.length > 0 && (
        <Stack gap={4} mt="sm" data-testid="plans-pending">
          {data.pending.map((p) => (
            <Group
              key={p.tx_hash}
              gap="xs"
              data-testid="plans-pending-row"
              data-confirmations={p.confirmations}
            >
              <Text size="sm">
                {t('settings.plans.pending', {
                  plan: planName(p.id),
                  confirmations: p.confirmations,
                  required: p.required,
                })}
              </Text>
              <TxLink info={info} hash={p.tx_hash} />
            </Group>
          ))}
        </Stack>
      )}

      {live && (
        <Stack gap="xs" mt="sm">
          <Group>
            <WalletButton wallet={wallet} onError={setError} testIdPrefix="plans-wallet" />
          </Group>
          <WrongNetworkAlert wallet={wallet} info={info} testIdPrefix="plans-wallet" />
        </Stack>
      )}
      {chain.data && !live && (
        <Text size="sm" c="dimmed" mt="sm" data-testid="plans-chain-off">
          {t('settings.plans.chainOff')}
        </Text>
      )}
      {live && plans.isError && (
        <Text size="sm" c="red" mt="sm" data-testid="plans-unavailable">
          {t('settings.plans.unavailable')}
        </Text>
      )}

      <SimpleGrid cols={{ base: 1, sm: 3 }} mt="sm">
        {PLANS.map((plan) => {
          const row = data?.plans.find((p) => p.id === plan.id);
          const isActive = activeId === plan.id;
          return (
            <Card
              key={plan.id}
              withBorder
              data-testid={`plan-${plan.id}`}
              data-active={isActive ? 'true' : 'false'}
            >
              <Group justify="space-between">
                <Text fw={700}>{t(`settings.plans.${plan.id}`)}</Text>
                {isActive && (
                  <Badge color="teal" data-testid={`plan-${plan.id}-active`}>
                    {t('settings.plans.active')}
                  </Badge>
                )}
              </Group>
              <Text size="xl" fw={700} mt="xs">
                ${row?.price_usd ?? plan.priceUsd}{' '}
                <Text span size="sm" c="dimmed">
                  USD / {t('settings.plans.month')}
                </Text>
              </Text>
              {row && (
                <Text size="sm" data-testid={`plan-${plan.id}-tokens`}>
                  {t('settings.plans.tokens', { tokens: fmtTokens(row.price_tokens) })}
                </Text>
              )}
              <Badge variant="light" mt="xs">
                {t('settings.plans.paidInToken')}
              </Badge>
              <Button
                mt="sm"
                fullWidth
                onClick={() => row && void pay(plan.id, row.plan)}
                loading={paying === plan.id}
                disabled={!ctx || !row || (paying !== null && paying !== plan.id)}
                data-testid={`plan-${plan.id}-pay`}
              >
                {t('settings.plans.pay')}
              </Button>
            </Card>
          );
        })}
      </SimpleGrid>
      <TxSteps steps={steps.steps} info={info} testId="plans-steps" />
      {error && (
        <Alert color="red" mt="sm" data-testid="plans-error">
          {error}
        </Alert>
      )}
      {notice && (
        <Alert color="yellow" mt="sm" data-testid="plans-notice">
          {notice}
        </Alert>
      )}
    </Paper>
  );
}
