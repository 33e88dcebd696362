import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { descriptionOf, expectEveryFieldHelped } from '../../../../test/formHelp';
import { renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { ArbitrageControl } from './ArbitrageControl';

/** The control with the page's amount state; `onStart` recorded with the amount it saw. */
function Harness({ onStart }: { onStart: (amount: string) => void }) {
  const [amount, setAmount] = useState('');
  return (
    <ArbitrageControl
      status={{ success: true, activo: false, connected: true, bot: null }}
      amount={amount}
      onAmount={setAmount}
      error={null}
      busy={null}
      onStart={() => onStart(amount)}
      onStop={() => undefined}
    />
  );
}

describe('the arbitrage start form', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('explains the amount (what, unit, example) in both languages', async () => {
    renderApp(<Harness onStart={() => undefined} />);
    const form = await screen.findByTestId('arb-form');
    expectEveryFieldHelped(form, /E\.g\. 1000 → 500 USDT/, 1);
    expect(descriptionOf(screen.getByTestId('arb-amount'))).toMatch(/bought as ETH/);
    await i18n.changeLanguage('es');
    await waitFor(() => expect(descriptionOf(screen.getByTestId('arb-amount'))).toMatch(/Ej\.: 1000/));
  });

  it('fills the amount from a preset that shows it, and Enter in the amount starts once', async () => {
    const onStart = vi.fn();
    renderApp(<Harness onStart={onStart} />);
    const balanced = await screen.findByTestId('arb-presets-balanced');
    expect(balanced.textContent).toBe('Balanced500 USDT');
    await userEvent.click(balanced);
    const amount = screen.getByTestId<HTMLInputElement>('arb-amount');
    expect(amount.value).toBe('500');
    expect(balanced.getAttribute('aria-pressed')).toBe('true');
    await userEvent.click(screen.getByTestId('arb-presets-aggressive'));
    expect(amount.value).toBe('2000');
    await userEvent.tab();
    expect(document.activeElement).toBe(amount);
    await userEvent.keyboard('{Enter}');
    expect(onStart).toHaveBeenCalledTimes(1);
    expect(onStart).toHaveBeenCalledWith('2000');
  });
});
