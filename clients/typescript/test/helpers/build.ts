import { fileURLToPath } from 'node:url';
import { buildProject } from '../../../../test/helpers/build.js';

const clientRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Builds the client's `dist/` from its `src/` (incrementally, its build state kept in `dist/`):
 * its tests import the package by its name, as a caller does, which resolves to `dist/`.
 */
export function buildClient(): void {
  buildProject(clientRoot, 'tsconfig.json');
}
