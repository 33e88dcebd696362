import { Anchor, List, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { explorerAddressUrl } from '../../../shared/onchain/api';
import type { ChainInfo } from '../../../shared/onchain/types';

const UNISWAP = 'https://app.uniswap.org/swap?chain=arbitrum';
const CAMELOT = 'https://app.camelot.exchange/';

/** The two DEX links and the explorer link (spec part 1 §2), the how-to-start list and the security notes. */
export function InfoPanels({ info }: { info: ChainInfo | undefined }) {
  const { t } = useTranslation();
  const token = info?.mode === 'rpc' ? info.addresses?.token : undefined;
  const explorer = info?.addresses ? explorerAddressUrl(info, info.addresses.token, 'token') : null;
  const uniswap = token ? `${UNISWAP}&outputCurrency=${token}` : UNISWAP;

  return (
    <SimpleGrid cols={{ base: 1, md: 3 }}>
      <Paper withBorder p="md" radius="md" data-testid="earnings-links">
        <Title order={2} size="h5" mb="xs">
          {t('earnings.links.title')}
        </Title>
        <Stack gap={6}>
          <Anchor href={uniswap} target="_blank" rel="noopener noreferrer" data-testid="earnings-dex-uniswap">
            {t('earnings.links.uniswap')}
          </Anchor>
          <Anchor href={CAMELOT} target="_blank" rel="noopener noreferrer" data-testid="earnings-dex-camelot">
            {t('earnings.links.camelot')}
          </Anchor>
          {explorer ? (
            <Anchor href={explorer} target="_blank" rel="noopener noreferrer" data-testid="earnings-explorer">
              {t('earnings.links.explorer')}
            </Anchor>
          ) : (
            <Text size="xs" c="dimmed" data-testid="earnings-local-chain">
              {t('earnings.links.localChain')}
            </Text>
          )}
        </Stack>
      </Paper>
      <Paper withBorder p="md" radius="md" data-testid="earnings-howto">
        <Title order={2} size="h5" mb="xs">
          {t('earnings.howTo.title')}
        </Title>
        <List type="ordered" size="sm" spacing={4}>
          {(['s1', 's2', 's3', 's4', 's5'] as const).map((k) => (
            <List.Item key={k}>{t(`earnings.howTo.${k}`)}</List.Item>
          ))}
        </List>
      </Paper>
      <Paper withBorder p="md" radius="md" data-testid="earnings-security">
        <Title order={2} size="h5" mb="xs">
          {t('earnings.security.title')}
        </Title>
        <List size="sm" spacing={4}>
          {(['n1', 'n2', 'n3', 'n4'] as const).map((k) => (
            <List.Item key={k}>{t(`earnings.security.${k}`)}</List.Item>
          ))}
        </List>
      </Paper>
    </SimpleGrid>
  );
}
