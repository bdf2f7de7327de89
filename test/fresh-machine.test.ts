import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/process.js';

/** What `npm ci && npm test` needs of a new machine: nothing that npm does not install. */
describe('a fresh machine', () => {
  const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');

  it('CI installs nothing but the npm packages: .ci/run has no apt-get', () => {
    expect(read('.ci/run')).not.toMatch(/\bapt(-get)?\b/);
  });

  it('no test file leaves a test out (skip, skipIf, runIf, todo, only)', () => {
    const files = (dir: string): string[] =>
      readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory()
          ? files(join(dir, entry.name))
          : entry.name.endsWith('.ts')
            ? [join(dir, entry.name)]
            : [],
      );
    const self = relative(repoRoot, new URL(import.meta.url).pathname);
    const leaving = /\b(describe|it|test)(\.\w+)*\.(skip|skipIf|runIf|todo|only)\b|\bctx\.skip\(/;
    const offenders = [...files('test'), ...files('clients/typescript/test')]
      .filter((file) => file !== self)
      .filter((file) => leaving.test(read(file)));
    expect(offenders).toEqual([]);
  });

  it('every installed package with an install script is allowed or refused in allowScripts', () => {
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript === true)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    const { allowScripts } = JSON.parse(read('package.json')) as {
      allowScripts: Record<string, boolean>;
    };
    expect(withScripts.filter((name) => !(name in allowScripts))).toEqual([]);
  });
});
