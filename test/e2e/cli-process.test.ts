/**
 * The command line as a user runs it: `bin/consent-service` as a process of its own, on the
 * fresh build. What each command does is tested in process (`runCli`, `cli.test.ts` and the
 * features' tests); these few check what only a process shows: the exit code as the process's
 * own, one JSON line on stdout, the working directory's default store, and readable errors.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { expectJsonObject, repoRoot, runCliProcess, showResult } from '../helpers/process.js';
import { testPasswordHashCost } from '../helpers/time.js';

const packageVersion = (
  JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }
).version;

describe('bin/consent-service as a process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'consent-cli-process-'));
  // No DATABASE_URL: the default store, data/consent.db under the working directory.
  const env = { PASSWORD_HASH_COST: String(testPasswordHashCost) };
  const cli = (...args: string[]) => runCliProcess(args, env, { cwd: dir });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('--version prints the package version and exits 0', async () => {
    const result = await cli('--version');
    expect(result.code, showResult(result)).toBe(0);
    expect(result.stdout).toBe(`${packageVersion}\n`);
  });

  it('--help prints the usage and exits 0; no command at all prints it and exits 2', async () => {
    const help = await cli('--help');
    expect(help.code, showResult(help)).toBe(0);
    expect(help.stdout).toMatch(/^Usage: consent-service <command>/);
    const none = await cli();
    expect(none.code, showResult(none)).toBe(2);
    expect(none.stdout).toMatch(/^Usage: consent-service <command>/);
  });

  it('tenant create on no store yet makes data/consent.db in the working directory and prints one JSON line', async () => {
    const result = await cli(
      'tenant',
      'create',
      '--alias',
      'acme',
      '--email',
      'owner@acme.test',
      '--password',
      'a long enough password',
    );
    const printed = expectJsonObject(result);
    expect(printed).toMatchObject({ alias: 'acme', email: 'owner@acme.test' });
    expect(existsSync(join(dir, 'data', 'consent.db'))).toBe(true);
    expect(existsSync(join(dir, 'data', 'data-encryption.key'))).toBe(true);
  });

  it('a command that fails exits 1 with a sentence on stderr (no stack trace) and nothing on stdout', async () => {
    const result = await cli(
      'tenant',
      'create',
      '--alias',
      'acme',
      '--email',
      'again@acme.test',
      '--password',
      'a long enough password',
    );
    expect(result.code, showResult(result)).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Error 1005: A tenant with this alias already exists\.$/m);
    expect(result.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  });

  it('an unknown command exits 2 naming it, with the usage on stderr', async () => {
    const result = await cli('tenant', 'explode');
    expect(result.code, showResult(result)).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/Unknown command "tenant explode"/);
    expect(result.stderr).toMatch(/Usage: consent-service <command>/);
  });

  it('runs the bundle of dist/: no module of dist/ outside dist/bundle/, and of node_modules only the packages left out of it', async () => {
    // Every module the process loads, written down by a loader hook (node:module's register),
    // and every CommonJS file it required, at its exit (a `require` inside CommonJS passes no hook).
    const loaded = join(dir, 'loaded.txt');
    const required = join(dir, 'required.txt');
    const hooks = join(dir, 'hooks.mjs');
    writeFileSync(
      hooks,
      `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(loaded)}, url + '\\n');
  return next(url, context);
}
`,
    );
    const register = join(dir, 'register.mjs');
    writeFileSync(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
    );
    const atExit = join(dir, 'at-exit.cjs');
    writeFileSync(
      atExit,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(required)}, Object.keys(require.cache).join('\\n')));\n`,
    );
    const result = await runCliProcess(
      ['tenant', 'list'],
      {
        ...env,
        NODE_OPTIONS: `--import ${pathToFileURL(register).href} --require ${atExit}`,
      },
      { cwd: dir },
    );
    expect(result.code, showResult(result)).toBe(0);
    const urls = readFileSync(loaded, 'utf8').trim().split('\n');
    const dist = pathToFileURL(join(repoRoot, 'dist')).href;
    const ofDist = urls.filter((url) => url.startsWith(`${dist}/`));
    expect(ofDist.length).toBeGreaterThan(0);
    expect(ofDist.filter((url) => !url.startsWith(`${dist}/bundle/`))).toEqual([]);
    // The packages of node_modules a command on SQLite loads: the native addon and how it finds
    // its binary, which stay out of the bundle (scripts/build-bundle.mjs).
    const files = [...urls, ...readFileSync(required, 'utf8').split('\n')];
    const packages = new Set(
      files.flatMap((file) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1] ?? []),
    );
    expect([...packages].sort()).toEqual(['better-sqlite3', 'bindings', 'file-uri-to-path']);
  });

  it('a bad setting exits 1 naming it, before touching the store', async () => {
    const result = await runCliProcess(['migrate'], { ...env, PORT: 'eighty' }, { cwd: dir });
    expect(result.code, showResult(result)).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/PORT/);
  });
});
