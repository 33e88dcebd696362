import {
  Alert,
  Button,
  Card,
  Container,
  Group,
  Modal,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNumbers } from '../../../shared/ui/numbers';
import { LOANS, WALLET_PROVIDERS } from '../constants';

function ConnectWalletDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const [chosen, setChosen] = useState<string | null>(null);
  const close = () => {
    setChosen(null);
    onClose();
  };
  return (
    <Modal
      opened={opened}
      onClose={close}
      title={t('loans.connect.title')}
      centered
      data-testid="loans-wallet-dialog"
    >
      <Stack gap="xs">
        {WALLET_PROVIDERS.map((name) => (
          <Button
            key={name}
            variant="default"
            justify="flex-start"
            onClick={() => setChosen(name)}
            data-testid="loans-wallet-provider"
          >
            {name}
          </Button>
        ))}
        {chosen && (
          <Alert color="yellow" data-testid="loans-wallet-notice">
            {t('loans.connect.notAvailable', { provider: chosen })}
          </Alert>
        )}
      </Stack>
    </Modal>
  );
}

function SummaryRow({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Table.Tr>
      <Table.Td>{label}</Table.Td>
      <Table.Td ta="right" fw={600} data-testid={testId}>
        {value}
      </Table.Td>
    </Table.Tr>
  );
}

/**
 * Loans and liquidity (spec part 2 §2): purely static — tabs Loans and Liquidity, a Connect Wallet
 * dialog with four providers, a borrow form with a summary of fixed display values. No calls.
 */
export function LoansLiquidityPage() {
  const { t } = useTranslation();
  const num = useNumbers();
  const pct = (v: { pct: number; decimals: number }) => num.percent(v.pct, { decimals: v.decimals });
  const [walletOpen, setWalletOpen] = useState(false);
  const [asset, setAsset] = useState<string>(LOANS.borrowAssets[0]);
  const [collateral, setCollateral] = useState<string>(LOANS.collaterals[0]);
  const [borrowAmount, setBorrowAmount] = useState('');
  const [collateralAmount, setCollateralAmount] = useState('');
  const [supplyAmount, setSupplyAmount] = useState('');
  const openWallet = () => setWalletOpen(true);

  return (
    <Container size="md" py="xl">
      <Group justify="space-between" mb="lg">
        <Title order={1} size="h2">
          {t('loans.title')}
        </Title>
        <Button onClick={openWallet} data-testid="loans-connect-wallet">
          {t('loans.connect.button')}
        </Button>
      </Group>

      {/* Said before any click (issue 40 point 7): nothing on this page borrows, supplies or connects. */}
      <Alert
        color="blue"
        variant="light"
        title={t('loans.preview.title')}
        mb="lg"
        data-testid="loans-preview"
      >
        {t('loans.preview.text')}
      </Alert>

      <Tabs defaultValue="loans" keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="loans" data-testid="loans-tab-loans">
            {t('loans.tabs.loans')}
          </Tabs.Tab>
          <Tabs.Tab value="liquidity" data-testid="loans-tab-liquidity">
            {t('loans.tabs.liquidity')}
          </Tabs.Tab>
        </Tabs.List>

        <Tabs.Panel value="loans">
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="lg">
            <Card withBorder padding="lg">
              <Stack gap="sm">
                <Title order={2} size="h4">
                  {t('loans.borrow.title')}
                </Title>
                <Select
                  label={t('loans.borrow.asset')}
                  data={[...LOANS.borrowAssets]}
                  value={asset}
                  onChange={(v) => v && setAsset(v)}
                  allowDeselect={false}
                  data-testid="loans-asset"
                />
                <TextInput
                  label={t('loans.borrow.amount')}
                  inputMode="decimal"
                  placeholder="0.00"
                  value={borrowAmount}
                  onChange={(e) => setBorrowAmount(e.currentTarget.value)}
                  rightSection={<Text size="xs">{asset}</Text>}
                  rightSectionWidth={56}
                />
                <Select
                  label={t('loans.borrow.collateral')}
                  data={[...LOANS.collaterals]}
                  value={collateral}
                  onChange={(v) => v && setCollateral(v)}
                  allowDeselect={false}
                  data-testid="loans-collateral"
                />
                <TextInput
                  label={t('loans.borrow.collateralAmount')}
                  inputMode="decimal"
                  placeholder="0.00"
                  value={collateralAmount}
                  onChange={(e) => setCollateralAmount(e.currentTarget.value)}
                  rightSection={<Text size="xs">{collateral}</Text>}
                  rightSectionWidth={56}
                />
                <Button onClick={openWallet} data-testid="loans-borrow">
                  {t('loans.borrow.submit')}
                </Button>
              </Stack>
            </Card>
            <Card withBorder padding="lg" data-testid="loans-summary">
              <Title order={2} size="h4" mb="sm">
                {t('loans.summary.title')}
              </Title>
              <Table>
                <Table.Tbody>
                  <SummaryRow
                    label={t('loans.summary.initialLtv')}
                    value={pct(LOANS.initialLtv)}
                    testId="loans-initial-ltv"
                  />
                  <SummaryRow
                    label={t('loans.summary.marginCall')}
                    value={pct(LOANS.marginCallLtv)}
                    testId="loans-margin-call"
                  />
                  <SummaryRow
                    label={t('loans.summary.liquidation')}
                    value={pct(LOANS.liquidationLtv)}
                    testId="loans-liquidation"
                  />
                  <SummaryRow
                    label={t('loans.summary.hourlyInterest')}
                    value={pct(LOANS.hourlyInterest)}
                    testId="loans-hourly"
                  />
                  <SummaryRow
                    label={t('loans.summary.annualInterest')}
                    value={pct(LOANS.annualInterest)}
                    testId="loans-annual"
                  />
                  <SummaryRow
                    label={t('loans.summary.remainingLimit')}
                    value={`${num.upTo(LOANS.remainingLimit, 0)} ${asset}`}
                    testId="loans-remaining"
                  />
                </Table.Tbody>
              </Table>
            </Card>
          </SimpleGrid>
        </Tabs.Panel>

        <Tabs.Panel value="liquidity">
          <Card withBorder padding="lg" data-testid="loans-liquidity">
            <Stack gap="sm">
              <Title order={2} size="h4">
                {t('loans.liquidity.title')}
              </Title>
              <Group grow>
                <Stack gap={0}>
                  <Text size="sm" c="dimmed">
                    {t('loans.liquidity.apy')}
                  </Text>
                  <Text size="xl" fw={700} data-testid="loans-pool-apy">
                    {pct(LOANS.poolApy)}
                  </Text>
                </Stack>
                <Stack gap={0}>
                  <Text size="sm" c="dimmed">
                    {t('loans.liquidity.size')}
                  </Text>
                  <Text size="xl" fw={700} data-testid="loans-pool-size">
                    {num.upTo(LOANS.poolSize, 0)} USDT
                  </Text>
                </Stack>
              </Group>
              <TextInput
                label={t('loans.liquidity.amount')}
                inputMode="decimal"
                placeholder="0.00"
                value={supplyAmount}
                onChange={(e) => setSupplyAmount(e.currentTarget.value)}
                rightSection={<Text size="xs">USDT</Text>}
                rightSectionWidth={56}
              />
              <Button onClick={openWallet} data-testid="loans-supply">
                {t('loans.liquidity.supply')}
              </Button>
            </Stack>
          </Card>
        </Tabs.Panel>
      </Tabs>

      <ConnectWalletDialog opened={walletOpen} onClose={() => setWalletOpen(false)} />
    </Container>
  );
}
