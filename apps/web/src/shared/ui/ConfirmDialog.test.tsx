import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../test/renderApp';
import i18n from '../i18n/index';
import { useConfirm, type ConfirmOptions } from './ConfirmDialog';

/** A button that asks, and what the answer was. */
function Asker({ options }: { options?: ConfirmOptions }) {
  const [confirm, dialog] = useConfirm();
  const [answer, setAnswer] = useState('none');
  return (
    <>
      <button
        data-testid="ask"
        onClick={() => void confirm('Delete this record?', options).then((ok) => setAnswer(String(ok)))}
      >
        ask
      </button>
      <div data-testid="answer">{answer}</div>
      {dialog}
    </>
  );
}

const answer = () => screen.getByTestId('answer').textContent;
const ask = async () => {
  await userEvent.click(screen.getByTestId('ask'));
  return screen.findByTestId('confirm-dialog-ok');
};

describe('useConfirm', () => {
  afterEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('asks in the page with the focus on the confirm button; Enter confirms', async () => {
    await i18n.changeLanguage('en');
    renderApp(<Asker />);
    const ok = await ask();
    expect(screen.getByTestId('confirm-dialog-text').textContent).toBe('Delete this record?');
    expect(ok.textContent).toBe('Confirm');
    expect(screen.getByTestId('confirm-dialog-cancel').textContent).toBe('Cancel');
    await waitFor(() => expect(document.activeElement).toBe(ok));
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(answer()).toBe('true'));
  });

  it('Escape and Cancel cancel', async () => {
    renderApp(<Asker />);
    const ok = await ask();
    await waitFor(() => expect(document.activeElement).toBe(ok));
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(answer()).toBe('false'));
    await ask();
    act(() => screen.getByTestId('ask').blur());
    await userEvent.click(screen.getByTestId('confirm-dialog-cancel'));
    await waitFor(() => expect(answer()).toBe('false'));
  });

  it("speaks the user's language, and an alert has one button", async () => {
    await i18n.changeLanguage('es');
    renderApp(<Asker options={{ alert: true }} />);
    const ok = await ask();
    expect(ok.textContent).toBe('Cerrar');
    expect(screen.queryByTestId('confirm-dialog-cancel')).toBeNull();
    await userEvent.click(ok);
    await waitFor(() => expect(answer()).toBe('true'));
  });

  it('names the confirm button and its title when told, in Spanish too', async () => {
    await i18n.changeLanguage('es');
    renderApp(<Asker options={{ title: 'Borrar', confirmLabel: 'Borrar', danger: true }} />);
    const ok = await ask();
    expect(ok.textContent).toBe('Borrar');
    expect(screen.getByTestId('confirm-dialog-cancel').textContent).toBe('Cancelar');
    await userEvent.click(ok);
    await waitFor(() => expect(answer()).toBe('true'));
  });
});
