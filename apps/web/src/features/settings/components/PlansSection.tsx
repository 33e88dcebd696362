import { PLANS, type ChainInfo } from '@bytx/contract';
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
import { planKeys, usePlans, type PlanId, type PlansResponse } from '../api/plans';

const fmtTokens = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });

/** Refused payments may carry fractions of a token: up to 6 decimals so 14,999.5 never reads 15,000. */
const fmtPaid = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 6 });

const fmtDate = (ms: number, lng: string) => {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toLocaleString(lng === 'es' ? 'es-ES' : 'en-US');
};

/**
 * Subscription plans (spec part 1 §2 "Settings", §9): Basic, Advanced, Professional with their prices in
 * USD and in tokens; paying through the browser wallet (approve the tokens → `payPlan(plan, ref)`),
 * the payment's confirmations while the server waits for them, then the active plan, its expiry and
 * the payment's transaction; payments that did not pay the plan's price are listed as refused.
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

  // After a payment, ask every 2 s until the server has seen it (pending, active, or refused).
  const lastHash = steps.steps.at(-1)?.hash;
  const seen =
    !!data &&
    (data.pending.some((p) => p.tx_hash === lastHash) ||
      data.active?.tx_hash === lastHash ||
      (data.refused ?? []).some((p) => p.tx_hash === lastHash));
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
      <Title order={2} size="h4">
        {t('settings.plans.title')}
      </Title>
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

      {data && (data.refused ?? []).length > 0 && (
        <Stack gap="xs" mt="sm" data-testid="plans-refused">
          {(data.refused ?? []).map((r) => (
            <RefusedPayment
              key={r.tx_hash}
              payment={r}
              info={info}
              nowTokens={data.plans.find((p) => p.id === r.id)?.price_tokens ?? null}
              lng={i18n.language}
            />
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

type Refused = NonNullable<PlansResponse['refused']>[number];

/**
 * A confirmed payment that did not activate its plan (issue 37: it carried fewer tokens than the plan
 * cost at its block's sale price, or 0): the plan, the tokens paid against the tokens needed and why, in
 * the user's language, with its transaction, so an underpaying user sees why no plan started.
 */
function RefusedPayment({
  payment: r,
  info,
  nowTokens,
  lng,
}: {
  payment: Refused;
  info: ChainInfo | undefined;
  /** The plan's price in tokens today, for a payment whose own block made the plan cost nothing. */
  nowTokens: number | null;
  lng: string;
}) {
  const { t } = useTranslation();
  const plan = t(`settings.plans.${r.id}`);
  const paid = fmtPaid(r.tokens ?? 0);
  const need = r.price_tokens ?? null;
  // An underpayment names both numbers; 0 tokens (a price moved so the plan cost nothing) and the
  // server's other reasons are worded apart, with today's price as what a payment needs.
  const reason =
    need !== null && need > 0
      ? t('settings.plans.refusedUnderpaid', { plan, paid, need: fmtPaid(need) })
      : (r.tokens ?? 0) === 0
        ? t('settings.plans.refusedZero', { plan })
        : t('settings.plans.refusedOther', { plan, detail: r.reason });
  return (
    <Alert color="red" data-testid="plans-refused-row" data-plan={r.id} data-hash={r.tx_hash}>
      <Group gap="xs" justify="space-between">
        <Text size="sm" fw={700} data-testid="plans-refused-title">
          {t('settings.plans.refusedTitle', { plan })}
          {r.paid_at !== undefined && ` · ${fmtDate(r.paid_at, lng)}`}
        </Text>
        <TxLink info={info} hash={r.tx_hash} testId="plans-refused-tx" />
      </Group>
      <Text size="sm" mt={4} data-testid="plans-refused-amounts">
        {need !== null && need > 0
          ? t('settings.plans.refusedAmounts', { paid, need: fmtPaid(need) })
          : t('settings.plans.refusedAmountsToday', {
              paid,
              need: nowTokens !== null ? fmtTokens(nowTokens) : '—',
            })}
      </Text>
      <Text size="sm" mt={4} data-testid="plans-refused-reason">
        {reason}
      </Text>
      <Text size="sm" mt={4} c="dimmed" data-testid="plans-refused-next">
        {nowTokens !== null
          ? t('settings.plans.refusedNext', { plan, tokens: fmtTokens(nowTokens) })
          : t('settings.plans.refusedNextNoPrice', { plan })}
      </Text>
    </Alert>
  );
}
