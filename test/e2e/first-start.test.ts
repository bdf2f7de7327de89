/**
 * The line `serve` logs on an empty store names commands that run where the server runs: in the
 * container image (working directory /app, holding bin/, started as `node bin/consent-service
 * serve`: test/container.test.ts holds the Dockerfile to that) and from any other folder.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  binPath,
  makeTempStore,
  pollUntil,
  repoRoot,
  type ServerProcess,
  startServer,
  type TempStore,
} from '../helpers/process.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

const run = promisify(execFile);

/** The commands the start-up line says to run, in order (each is written between double quotes). */
async function hintedCommands(server: ServerProcess): Promise<string[]> {
  const hint = await pollUntil(
    async () =>
      server
        .logs()
        .map((record) => String(record.msg))
        .find((msg) => msg.includes('no tenant yet')),
    { timeoutMs: budget(5_000) },
  );
  expect(hint, server.describe()).toBeDefined();
  return [...String(hint).matchAll(/"([^"]+)"/g)].map((match) => match[1] ?? '');
}

describe.each(stores)('the first start on $name', (testStore) => {
  let store: TempStore | undefined;
  let server: ServerProcess | undefined;

  afterEach(async () => {
    try {
      await server?.stop(budget(10_000));
    } finally {
      await store?.remove();
    }
  });

  /**
   * Runs the hinted demo line with the shell, in `cwd`, with the server's settings, and checks
   * that the key it made is taken by the running server: the demo went to the server's store.
   */
  async function runDemo(command: string, cwd: string): Promise<void> {
    const { stdout } = await run('sh', ['-c', command], {
      cwd,
      env: { ...process.env, ...server?.env },
      timeout: budget(20_000),
    });
    const key = /csk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}/.exec(stdout)?.[0];
    const latest = /https?:\/\/\S+\/api\/v1\/consent-templates\/[^/\s'"]+\/latest/.exec(
      stdout,
    )?.[0];
    expect(key, stdout).toBeDefined();
    expect(latest, stdout).toBeDefined();
    const response = await fetch(latest ?? '', {
      headers: { 'x-system-api-key': key ?? '' },
      signal: AbortSignal.timeout(budget(5_000)),
    });
    expect(response.status).toBe(200);
  }

  it('started as the image starts it, names node bin/consent-service, and its demo works there', async () => {
    store = await makeTempStore(testStore);
    // The folder that holds bin/, dist/ and node_modules/, as /app does in the image; the keys
    // stay in the store's folder.
    server = await startServer({
      store,
      logLevel: 'info',
      cwd: repoRoot,
      env: { LOG_SIGNING_KEY_FILE: join(store.dir, 'log-signing.key') },
    });
    const [demo, ...others] = await hintedCommands(server);
    expect(demo).toBe('node bin/consent-service demo');
    for (const command of others) expect(command).toMatch(/^node bin\/consent-service /);
    await runDemo(demo ?? '', repoRoot);
  });

  it('started from another folder, names the program by its full path, and its demo works there', async () => {
    store = await makeTempStore(testStore);
    server = await startServer({ store, logLevel: 'info' });
    const [demo] = await hintedCommands(server);
    expect(demo).toBe(`node ${binPath} demo`);
    await runDemo(demo ?? '', store.dir);
  });
});
