/**
 * The previous release on a store this checkout migrated, beside it (a rolling upgrade,
 * docs/upgrades.md): it is built from its tag (the newest release in CHANGELOG.md; failing the
 * tag, the commit that set its version in package.json), started on the store, and must answer
 * the seed's endpoints as this checkout does, and record decisions this checkout reads.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callServer,
  freePort,
  makeTempStore,
  type Provisioned,
  provision,
  repoRoot,
  type ServerProcess,
  serverEnv,
  startServer,
  type TempStore,
} from '../helpers/process.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();

/** The newest release CHANGELOG.md lists, and its commit. */
function previousRelease(): { version: string; commit: string } {
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
async function buildRelease(commit: string): Promise<string> {
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
  if (existsSync(join(dir, 'scripts', 'build-banner.mjs'))) {
    execFileSync(process.execPath, ['scripts/build-banner.mjs'], { cwd: dir });
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

let release: { version: string; commit: string; dir: string };
beforeAll(async () => {
  const found = previousRelease();
  release = { ...found, dir: await buildRelease(found.commit) };
}, budget(180_000));
afterAll(() => {
  if (release) rmSync(release.dir, { recursive: true, force: true });
});

describe.each(stores)('the previous release beside this one on $name', (testStore) => {
  let store: TempStore;
  let current: ServerProcess;
  let previous: ServerProcess | undefined;
  let p: Provisioned;

  beforeAll(async () => {
    store = await makeTempStore(testStore);
    const port = await freePort();
    const env = serverEnv(store, port);
    // This checkout migrates the store and provisions it.
    p = await provision(env);
    current = await startServer({ store, port, env });
  });
  afterAll(async () => {
    await previous?.stop(budget(10_000));
    await current?.stop(budget(10_000));
    await store?.remove();
  });

  const api = (server: ServerProcess, path: string, init: RequestInit = {}) =>
    callServer(server, { 'x-system-api-key': p.apiKey.key }, path, init);
  const decide = (server: ServerProcess, customer: string, decision: string) =>
    api(server, `/api/v1/customers/${customer}/consents/decisions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ consent_version_id: p.versionId, decision }),
    });
  /** What a client sees of an answer: its status, body and ETag. */
  const seen = async (response: Response) => ({
    status: response.status,
    etag: response.headers.get('etag'),
    body: await response.text(),
  });

  it('starts on the store this checkout migrated, and says which release it is', async () => {
    expect((await decide(current, 'c-1', 'given')).status).toBe(201);
    // A fleet's instances share the address clients reach (file URLs are made on it).
    previous = await startServer({
      store,
      env: { PUBLIC_BASE_URL: current.baseUrl },
      bin: join(release.dir, 'bin', 'consent-service'),
    });
    const health = await callServer(previous, {}, '/api/health');
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('{"status":"ok","success":true}');
    expect(health.headers.get('consent-service-version')).toBe(release.version);
  });

  it('answers latest and pending as this checkout does, and records decisions it reads', async () => {
    if (!previous) throw new Error('the previous release did not start');
    const latest = `/api/v1/consent-templates/${p.templateCode}/latest`;
    const pending = (customer: string) =>
      `/api/v1/customers/${customer}/consents/templates/${p.templateCode}/pending`;
    for (const path of [latest, pending('c-1'), pending('c-2')]) {
      expect(await seen(await api(previous, path)), path).toEqual(
        await seen(await api(current, path)),
      );
    }
    // A decision taken by the previous release, read by this one, and the other way round.
    expect((await decide(previous, 'c-2', 'given')).status).toBe(201);
    expect((await decide(current, 'c-1', 'withdraw')).status).toBe(201);
    for (const path of [pending('c-1'), pending('c-2')]) {
      const now = await seen(await api(current, path));
      expect(await seen(await api(previous, path)), path).toEqual(now);
    }
    // c-2 accepted the version through the previous release: this one says so.
    const c2 = JSON.parse((await seen(await api(current, pending('c-2')))).body) as {
      data: { accepted: boolean };
    };
    expect(c2.data.accepted).toBe(true);
  });
});
