import { act, fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { lazy } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deferred } from './Deferred';
import { AFTER_LOAD_MS, forgetInteractionForTests } from './wanted';

/** A lazy part whose chunk arrives when the test says so; `asked` counts the requests for it. */
function controlledPart() {
  let arrive!: () => void;
  const loaded = new Promise<void>((resolve) => (arrive = resolve));
  const asked = vi.fn();
  const Part = lazy(async () => {
    asked();
    await loaded;
    return { default: ({ opened }: { opened: boolean }) => <div>part {opened ? 'open' : 'closed'}</div> };
  });
  return { Part, asked, arrive: () => act(async () => arrive()) };
}

function renderDeferred({ Part }: { Part: ReturnType<typeof controlledPart>['Part'] }) {
  return render(
    <Deferred fallback={(wake) => <button onClick={wake}>stand-in</button>}>
      {(woken) => <Part opened={woken} />}
    </Deferred>,
  );
}

/** A few macrotasks: what an after-paint timer or a resolved chunk would need to show up. */
const settle = () => act(() => new Promise((r) => setTimeout(r, 20)));

describe('Deferred', () => {
  beforeEach(() => forgetInteractionForTests());
  afterEach(() => vi.useRealTimers());

  it('asks for nothing during the first render nor after it while nobody interacts', async () => {
    const part = controlledPart();
    renderDeferred(part);
    await settle();
    expect(part.asked).not.toHaveBeenCalled();
    expect(screen.getByText('stand-in')).toBeTruthy();
  });

  it("asks for the part at the visitor's first interaction, shows it closed when it arrives", async () => {
    const user = userEvent.setup();
    const part = controlledPart();
    renderDeferred(part);
    await user.keyboard('{Shift}');
    await settle();
    expect(part.asked).toHaveBeenCalledTimes(1);
    // Still the stand-in while the chunk is on the way.
    expect(screen.getByText('stand-in')).toBeTruthy();
    await part.arrive();
    expect(await screen.findByText('part closed')).toBeTruthy();
    expect(screen.queryByText('stand-in')).toBeNull();
  });

  it('asks for the part once the loaded page has been quiet AFTER_LOAD_MS, without an interaction', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'requestIdleCallback', 'cancelIdleCallback'] });
    const part = controlledPart();
    renderDeferred(part);
    await act(() => vi.advanceTimersByTimeAsync(AFTER_LOAD_MS - 100));
    expect(part.asked).not.toHaveBeenCalled();
    // The load-plus-quiet delay, then the next idle moment (at most 2 s later).
    await act(() => vi.advanceTimersByTimeAsync(2_200));
    expect(part.asked).toHaveBeenCalledTimes(1);
  });

  // A click before the part is asked for, with no pointer events (fireEvent): the click alone asks.
  it('keeps a click on the stand-in before the part is asked for: the part opens when it arrives', async () => {
    const part = controlledPart();
    renderDeferred(part);
    fireEvent.click(screen.getByText('stand-in'));
    await part.arrive();
    expect(await screen.findByText('part open')).toBeTruthy();
  });

  // A real click as the visitor's first interaction: its pointerdown asks for the part, and the stand-in
  // must stay the same node until the click that follows, which then opens the part.
  it('keeps a click whose own press asked for the part: the part opens when it arrives', async () => {
    const user = userEvent.setup();
    const part = controlledPart();
    renderDeferred(part);
    await user.click(screen.getByText('stand-in'));
    expect(part.asked).toHaveBeenCalledTimes(1);
    await part.arrive();
    expect(await screen.findByText('part open')).toBeTruthy();
  });

  it('keeps a click on the stand-in while the part loads: the part opens when it arrives', async () => {
    const user = userEvent.setup();
    const part = controlledPart();
    renderDeferred(part);
    await user.keyboard('{Shift}');
    await settle();
    expect(part.asked).toHaveBeenCalledTimes(1);
    await user.click(screen.getByText('stand-in'));
    await part.arrive();
    expect(await screen.findByText('part open')).toBeTruthy();
  });
});
