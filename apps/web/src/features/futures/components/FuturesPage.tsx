import { Alert, Button, Container, Stack, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { canTrade } from '../../../shared/session/access';
import { useSession } from '../../../shared/session/session';
import { TradingScreen } from '../../../shared/trading/TradingScreen';
import { renderFuturesExtras } from './FuturesExtras';

/** What everyone but the support accounts sees (the spec: 'Platform in Development', Go to Pools). */
function FuturesInDevelopment() {
  const { t } = useTranslation();
  return (
    <Container size="sm" py="xl">
      <Stack gap="md" data-testid="futures-in-development">
        <Title order={1} size="h2">
          {t('futures.title')}
        </Title>
        <Alert color="yellow" variant="light" title={t('futures.devTitle')}>
          {t('futures.devBody')}
        </Alert>
        <Button component={Link} to="/earnings-pools" w="fit-content">
          {t('futures.goToPools')}
        </Button>
      </Stack>
    </Container>
  );
}

/**
 * `/futuros`: the trading screen on swap markets (Long/Short, reduce-only) with the leverage control,
 * the funding countdown and the position panel under the order panel — for the support accounts, or
 * everyone with TRADING_SCREENS=all; the others see that it is in development.
 */
export function FuturesPage() {
  const { user } = useSession();
  if (!canTrade(user)) return <FuturesInDevelopment />;
  return <TradingScreen market="swap" renderExtras={renderFuturesExtras} />;
}
