import { describe, expect, it } from 'vitest';
import { yTicks } from '../../src/backoffice/dashboard/chart.js';

describe("the dashboard chart's y-axis", () => {
  // The largest count of a day -> the ticks drawn: whole numbers, steps of 1, 2 or 5 × 10^n,
  // at most four steps, the top tick at or above the count.
  const vectors: Array<[number, number[]]> = [
    [0, [0, 1]],
    [1, [0, 1]],
    [2, [0, 1, 2]],
    [3, [0, 1, 2, 3]],
    [4, [0, 1, 2, 3, 4]],
    [5, [0, 2, 4, 6]],
    [8, [0, 2, 4, 6, 8]],
    [9, [0, 5, 10]],
    [10, [0, 5, 10]],
    [11, [0, 5, 10, 15]],
    [20, [0, 5, 10, 15, 20]],
    [21, [0, 10, 20, 30]],
    [100, [0, 50, 100]],
    [101, [0, 50, 100, 150]],
    [2500, [0, 1000, 2000, 3000]],
  ];

  it.each(vectors)('for a largest count of %i, ticks at %j', (max, expected) => {
    expect(yTicks(max)).toEqual(expected);
  });
});
