import { Alert, Button, Container, Stack, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { canTrade } from '../../../shared/session/access';
import { useSession } from '../../../shared/session/session';
import { TradingScreen } from '../../../shared/trading/TradingScreen';

/**
 * /spot (spec part 1 §2 "Spot screen"): the trading screen for those who may trade (the support
 * accounts, or everyone logged in with TRADING_SCREENS=all); anyone else, an anonymous visitor
 * included, sees that it is in development with Go to Pools.
 */
export function SpotPage() {
  const { t } = useTranslation();
  const { user } = useSession();
  if (canTrade(user)) return <TradingScreen market="spot" />;
  return (
    <Container size="sm" py="xl">
      <Stack gap="md" data-testid="spot-in-development">
        <Title order={1} size="h2">
          {t('spot.title')}
        </Title>
        <Alert color="yellow" variant="light" title={t('spot.devTitle')}>
          {t('spot.devBody')}
        </Alert>
        <Button component={Link} to="/earnings-pools" w="fit-content">
          {t('spot.goToPools')}
        </Button>
      </Stack>
    </Container>
  );
}
