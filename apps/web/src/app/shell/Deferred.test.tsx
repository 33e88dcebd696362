import { act, fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { lazy } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { Deferred } from './Deferred';

/** A lazy part whose chunk arrives when the test says so. */
function controlledPart() {
  let arrive!: () => void;
  const loaded = new Promise<void>((resolve) => (arrive = resolve));
  const Part = lazy(async () => {
    await loaded;
    return { default: ({ opened }: { opened: boolean }) => <div>part {opened ? 'open' : 'closed'}</div> };
  });
  return { Part, arrive: () => act(async () => arrive()) };
}

describe('Deferred', () => {
  it('shows the stand-in until the part arrives, then the part, closed', async () => {
    const { Part, arrive } = controlledPart();
    render(
      <Deferred fallback={(wake) => <button onClick={wake}>stand-in</button>}>
        {(woken) => <Part opened={woken} />}
      </Deferred>,
    );
    expect(screen.getByText('stand-in')).toBeTruthy();
    await arrive();
    expect(await screen.findByText('part closed')).toBeTruthy();
    expect(screen.queryByText('stand-in')).toBeNull();
  });

  // A click before the part is asked for (in the first render's task, as fireEvent does it) and one
  // while its chunk is on the way (the stand-in is then Suspense's fallback, a node of its own). A
  // pointer sequence spanning the swap itself would end on a detached node: user-event's awaits between
  // its events let the after-paint timer in, which a person's click right after the first paint cannot.
  it('keeps a click on the stand-in before the part is asked for: the part opens when it arrives', async () => {
    const { Part, arrive } = controlledPart();
    render(
      <Deferred fallback={(wake) => <button onClick={wake}>stand-in</button>}>
        {(woken) => <Part opened={woken} />}
      </Deferred>,
    );
    fireEvent.click(screen.getByText('stand-in'));
    await arrive();
    expect(await screen.findByText('part open')).toBeTruthy();
  });

  it('keeps a click on the stand-in while the part loads: the part opens when it arrives', async () => {
    const user = userEvent.setup();
    const { Part, arrive } = controlledPart();
    render(
      <Deferred fallback={(wake) => <button onClick={wake}>stand-in</button>}>
        {(woken) => <Part opened={woken} />}
      </Deferred>,
    );
    // The after-paint timer has run: the stand-in now is the Suspense fallback while the chunk loads.
    await act(() => new Promise((r) => setTimeout(r, 10)));
    await user.click(screen.getByText('stand-in'));
    await arrive();
    expect(await screen.findByText('part open')).toBeTruthy();
  });

  it('asks for the part after the first render, not during it, and without a click', async () => {
    const load = vi.fn(() => new Promise<{ default: () => null }>(() => undefined));
    const Part = lazy(load);
    render(
      <Deferred fallback={(wake) => <button onClick={wake}>stand-in</button>}>{() => <Part />}</Deferred>,
    );
    expect(load).not.toHaveBeenCalled();
    await vi.waitFor(() => expect(load).toHaveBeenCalledTimes(1));
    expect(screen.getByText('stand-in')).toBeTruthy();
  });
});
