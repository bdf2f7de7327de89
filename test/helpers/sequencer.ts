import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that start the service's processes, a browser or a run of every migration: tens of
 * seconds each, where most files take one or two. Vitest runs the largest files first on a
 * machine it has no timings from (a clean clone in CI), and some of these are small: one that
 * starts last keeps the run going alone while the other workers stand idle.
 */
const slow =
  /\/test\/e2e\/|-browser\.test\.ts$|\/migration-faults\.test\.ts$|\/cookie-scans\.test\.ts$/;

/**
 * Vitest's order (the last run's longest first where it has timings, else the largest files
 * first), with the slow files before the rest, so that the run ends on short files.
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    // Each project's files stay together, in the order Vitest gives the projects.
    const projects = [...new Set(ordered.map((file) => file.project.name))];
    const rank = (file: TestSpecification) =>
      projects.indexOf(file.project.name) * 2 + (slow.test(file.moduleId) ? 0 : 1);
    // Array.prototype.sort is stable: within a rank, Vitest's order.
    return ordered.sort((a, b) => rank(a) - rank(b));
  }
}
