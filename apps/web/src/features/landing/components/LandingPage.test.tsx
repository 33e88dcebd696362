import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { BuyTokenContext } from '../../../shared/ui/BuyTokenContext';
import { LandingPage } from './LandingPage';

describe('LandingPage', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('shows the four marketing blocks and both banners', () => {
    renderApp(<LandingPage />);
    expect(screen.getAllByTestId(/^landing-feature-/)).toHaveLength(4);
    const text = document.body.textContent ?? '';
    for (const needle of [
      'trade-only',
      'never holds client funds',
      '5 to 10%',
      'realized net gains',
      'only in the native token',
      'rewards pool',
      'within about 15 minutes',
      '70-period moving-average',
      '10 dollars per confirmed reversal candle',
      'Binance',
      'Bybit',
    ]) {
      expect(text).toContain(needle);
    }
    expect(screen.getByTestId('landing-dev-banner').textContent).toMatch(
      /Spot, futures and bots are still in development. Staking and pools are available/,
    );
    expect(screen.getByTestId('landing-liquidity-banner').textContent).toMatch(/liquidity buffer/i);
  });

  it('opens the token modal and leads to the forum', async () => {
    const user = userEvent.setup();
    const open = vi.fn();
    renderApp(
      <BuyTokenContext.Provider value={{ open }}>
        <LandingPage />
      </BuyTokenContext.Provider>,
    );
    await user.click(screen.getByTestId('landing-buy-token'));
    expect(open).toHaveBeenCalledOnce();
    await user.click(screen.getByTestId('landing-forum'));
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/forum'));
  });

  it('is translated to Spanish', async () => {
    await i18n.changeLanguage('es');
    renderApp(<LandingPage />);
    expect(screen.getByTestId('landing-dev-banner').textContent).toMatch(/siguen en desarrollo/);
  });
});
