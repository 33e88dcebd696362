import { fireEvent, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import { SpotPage } from './SpotPage';

const noConnections = {
  '/api/exchanges/connections': () => json({ success: true, connections: [] }),
};

describe('SpotPage', () => {
  it('an anonymous visitor sees that Spot is in development, with Go to Pools', async () => {
    renderApp(<SpotPage />, { initialPath: '/spot' });
    expect(await screen.findByTestId('spot-in-development')).toBeTruthy();
    expect(screen.getByText('Platform in Development')).toBeTruthy();
    fireEvent.click(screen.getByText('Go to Pools'));
    expect(screen.getByTestId('location').textContent).toBe('/earnings-pools');
    expect(screen.queryByTestId('trade-screen')).toBeNull();
  });

  it('a user who may not trade sees the same', async () => {
    renderApp(<SpotPage />, {
      user: { id: 'u1', email: 'someone@example.com', isSupport: false, canTrade: false },
      responses: noConnections,
    });
    expect(await screen.findByTestId('spot-in-development')).toBeTruthy();
    expect(screen.queryByTestId('trade-screen')).toBeNull();
  });

  it('the support account, or anyone with TRADING_SCREENS=all, gets the spot trading screen', async () => {
    renderApp(<SpotPage />, {
      user: { id: 's1', email: 'support@example.com', isSupport: true },
      responses: noConnections,
    });
    const screenEl = await screen.findByTestId('trade-screen');
    expect(screenEl.dataset.market).toBe('spot');
    expect(await screen.findByTestId('trade-no-exchange')).toBeTruthy();
    expect(screen.queryByTestId('spot-in-development')).toBeNull();
  });

  it('canTrade opens it too', async () => {
    renderApp(<SpotPage />, {
      user: { id: 'u3', email: 'trader@example.com', isSupport: false, canTrade: true },
      responses: noConnections,
    });
    expect((await screen.findByTestId('trade-screen')).dataset.market).toBe('spot');
  });
});
