import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const clientRoot = fileURLToPath(new URL('../..', import.meta.url));
const tscPath = fileURLToPath(
  new URL('../../../../node_modules/typescript/bin/tsc', import.meta.url),
);

/**
 * Builds the client's `dist/` from its `src/` (incrementally, its build state kept in `dist/`):
 * its tests import the package by its name, as a caller does, which resolves to `dist/`.
 */
export function buildClient(): void {
  const args = ['-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', 'dist/.tsbuildinfo'];
  const result = spawnSync(process.execPath, [tscPath, ...args], {
    cwd: clientRoot,
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(
      `the build of clients/typescript/dist/ failed (tsc ${args.join(' ')}, exit ` +
        `${result.status} ${result.signal ?? ''}):\n${result.stdout}${result.stderr}`,
    );
  }
}
