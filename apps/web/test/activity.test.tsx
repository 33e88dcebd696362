import { act, fireEvent, render, screen } from '@testing-library/react';
import { Activity, useState } from 'react';
import { describe, expect, it } from 'vitest';

/**
 * `<Activity>` as Mantine uses it for kept-mounted content (Tabs panels, Transition, Collapse). On the
 * shipped build it is apps/web/runtime/react.js's stand-in, with WEB_RUNTIME=react React's own: both
 * must hide a hidden subtree and keep its state when it shows again.
 */
const hidden = (el: HTMLElement) => {
  for (let n: HTMLElement | null = el; n; n = n.parentElement) if (n.style.display === 'none') return true;
  return false;
};

function Counter() {
  const [n, setN] = useState(0);
  return (
    <button data-testid="count" onClick={() => setN(n + 1)}>
      {n}
    </button>
  );
}

function Panel({ mode }: { mode: 'visible' | 'hidden' }) {
  return (
    <Activity mode={mode}>
      <Counter />
    </Activity>
  );
}

describe('Activity', () => {
  it('hides a hidden subtree and keeps its state and its DOM node until it shows again', async () => {
    const view = render(<Panel mode="visible" />);
    const button = screen.getByTestId('count');
    expect(hidden(button)).toBe(false);
    fireEvent.click(button);
    fireEvent.click(button);
    await act(async () => {});
    expect(button.textContent).toBe('2');

    view.rerender(<Panel mode="hidden" />);
    await act(async () => {});
    expect(screen.getByTestId('count')).toBe(button);
    expect(hidden(button)).toBe(true);

    view.rerender(<Panel mode="visible" />);
    await act(async () => {});
    expect(screen.getByTestId('count')).toBe(button);
    expect(hidden(button)).toBe(false);
    expect(button.textContent).toBe('2');
  });
});
