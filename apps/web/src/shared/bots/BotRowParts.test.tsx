import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/renderApp';
import i18n from '../i18n/index';
import { BotActions, BotFiguresLine } from './BotRowParts';
import { BotsFooter } from './BotScreen';
import type { BotScreen } from './screen';

const SCREEN: BotScreen = {
  scope: 'dca',
  ns: 'grid-dca',
  ids: { prefix: 'dca', dialogIdOn: 'modal' },
};

const NOW = Date.parse('2025-01-04T04:30:00Z');

describe('bot row parts', () => {
  afterEach(() => i18n.changeLanguage('en'));

  it("shows a row's profit in USDT and as a percentage of its capital, and its runtime", async () => {
    renderApp(
      <BotFiguresLine testPrefix="dca-bot" pnl={2} capital={80} startedAt="2025-01-01T00:00:00Z" now={NOW} />,
    );
    const profit = await screen.findByTestId('dca-bot-profit');
    expect(profit.textContent).toBe('Profit: 2.00 USDT (+2.50%)');
    expect(profit.dataset.pct).toBe('2.5');
    expect(screen.getByTestId('dca-bot-runtime').textContent).toBe('Running for 3 d 4 h');
  });

  it('says a loss, a young bot and a bot without capital, in Spanish', async () => {
    await i18n.changeLanguage('es');
    renderApp(
      <>
        <BotFiguresLine
          testPrefix="a"
          pnl={-1234.5}
          capital={10000}
          startedAt="2025-01-04T02:25:00Z"
          now={NOW}
        />
        <BotFiguresLine testPrefix="b" pnl={1} capital={0} startedAt="2025-01-04T04:29:00Z" now={NOW} />
      </>,
    );
    const a = (await screen.findByTestId('a-profit')).textContent.replace(/\s/g, ' ');
    expect(a).toBe('Beneficio: -1.234,50 USDT (-12,35 %)');
    expect(screen.getByTestId('a-profit').getAttribute('style')).toContain('red');
    expect(screen.getByTestId('a-runtime').textContent).toBe('En marcha desde hace 2 h 5 min');
    expect(screen.getByTestId('b-profit').textContent).toBe('Beneficio: 1,00 USDT');
    expect(screen.getByTestId('b-runtime').textContent).toBe('En marcha desde hace 1 min');
  });

  it('puts every action of a row in one menu, each with its old test id and label, Stop last', async () => {
    const calls: string[] = [];
    const on = (name: string) => () => calls.push(name);
    renderApp(
      <div data-testid="row">
        <BotActions
          screen={SCREEN}
          symbol="ETH/USDT"
          optimistic={false}
          onStop={on('stop')}
          actions={[
            { name: 'history', label: 'Trading history', onClick: on('history') },
            { name: 'pending', label: 'Pending Orders', onClick: on('pending') },
            { name: 'relocate', label: 'Relocate', onClick: on('relocate') },
            { name: 'events', label: 'Event log', onClick: on('events') },
          ]}
        />
      </div>,
    );
    const row = await screen.findByTestId('row');
    // One button in the row; the items render only once the menu opens.
    expect(within(row).getAllByRole('button')).toHaveLength(1);
    expect(screen.queryByTestId('dca-history-btn')).toBeNull();
    const menu = within(row).getByTestId('dca-actions-btn');
    expect(menu.textContent).toContain('Actions');
    expect(menu.getAttribute('aria-label')).toBe('Actions for ETH/USDT');

    await userEvent.click(menu);
    await screen.findByTestId('dca-history-btn');
    const items = screen.getAllByRole('menuitem', { hidden: true });
    expect(items.map((i) => [i.dataset.testid, i.textContent])).toEqual([
      ['dca-history-btn', 'Trading history'],
      ['dca-pending-btn', 'Pending Orders'],
      ['dca-relocate-btn', 'Relocate'],
      ['dca-events-btn', 'Event log'],
      ['dca-stop-btn', i18n.t('bots.row.stop')],
    ]);
    for (const name of ['history', 'pending', 'relocate', 'events', 'stop']) {
      await userEvent.click(menu);
      await userEvent.click(await screen.findByTestId(`dca-${name}-btn`));
    }
    expect(calls).toEqual(['history', 'pending', 'relocate', 'events', 'stop']);
  });

  it("disables a starting (optimistic) row's menu", async () => {
    const stop = vi.fn();
    renderApp(<BotActions screen={SCREEN} symbol="X/USDT" optimistic onStop={stop} actions={[]} />);
    expect((await screen.findByTestId<HTMLButtonElement>('dca-actions-btn')).disabled).toBe(true);
  });

  it("keeps the stopped bots' realised profit in the summary when Total PnL is 0.00", async () => {
    renderApp(
      <BotsFooter
        screen={SCREEN}
        totalPnl={0}
        activeCount={0}
        realised={{ today: 1.5, week: -2.25, all: 1234.5 }}
        onHistory={() => undefined}
      />,
    );
    expect((await screen.findByTestId('dca-total-pnl')).textContent).toBe('Total PnL: 0.00 USDT');
    expect(screen.getByTestId('dca-realised-today').textContent).toBe('today 1.50 USDT');
    expect(screen.getByTestId('dca-realised-week').textContent).toBe('7 days -2.25 USDT');
    expect(screen.getByTestId('dca-realised-week').getAttribute('style')).toContain('red');
    expect(screen.getByTestId('dca-realised-all').textContent).toBe('all 1,234.50 USDT');
  });
});
