/**
 * The previous release, built from git as it was released: the newest release CHANGELOG.md lists
 * (`previousRelease`) and its files, packages and build in a temporary folder (`buildRelease`).
 * `test/e2e/previous-release.test.ts` runs it beside this checkout, `bench/upgrade-at-scale.ts`
 * makes a large store with it for this checkout to migrate.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();

/** The newest release CHANGELOG.md lists, and its commit. */
export function previousRelease(): { version: string; commit: string } {
  const changelog = readFileSync(join(repoRoot, 'CHANGELOG.md'), 'utf8');
  const version = /^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$/m.exec(changelog)?.[1];
  if (!version) throw new Error('CHANGELOG.md lists no release');
  let commit = '';
  try {
    commit = git('rev-parse', '--verify', '--quiet', `refs/tags/v${version}^{commit}`);
  } catch {
    // A clone without its tags: the commit that set the version.
    commit = git('log', '--format=%H', '-S', `"version": "${version}"`, '--', 'package.json')
      .split('\n')
      .at(-1) as string;
  }
  if (!/^[0-9a-f]{40}$/.test(commit)) throw new Error(`no commit found for release ${version}`);
  return { version, commit };
}

/**
 * The release's files, its build, and its packages: this checkout's when the lockfiles are the
 * same, else installed from its own lockfile.
 */
export async function buildRelease(commit: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'previous-release-'));
  execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C "${dir}"`], { cwd: repoRoot });
  const sameLock = lockedWithin(
    join(dir, 'package-lock.json'),
    join(repoRoot, 'package-lock.json'),
  );
  if (sameLock) symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  else {
    execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir });
    linkNativeBuilds(dir);
  }
  // Its sources were type-checked when it was released: esbuild only strips the types, each
  // file on its own as tsc would write it (a second, where tsc takes half a minute).
  const sources = join(dir, 'src');
  const entryPoints = readdirSync(sources, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .filter((file) => !file.startsWith(`cookies${sep}banner${sep}`))
    .map((file) => join(sources, file));
  await build({
    entryPoints,
    outdir: join(dir, 'dist'),
    outbase: sources,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
  });
  // A release's own steps after the compile, those it has: the banner, then the bundle.
  for (const script of ['scripts/build-banner.mjs', 'scripts/build-bundle.mjs']) {
    if (existsSync(join(dir, script))) execFileSync(process.execPath, [script], { cwd: dir });
  }
  return dir;
}

/**
 * True when every package the release's lockfile installs is in this checkout's at the same
 * version and place: this checkout's node_modules then serve the release as its own would (a
 * release after which dependencies were only added, say), and nothing need be installed.
 */
function lockedWithin(releaseLock: string, currentLock: string): boolean {
  type Lock = { packages?: Record<string, { version?: string }> };
  const theirs = (JSON.parse(readFileSync(releaseLock, 'utf8')) as Lock).packages ?? {};
  const ours = (JSON.parse(readFileSync(currentLock, 'utf8')) as Lock).packages ?? {};
  return Object.entries(theirs).every(
    ([path, entry]) => path === '' || ours[path]?.version === entry.version,
  );
}

/**
 * Installed without scripts, the release's native packages (better-sqlite3) have no binary:
 * where its version is this checkout's, it gets the binary this checkout's install built.
 */
function linkNativeBuilds(dir: string): void {
  const modules = join(repoRoot, 'node_modules');
  for (const name of readdirSync(join(dir, 'node_modules'))) {
    const theirs = join(dir, 'node_modules', name);
    const ours = join(modules, name);
    if (!existsSync(join(theirs, 'binding.gyp')) || !existsSync(join(ours, 'build'))) continue;
    const version = (at: string) =>
      (JSON.parse(readFileSync(join(at, 'package.json'), 'utf8')) as { version: string }).version;
    if (version(theirs) !== version(ours)) {
      throw new Error(`${name} ${version(theirs)} of the release is not this checkout's`);
    }
    symlinkSync(join(ours, 'build'), join(theirs, 'build'), 'dir');
  }
}
