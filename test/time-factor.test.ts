/**
 * The suite's one time factor (helpers/time.ts): set from the machine's load when not given, the
 * same in every file of a run.
 */
import { describe, expect, it } from 'vitest';
import { automaticFactor, budget, timeFactor } from './helpers/time.js';

describe('the time factor made from the load as a run starts', () => {
  it.each([
    [0, 2, 2],
    [1, 2, 3],
    [2, 2, 4],
    [10, 2, 12],
    [0.5, 2, 2.5],
    [0.33, 2, 2.4],
    [3, 4, 3.5],
    [-1, 2, 2],
    [2, 0, 6],
  ])('a load of %s on %s cores gives %s', (load, cores, factor) => {
    expect(automaticFactor(load, cores)).toBe(factor);
  });

  it('the run has one factor, in the environment its workers inherited, and budgets scale by it', () => {
    expect(process.env.TEST_TIME_FACTOR).toBe(String(timeFactor));
    expect(budget(1_000)).toBe(Math.ceil(1_000 * timeFactor));
  });
});
