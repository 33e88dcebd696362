import { describe, expect, it } from 'vitest';
import { pageButtons } from './pageButtons';

describe('pageButtons', () => {
  it('numbers every page, highest first, up to 9 pages', () => {
    expect(pageButtons(1, 1)).toEqual([1]);
    expect(pageButtons(3, 1)).toEqual([3, 2, 1]);
    expect(pageButtons(9, 4)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
  });

  it('keeps the ends and the pages around the current one beyond 9, descending with gaps', () => {
    expect(pageButtons(20, 1)).toEqual([20, 'gap-high', 3, 2, 1]);
    expect(pageButtons(20, 10)).toEqual([20, 'gap-high', 12, 11, 10, 9, 8, 'gap-low', 1]);
    expect(pageButtons(20, 20)).toEqual([20, 19, 18, 'gap-high', 1]);
  });
});
