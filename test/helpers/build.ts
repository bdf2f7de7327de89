/**
 * The end-to-end tests run `bin/consent-service`, which runs the compiled `dist/`: the test run
 * builds it first (`global-setup.ts`), so that no test runs against an older build of `src/`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const tscPath = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
/** Kept in `dist/`, so that removing `dist/` also starts the next build afresh. */
const buildInfo = join('dist', '.tsbuildinfo');

/**
 * A folder of `src/` built into one file of `dist/` by a script of its own, instead of compiled
 * file by file by tsc.
 */
export interface Bundle {
  /** The folder of its sources, relative to `src/`. */
  sources: string;
  /** The bundle, relative to `dist/`. */
  output: string;
  /** The script that builds it, relative to the project's root (run with node). */
  script: string;
}

/** The cookie banner, bundled for browsers by esbuild. */
export const bannerBundle: Bundle = {
  sources: join('cookies', 'banner'),
  output: join('cookies', 'banner.js'),
  script: join('scripts', 'build-banner.mjs'),
};

/**
 * The sources under `srcDir` (paths relative to it) whose compiled `.js` under `distDir` is
 * missing or older than the source; for a source of a bundle, the bundle. Declaration files
 * (`.d.ts`) compile to nothing.
 */
export function staleOutputs(srcDir: string, distDir: string, bundles: Bundle[] = []): string[] {
  const stale: string[] = [];
  for (const source of sourceFiles(srcDir)) {
    const path = relative(srcDir, source);
    const bundle = bundles.find(({ sources }) => path.startsWith(`${sources}${sep}`));
    const output = join(distDir, bundle ? bundle.output : path.replace(/\.ts$/, '.js'));
    const built = statSync(output, { throwIfNoEntry: false });
    if (!built || built.mtimeMs < statSync(source).mtimeMs) stale.push(path);
  }
  return stale.sort();
}

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

function tsc(root: string, tsconfig: string, args: string[]): void {
  const result = spawnSync(process.execPath, [tscPath, '-p', tsconfig, ...args], {
    cwd: root,
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    const where = relative(repoRoot, join(root, 'dist')) || 'dist';
    throw new Error(
      `the build of ${where}/ failed (tsc -p ${tsconfig} ${args.join(' ')}, ` +
        `exit ${result.status} ${result.signal ?? ''}):\n${result.stdout}${result.stderr}`,
    );
  }
}

function runScript(root: string, script: string): void {
  const result = spawnSync(process.execPath, [join(root, script)], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(
      `the bundle of ${script} failed (exit ${result.status} ${result.signal ?? ''}):\n` +
        `${result.stdout}${result.stderr}`,
    );
  }
}

/**
 * Builds a project's `dist/` from its `src/` with its `tsconfig` (incrementally) and its
 * bundles' scripts (each a fraction of a second, so always), and fails when any compiled file
 * or bundle is still missing or older than its sources. An incremental build does not rewrite a
 * file whose source was only touched, so then one full build runs before giving up. Last, the
 * scripts of `afterCompile` run (relative to the root), on compiled files all fresh by then.
 */
export function buildProject(
  root: string,
  tsconfig: string,
  bundles: Bundle[] = [],
  afterCompile: string[] = [],
): void {
  const srcDir = join(root, 'src');
  const distDir = join(root, 'dist');
  tsc(root, tsconfig, ['--incremental', '--tsBuildInfoFile', buildInfo]);
  for (const each of bundles) runScript(root, each.script);
  if (staleOutputs(srcDir, distDir, bundles).length > 0) {
    tsc(root, tsconfig, []);
    const stale = staleOutputs(srcDir, distDir, bundles);
    if (stale.length > 0) {
      throw new Error(
        `${relative(repoRoot, distDir)}/ is older than src/ after building: ${stale.join(', ')} ` +
          '(the tests would run an old build)',
      );
    }
  }
  for (const script of afterCompile) runScript(root, script);
}

/**
 * The service's `dist/`, which the end-to-end tests run, with the banner it serves, and the
 * bundle of the whole that `bin/consent-service` runs (`scripts/build-bundle.mjs`, rebuilt at
 * every run in about three seconds), made from the compiled files once they are all fresh.
 */
export function buildDist(): void {
  buildProject(
    repoRoot,
    'tsconfig.build.json',
    [bannerBundle],
    [join('scripts', 'build-bundle.mjs')],
  );
}
