import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { descriptionOf, expectEveryFieldHelped, valuesOf } from '../../../test/formHelp';
import { json, renderApp } from '../../../test/renderApp';
import { DASH_SCREEN } from '../../features/classic-dca/components/screen';
import { DCA_SCREEN } from '../../features/grid-dca/components/screen';
import i18n from '../i18n/index';
import { DCA_PRESETS } from './presets';
import type { BotScreen } from './screen';
import { StartFormFields, StartFormShell, StartFormSubmit, useStartForm } from './StartForm';

const responses = {
  '/api/estado_conexion': () => json({ conexiones: { binance: true } }),
  '/api/market/pairs': () => json({ exchange: 'binance', pairs: ['BTC/USDT', 'ETH/USDT', 'ETH/BTC'] }),
  '/api/apartado_usuario': () => json({ success: true, apartado: 'Spot' }),
};

/** The shared start form as a screen draws it, with `onStart` recorded. */
function Harness({ screen: s, onStart }: { screen: BotScreen; onStart: () => void }) {
  const form = useStartForm(s, 'u1', true);
  return (
    <StartFormShell testId="form">
      <StartFormFields screen={s} form={form} />
      <StartFormSubmit screen={s} form={form} onStart={onStart} />
    </StartFormShell>
  );
}

const FIGURES = (p: string) => ['amount', 'tp', 'sep', 'os'].map((f) => `${p}-${f}`);

describe.each([
  ['Grid Bot DCA', DCA_SCREEN],
  ['classic DCA', DASH_SCREEN],
])('the shared start form of the %s', (_, s) => {
  const p = s.ids.prefix;
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('gives every field its help (what, unit, example) as its accessible description, in both languages', async () => {
    renderApp(<Harness screen={s} onStart={() => undefined} />, { responses });
    const form = await screen.findByTestId('form');
    expectEveryFieldHelped(form, /E\.g\./, 7);
    // The cryptic labels say what they are and their unit: TP and Separation in percent, # OS a count.
    expect(descriptionOf(screen.getByTestId(`${p}-tp`))).toMatch(/[Tt]ake profit, in percent/);
    expect(descriptionOf(screen.getByTestId(`${p}-sep`))).toMatch(/[Ss]eparation, in percent/);
    expect(descriptionOf(screen.getByTestId(`${p}-os`))).toMatch(/whole number from 1 to 100/);
    expect(descriptionOf(screen.getByTestId(`${p}-amount`))).toMatch(/USDT/);
    await i18n.changeLanguage('es');
    await waitFor(() => expect(descriptionOf(screen.getByTestId(`${p}-tp`))).toMatch(/en porcentaje/));
    expectEveryFieldHelped(form, /Ej\.:/, 7);
  });

  it('fills the four figures from a preset, shows them on its button, and marks it pressed', async () => {
    renderApp(<Harness screen={s} onStart={() => undefined} />, { responses });
    const presets = await screen.findByTestId(`${p}-presets`);
    // The spec's defaults are the balanced preset.
    expect(within(presets).getByTestId(`${p}-presets-balanced`).getAttribute('aria-pressed')).toBe('true');
    // Each button shows its name and its figures (and is named by both).
    const aggressive = within(presets).getByRole('button', { name: /^Aggressive/ });
    expect(aggressive.textContent).toBe('Aggressive50 USDT · TP 0.6 % · Sep. 0.5 % · 8 OS');
    await userEvent.click(aggressive);
    expect(valuesOf(document, FIGURES(p))).toEqual({
      [`${p}-amount`]: DCA_PRESETS.aggressive.amount,
      [`${p}-tp`]: '0.6',
      [`${p}-sep`]: '0.5',
      [`${p}-os`]: '8',
    });
    expect(aggressive.getAttribute('aria-pressed')).toBe('true');
    await userEvent.click(within(presets).getByRole('button', { name: /^Conservative/ }));
    expect(valuesOf(document, FIGURES(p))).toEqual({
      [`${p}-amount`]: '20',
      [`${p}-tp`]: '1.5',
      [`${p}-sep`]: '2',
      [`${p}-os`]: '5',
    });
    // An edit by hand leaves no preset pressed.
    fireEvent.input(screen.getByTestId(`${p}-os`), { target: { value: '6' } });
    expect(presets.querySelectorAll('[aria-pressed="true"]')).toHaveLength(0);
  });

  it('works from the keyboard: Tab in order, arrows and Enter pick a pair, Enter in a field starts once', async () => {
    const onStart = vi.fn();
    renderApp(<Harness screen={s} onStart={onStart} />, { responses });
    const exchange = await screen.findByTestId(`${p}-exchange`);
    await waitFor(() =>
      expect(exchange.querySelector('option[value="binance"]')?.textContent).toContain('✅'),
    );
    exchange.focus();
    fireEvent.change(exchange, { target: { value: 'binance' } });
    await userEvent.tab();
    expect(document.activeElement).toBe(screen.getByTestId(`${p}-market-type`));
    await userEvent.tab();
    const pair = screen.getByTestId(`${p}-pair`);
    expect(document.activeElement).toBe(pair);
    expect(pair.getAttribute('role')).toBe('combobox');
    await userEvent.keyboard('eth');
    const list = await screen.findByRole('listbox');
    expect(
      within(list)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['ETH/USDT', 'ETH/BTC']);
    await userEvent.keyboard('{ArrowDown}{ArrowDown}');
    expect(pair.getAttribute('aria-activedescendant')).toBe(within(list).getAllByRole('option')[1]!.id);
    await userEvent.keyboard('{Enter}');
    expect((pair as HTMLInputElement).value).toBe('ETH/BTC');
    expect(screen.queryByRole('listbox')).toBeNull();
    // Enter that picks a pair does not start the bot.
    expect(onStart).not.toHaveBeenCalled();
    // Then the presets, then the four figures, in order.
    await userEvent.tab();
    expect(document.activeElement).toBe(screen.getByTestId(`${p}-presets-conservative`));
    await userEvent.tab();
    await userEvent.tab();
    await userEvent.tab();
    expect(document.activeElement).toBe(screen.getByTestId(`${p}-amount`));
    await userEvent.tab();
    expect(document.activeElement).toBe(screen.getByTestId(`${p}-tp`));
    await userEvent.keyboard('{Enter}');
    expect(onStart).toHaveBeenCalledTimes(1);
    await userEvent.click(screen.getByTestId(`${p}-start`));
    expect(onStart).toHaveBeenCalledTimes(2);
  });
});

describe("the start form's help on a phone and on a wide screen", () => {
  /**
   * matchMedia answering `phone` for the form's phone query (max-width: 47.99em), no other query; a spy
   * restored after each test: the web files share one window (isolate: false), and a later file
   * (ResponsiveTable's) reads the viewport through the real one.
   */
  const screenOf = (phone: boolean) =>
    vi.spyOn(window, 'matchMedia').mockImplementation(
      (q: string) =>
        ({
          media: q,
          matches: q.includes('max-width: 47.99em') ? phone : false,
          onchange: null,
          addEventListener: () => undefined,
          removeEventListener: () => undefined,
          addListener: () => undefined,
          removeListener: () => undefined,
          dispatchEvent: () => false,
        }) satisfies MediaQueryList,
    );
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("starts hidden on a phone behind one button, stays each field's description, and remembers the choice", async () => {
    screenOf(true);
    const first = renderApp(<Harness screen={DCA_SCREEN} onStart={() => undefined} />, { responses });
    const form = await screen.findByTestId('form');
    const toggle = screen.getByTestId('form-help-toggle');
    // 'auto': the page's CSS hides the help below 48em (the form's <style>); the button offers it.
    expect(form.getAttribute('data-help')).toBe('auto');
    expect(form.querySelector('style')?.textContent).toMatch(
      /max-width: 47\.99em.*data-help='auto'.*display: none/s,
    );
    expect(toggle.textContent).toBe('Show help for each field');
    expect(toggle.getAttribute('aria-pressed')).toBe('false');
    // Hidden or not, a field keeps its help as its accessible description.
    expectEveryFieldHelped(form, /E\.g\./, 7);
    await userEvent.click(toggle);
    expect(form.getAttribute('data-help')).toBe('shown');
    expect(toggle.textContent).toBe('Hide the help');
    expect(toggle.getAttribute('aria-pressed')).toBe('true');
    expect(localStorage.getItem('botFormHelp')).toBe('shown');
    // The next visit on this device shows it at once.
    first.unmount();
    renderApp(<Harness screen={DCA_SCREEN} onStart={() => undefined} />, { responses });
    expect((await screen.findByTestId('form')).getAttribute('data-help')).toBe('shown');
  });

  it('shows it on a wide screen, where the button hides it', async () => {
    screenOf(false);
    renderApp(<Harness screen={DCA_SCREEN} onStart={() => undefined} />, { responses });
    const form = await screen.findByTestId('form');
    const toggle = screen.getByTestId('form-help-toggle');
    expect(toggle.textContent).toBe('Hide the help');
    await userEvent.click(toggle);
    expect(form.getAttribute('data-help')).toBe('hidden');
    expect(form.querySelector('style')?.textContent).toMatch(/form\[data-help='hidden'\]/);
    expect(toggle.textContent).toBe('Show help for each field');
    await i18n.changeLanguage('es');
    await waitFor(() => expect(toggle.textContent).toBe('Mostrar la ayuda de cada campo'));
  });
});
