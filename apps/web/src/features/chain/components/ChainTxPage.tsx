import {
  Alert,
  Badge,
  Button,
  Code,
  Container,
  Loader,
  Paper,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { CHAIN_MESSAGES } from '@bytx/contract';
import { errorMessage } from '../../../shared/api/client';
import { isTxHash, useChainTx } from '../api/tx';

/** The server's refusal in the user's language (CHAIN_MESSAGES has a catalog entry each), else as it came. */
function serverText(t: (key: string) => string, message: string): string {
  const key = (Object.keys(CHAIN_MESSAGES) as (keyof typeof CHAIN_MESSAGES)[]).find(
    (k) => CHAIN_MESSAGES[k] === message,
  );
  const path = `chain.server.${key}`;
  return key && t(path) !== path ? t(path) : message;
}

/** Wei (decimal string) as ETH, exact (no float). */
export function formatWei(wei: string): string {
  if (!/^\d+$/.test(wei)) return wei;
  const v = BigInt(wei);
  const whole = v / 10n ** 18n;
  const frac = (v % 10n ** 18n).toString().padStart(18, '0').replace(/0+$/, '');
  return `${whole}${frac ? `.${frac}` : ''} ETH`;
}

const STATUS_COLOR = { pending: 'yellow', success: 'teal', reverted: 'red' } as const;

/**
 * `/chain/tx/:hash`: the embedded chain's own "explorer" (GET /api/chain/tx/{hash}): status, block,
 * confirmations, from, to, value, the called function and the decoded events of our contracts.
 */
export function ChainTxPage() {
  const { t, i18n } = useTranslation();
  const { hash = '' } = useParams();
  const tx = useChainTx(hash);
  const d = tx.data;

  const row = (label: string, value: React.ReactNode, testId: string) => (
    <Table.Tr>
      <Table.Th w={180}>{label}</Table.Th>
      <Table.Td data-testid={testId} style={{ wordBreak: 'break-all' }}>
        {value}
      </Table.Td>
    </Table.Tr>
  );

  return (
    <Container size="md" py="md" data-testid="chain-tx-page">
      <Title order={1} size="h2">
        {t('chain.tx.title')}
      </Title>
      <Text c="dimmed" size="sm" mt={4}>
        {t('chain.tx.subtitle')}
      </Text>
      {!isTxHash(hash) ? (
        <Alert color="red" mt="md" data-testid="chain-tx-error">
          {t('chain.tx.invalid')}
        </Alert>
      ) : tx.isLoading ? (
        <Loader mt="md" />
      ) : tx.isError || !d ? (
        <Alert color="red" mt="md" data-testid="chain-tx-error">
          {serverText(t, errorMessage(tx.error))}
        </Alert>
      ) : (
        <Stack mt="md">
          <Paper withBorder radius="md">
            <Table>
              <Table.Tbody>
                {row(t('chain.tx.hash'), <Code>{d.hash}</Code>, 'chain-tx-hash')}
                {row(
                  t('chain.tx.status'),
                  <Badge color={STATUS_COLOR[d.status]}>{t(`chain.tx.statuses.${d.status}`)}</Badge>,
                  'chain-tx-status',
                )}
                {row(t('chain.tx.block'), d.block_number ?? '-', 'chain-tx-block')}
                {row(
                  t('chain.tx.time'),
                  d.timestamp === null
                    ? '-'
                    : new Date(d.timestamp).toLocaleString(i18n.language === 'es' ? 'es-ES' : 'en-US'),
                  'chain-tx-time',
                )}
                {row(t('chain.tx.confirmations'), d.confirmations, 'chain-tx-confirmations')}
                {row(t('chain.tx.from'), <Code>{d.from}</Code>, 'chain-tx-from')}
                {row(
                  t('chain.tx.to'),
                  d.to ? (
                    <>
                      <Code>{d.to}</Code> {d.to_contract && <Badge variant="light">{d.to_contract}</Badge>}
                    </>
                  ) : (
                    '-'
                  ),
                  'chain-tx-to',
                )}
                {row(t('chain.tx.value'), formatWei(d.value), 'chain-tx-value')}
                {row(t('chain.tx.function'), d.function ?? '-', 'chain-tx-function')}
              </Table.Tbody>
            </Table>
          </Paper>
          <Title order={2} size="h4">
            {t('chain.tx.events')}
          </Title>
          {d.events.length === 0 ? (
            <Text c="dimmed" size="sm">
              {t('chain.tx.noEvents')}
            </Text>
          ) : (
            <Paper withBorder radius="md">
              <Table striped data-testid="chain-tx-events">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('chain.tx.contract')}</Table.Th>
                    <Table.Th>{t('chain.tx.event')}</Table.Th>
                    <Table.Th>{t('chain.tx.arguments')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {d.events.map((e, i) => (
                    <Table.Tr key={i} data-testid="chain-tx-event" data-name={e.name ?? ''}>
                      <Table.Td>{e.contract}</Table.Td>
                      <Table.Td>{e.name ?? t('chain.tx.unknownEvent')}</Table.Td>
                      <Table.Td style={{ wordBreak: 'break-all' }}>
                        {Object.entries(e.args).map(([k, v]) => (
                          <div key={k}>
                            <Text span size="xs" c="dimmed">
                              {k}:
                            </Text>{' '}
                            <Code>{typeof v === 'string' ? v : JSON.stringify(v)}</Code>
                          </div>
                        ))}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Paper>
          )}
        </Stack>
      )}
      <Button component={Link} to="/" variant="subtle" mt="md">
        {t('chain.tx.home')}
      </Button>
    </Container>
  );
}
