import { useTranslation } from 'react-i18next';
import { useBuyTokenModal } from '../../../shared/ui/BuyTokenContext';
import {
  PlainAlert,
  PlainButton,
  PlainCard,
  PlainContainer,
  PlainGrid12,
  PlainGroup,
  PlainStack,
  PlainText,
  PlainTitle,
} from '../../../shared/ui/plain';

const FEATURES = ['keys', 'fee', 'subscriptions', 'strategy'] as const;

/**
 * Landing page (spec part 1 §1 and §2): hero, four feature blocks with the marketing points, the
 * in-development banner, the liquidity-buffer advice banner, the token purchase button and a forum button.
 * Drawn with shared/ui/plain.tsx (Mantine's markup without its runtime): it is the first page.
 */
export function LandingPage() {
  const { t } = useTranslation();
  const buyToken = useBuyTokenModal();
  return (
    <PlainContainer>
      <PlainStack gap="xl">
        <PlainStack gap="sm" align="center" style={{ textAlign: 'center' }} data-testid="landing-hero">
          <PlainTitle order={1}>{t('landing.hero.title')}</PlainTitle>
          <PlainText size="lg" c="dimmed" style={{ maxWidth: 'calc(45rem * var(--mantine-scale))' }}>
            {t('landing.hero.subtitle')}
          </PlainText>
          <PlainGroup justify="center" style={{ marginTop: 'var(--mantine-spacing-sm)' }}>
            <PlainButton size="md" onClick={buyToken.open} data-testid="landing-buy-token">
              {t('landing.buyToken')}
            </PlainButton>
            <PlainButton size="md" variant="default" to="/forum" data-testid="landing-forum">
              {t('landing.forum')}
            </PlainButton>
          </PlainGroup>
        </PlainStack>

        <PlainAlert color="yellow" title={t('landing.devBanner.title')} data-testid="landing-dev-banner">
          {t('landing.devBanner.body')}
        </PlainAlert>

        <PlainGrid12>
          {FEATURES.map((key) => (
            <PlainCard key={key} data-testid={`landing-feature-${key}`}>
              <PlainTitle order={2} size="h4" style={{ marginBottom: 'var(--mantine-spacing-xs)' }}>
                {t(`landing.features.${key}.title`)}
              </PlainTitle>
              <PlainText size="sm">{t(`landing.features.${key}.body`)}</PlainText>
            </PlainCard>
          ))}
        </PlainGrid12>

        <PlainAlert color="blue" title={t('landing.liquidity.title')} data-testid="landing-liquidity-banner">
          {t('landing.liquidity.body')}
        </PlainAlert>
      </PlainStack>
    </PlainContainer>
  );
}
