import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useLater } from './hooks';

describe('useLater', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs the callback after its delay while the component lives', () => {
    const fn = vi.fn();
    const { result } = renderHook(() => useLater());
    act(() => result.current(fn, 2_000));
    vi.advanceTimersByTime(1_999);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('drops every pending callback when the component unmounts (a screen left within the 2 s)', () => {
    const fn = vi.fn();
    const { result, unmount } = renderHook(() => useLater());
    act(() => {
      result.current(fn, 2_000);
      result.current(fn, 50);
    });
    unmount();
    vi.advanceTimersByTime(5_000);
    expect(fn).not.toHaveBeenCalled();
  });
});
