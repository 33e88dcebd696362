import { describe, expect, it } from 'vitest';
import { pageButtons, serverSlice, viewPages } from './pageButtons';

describe('pageButtons', () => {
  it('numbers every page in order, 1 first, up to 9 pages', () => {
    expect(pageButtons(1, 1)).toEqual([1]);
    expect(pageButtons(2, 1)).toEqual([1, 2]);
    expect(pageButtons(9, 4)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('keeps the ends and the pages around the current one beyond 9, in order with gaps', () => {
    expect(pageButtons(20, 1)).toEqual([1, 2, 3, 'gap-low', 20]);
    expect(pageButtons(20, 10)).toEqual([1, 'gap-low', 8, 9, 10, 11, 12, 'gap-high', 20]);
    expect(pageButtons(20, 20)).toEqual([1, 'gap-low', 18, 19, 20]);
  });
});

describe('screen pages over the server pages of 50', () => {
  it('maps a screen page of 10 to its server page and offset', () => {
    expect(serverSlice(1, 50)).toEqual({ page: 1, offset: 0 });
    expect(serverSlice(5, 50)).toEqual({ page: 1, offset: 40 });
    expect(serverSlice(6, 50)).toEqual({ page: 2, offset: 0 });
    expect(serverSlice(12, 50)).toEqual({ page: 3, offset: 10 });
  });
  it('counts screen pages', () => {
    expect(viewPages(0)).toBe(1);
    expect(viewPages(52)).toBe(6);
    expect(viewPages(50)).toBe(5);
  });
});
