import { Button, Center, Container, Grid, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { errorMessage } from '../../../shared/api/client';
import { useChainInfo } from '../../../shared/onchain/api';
import { useBrowserWallet } from '../../../shared/onchain/wallet';
import { userIdOf, useSession } from '../../../shared/session/session';
import {
  EarningsError,
  earningsKeys,
  GENERIC_MESSAGE,
  useConnectEarnings,
  useDeleteWallet,
  useEarnings,
  useEarningsHistory,
  useLinkedWallet,
  usePoolState,
} from '../api/earnings';
import { proveWallet } from '../sign';
import { ChartPanel } from './ChartPanel';
import { EarningsStats } from './EarningsStats';
import { InfoPanels } from './InfoPanels';
import { PoolPanel } from './PoolPanel';
import { StakingPanel } from './StakingPanel';
import { useSingleTab } from './useSingleTab';
import { WalletLookup, type LookupFailure } from './WalletLookup';

/** The Web Locks name this page holds while it is shown. */
export const EARNINGS_TAB_LOCK = 'bytx-earnings-pools';

/**
 * `/earnings-pools` (spec part 1 §2 "Earnings pool"): one tab at a time; the others show the notice
 * with a button home.
 */
export function EarningsPoolsPage() {
  const { t } = useTranslation();
  const lock = useSingleTab(EARNINGS_TAB_LOCK);
  if (lock === 'taken') {
    return (
      <Container size="sm" py="xl">
        <Paper withBorder p="lg" radius="md" data-testid="earnings-tab-notice">
          <Title order={1} size="h3">
            {t('earnings.title')}
          </Title>
          <Text mt="sm">{t('earnings.tab.notice')}</Text>
          <Button component={Link} to="/" mt="md" data-testid="earnings-tab-home">
            {t('earnings.tab.home')}
          </Button>
        </Paper>
      </Container>
    );
  }
  if (lock === 'pending') {
    return (
      <Center py="xl" data-testid="earnings-tab-checking">
        <Loader size="sm" aria-label={t('earnings.tab.checking')} />
      </Center>
    );
  }
  return <EarningsPools />;
}

/**
 * The page itself: wallet lookup (POST /api/earnings, again every 10 s once connected), delete wallet,
 * stats, pool state (every 10 min) with the APY table, the chart, staking through the browser wallet,
 * links, how to start and security notes.
 */
function EarningsPools() {
  const { t } = useTranslation();
  const { user } = useSession();
  const uid = userIdOf(user);
  const queryClient = useQueryClient();
  const chain = useChainInfo();
  const wallet = useBrowserWallet(chain.data?.chainId);
  const linked = useLinkedWallet();
  const [address, setAddress] = useState<string | null>(null);
  const [failure, setFailure] = useState<LookupFailure | null>(null);
  const earnings = useEarnings(address);
  const connect = useConnectEarnings();
  const remove = useDeleteWallet();
  const pool = usePoolState();
  const history = useEarningsHistory();

  // The wallet linked to the account (a reload, another device) is consulted at once.
  const linkedAddress = linked.data?.address ?? null;
  useEffect(() => {
    if (linkedAddress) setAddress((a) => a ?? linkedAddress);
  }, [linkedAddress]);

  // A failed repeat is only logged (spec §8: "Other failures are only logged"); the last figures stay.
  useEffect(() => {
    if (earnings.error) console.error('earnings refresh failed:', earnings.error.message);
  }, [earnings.error, earnings.errorUpdatedAt]);

  const consult = async (candidate: string, force: boolean) => {
    try {
      let res;
      try {
        res = await connect.mutateAsync({ address: candidate, force });
      } catch (err) {
        // A new address is linked only with its wallet's signature (issue 37): sign, then ask again.
        if (!(err instanceof EarningsError) || err.code !== 'signature_required') throw err;
        const proof = await proveWallet(candidate, (key, vars) => t(key, vars ?? {}));
        res = await connect.mutateAsync({ address: candidate, force, proof });
      }
      queryClient.setQueryData(earningsKeys.earnings(uid, candidate), res);
      setFailure(null);
      setAddress(candidate);
      queryClient.setQueryData(earningsKeys.wallet(uid), { success: true, address: candidate });
      void history.refetch();
    } catch (err) {
      setFailure(
        err instanceof EarningsError
          ? { message: err.message, canSwitch: err.canSwitch, address: candidate }
          : { message: GENERIC_MESSAGE, canSwitch: false, address: candidate },
      );
    }
  };

  const deleteWallet = async () => {
    try {
      await remove.mutateAsync();
      queryClient.removeQueries({ queryKey: ['earnings', 'stats', uid] });
      setAddress(null);
      queryClient.setQueryData(earningsKeys.wallet(uid), { success: true, address: null });
      notifications.show({ message: t('earnings.lookup.deleted'), autoClose: 3000 });
    } catch (err) {
      console.error('delete_wallet failed:', errorMessage(err));
    }
  };

  const connected = address !== null && earnings.data !== undefined;

  return (
    <Container size="lg" py="md" data-testid="earnings-page">
      <Title order={1} size="h2">
        {t('earnings.title')}
      </Title>
      <Text c="dimmed" size="sm" mt={4}>
        {t('earnings.intro')}
      </Text>
      <Grid mt="md" gap="md">
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Stack gap="md">
            <WalletLookup
              key={address ?? ''}
              consultedAddress={address}
              connectedAddress={connected ? address : null}
              wallet={wallet}
              consulting={connect.isPending}
              deleting={remove.isPending}
              failure={failure}
              onConsult={(a, force) => void consult(a, force)}
              onDelete={() => void deleteWallet()}
              onCloseFailure={() => setFailure(null)}
            />
            {connected && earnings.data && (
              <EarningsStats data={earnings.data} updatedAt={earnings.dataUpdatedAt} />
            )}
            <StakingPanel
              info={chain.data}
              wallet={wallet}
              consulted={connected ? address : null}
              onConfirmed={() => {
                if (address) void earnings.refetch();
              }}
            />
            <ChartPanel points={history.data?.points ?? []} loading={history.isLoading} />
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <PoolPanel pool={pool.data} />
        </Grid.Col>
      </Grid>
      <Stack mt="md">
        <InfoPanels info={chain.data} />
      </Stack>
    </Container>
  );
}
