/**
 * The suite's order (helpers/sequencer.ts): the files that take tens of seconds first, each
 * project's files together, Vitest's own order kept within each group.
 */

import { describe, expect, it } from 'vitest';
import type { TestSpecification } from 'vitest/node';
import { SlowFirstSequencer } from './helpers/sequencer.js';

/** A file of a project, as Vitest hands it to a sequencer, of this size on disk. */
function file(project: string, path: string, size: number) {
  return {
    moduleId: `/repo/${path}`,
    project: {
      name: project,
      config: { sequence: { groupOrder: 0 }, isolate: project === 'isolated' },
    },
    size,
  };
}

describe('the order the suite runs its files in', () => {
  it('puts the end-to-end, browser and every-migration files first, each project together, the largest first within each group, where no timings are known', async () => {
    const files = [
      file('shared', 'test/proof/merkle.test.ts', 9_000),
      file('shared', 'test/e2e/first-start.test.ts', 3_000),
      file('shared', 'test/decisions/record.test.ts', 20_000),
      file('isolated', 'test/backoffice/sign-in-decoy.test.ts', 2_000),
      file('shared', 'test/cookies/banner-browser.test.ts', 5_000),
      file('shared', 'test/platform/migration-faults.test.ts', 15_000),
      file('shared', 'test/e2e/cli.test.ts', 30_000),
      file('shared', 'test/backoffice/cookie-scans.test.ts', 1_000),
    ];
    const sizes = new Map(files.map((f) => [`${f.project.name}:${f.moduleId.slice(6)}`, f.size]));
    const sequencer = new SlowFirstSequencer({
      config: { root: '/repo' },
      cache: {
        getFileTestResults: () => undefined,
        getFileStats: (key: string) => ({ size: sizes.get(key) }),
      },
    } as never);
    const sorted = await sequencer.sort(files as unknown as TestSpecification[]);
    expect(sorted.map((f) => f.moduleId.slice(6))).toEqual([
      'test/backoffice/sign-in-decoy.test.ts',
      'test/e2e/cli.test.ts',
      'test/platform/migration-faults.test.ts',
      'test/cookies/banner-browser.test.ts',
      'test/e2e/first-start.test.ts',
      'test/backoffice/cookie-scans.test.ts',
      'test/decisions/record.test.ts',
      'test/proof/merkle.test.ts',
    ]);
  });
});
