/**
 * The public base URL kept with the store, on both stores: `serve` records the one it runs
 * with, `settings public-base-url` sets it, and the command line run without `PUBLIC_BASE_URL`
 * prints its URLs (`version publish`'s `file_url`, `cookie publish`'s tag) on it, not on
 * `localhost:3000`; a `PUBLIC_BASE_URL` of the command line's own environment still wins.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { publishedTag } from '../helpers/cookies.js';
import {
  expectJsonObject,
  freePort,
  makeTempStore,
  provision,
  runCli,
  serverEnv,
  showResult,
  startServer,
  type TempStore,
} from '../helpers/process.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

describe.each(stores)('the public base URL kept with the store on $name', (testStore) => {
  let store: TempStore;
  let port: number;
  /** The command line's environment: the server's, without PUBLIC_BASE_URL nor PORT. */
  let cliEnv: Record<string, string>;
  const cli = (args: string[], env = cliEnv) => runCli(args, env, { cwd: store.dir });

  beforeEach(async () => {
    store = await makeTempStore(testStore);
    port = await freePort();
    const { PUBLIC_BASE_URL: _url, PORT: _port, ...rest } = serverEnv(store, port);
    cliEnv = rest;
  });
  afterEach(async () => {
    await store?.remove();
  });

  /** `version publish`'s `file_url` and `cookie publish`'s tag, for a new template and site. */
  async function printedUrls(alias: string, env = cliEnv) {
    const code = `terms_${Math.random().toString(36).slice(2, 8)}`;
    const name = `Shop ${code}`;
    expectJsonObject(
      await cli(['template', 'create', '--tenant', alias, '--code', code, '--name', 'Terms'], env),
    );
    const version = expectJsonObject(
      await cli(
        [
          'version',
          'publish',
          '--tenant',
          alias,
          '--template',
          code,
          '--tag',
          '1.0',
          '--content',
          '<p>Terms</p>',
        ],
        env,
      ),
    );
    const system = expectJsonObject(
      await cli(
        [
          'cookie',
          'system',
          'create',
          '--tenant',
          alias,
          '--name',
          name,
          '--origin',
          'https://shop.example',
        ],
        env,
      ),
    );
    const scope = String(system.scope);
    expectJsonObject(
      await cli(['cookie', 'create', '--tenant', alias, '--system', scope, '--name', 'B'], env),
    );
    const published = expectJsonObject(
      await cli(['cookie', 'publish', '--tenant', alias, '--system', scope], env),
    );
    return {
      fileUrl: String(version.file_url),
      fileUrlExpected: (base: string) =>
        `${base}/api/content/${String(version.consent_version_id)}.html`,
      scriptTag: String(published.script_tag),
      scriptTagExpected: (base: string) => publishedTag(base, scope),
    };
  }

  it('after serve started with PUBLIC_BASE_URL, cookie publish and version publish print it without one', async () => {
    const p = await provision(cliEnv);
    const base = 'https://consent.bank.example';
    const server = await startServer({ store, port, env: { PUBLIC_BASE_URL: `${base}/` } });
    await server.stop(budget(10_000));

    const urls = await printedUrls(p.alias);
    expect(urls.fileUrl).toBe(urls.fileUrlExpected(base));
    expect(urls.scriptTag).toBe(urls.scriptTagExpected(base));
    expect(expectJsonObject(await cli(['settings', 'public-base-url']))).toEqual({
      public_base_url: base,
    });
  });

  it('serve without PUBLIC_BASE_URL records the address it listens on when the store has none, and keeps one set', async () => {
    const p = await provision(cliEnv);
    // An empty setting is no setting (src/platform/config.ts).
    const noUrl = { PUBLIC_BASE_URL: '' };
    const started = await startServer({ store, port, env: noUrl });
    await started.stop(budget(10_000));
    const listening = `http://localhost:${port}`;
    const urls = await printedUrls(p.alias);
    expect(urls.fileUrl).toBe(urls.fileUrlExpected(listening));

    const set = await cli(['settings', 'public-base-url', '--url', 'https://consent.example']);
    expect(expectJsonObject(set)).toEqual({ public_base_url: 'https://consent.example' });
    const again = await startServer({ store, port, env: noUrl });
    await again.stop(budget(10_000));
    const after = await printedUrls(p.alias);
    expect(after.scriptTag).toBe(after.scriptTagExpected('https://consent.example'));
  });

  it("settings public-base-url sets it; PUBLIC_BASE_URL in the command line's environment still wins", async () => {
    const p = await provision(cliEnv);
    expect(expectJsonObject(await cli(['settings', 'public-base-url']))).toEqual({
      public_base_url: null,
    });
    const set = await cli([
      'settings',
      'public-base-url',
      '--url',
      'https://consent.shop.example/',
    ]);
    expect(expectJsonObject(set)).toEqual({ public_base_url: 'https://consent.shop.example' });
    const urls = await printedUrls(p.alias);
    expect(urls.fileUrl).toBe(urls.fileUrlExpected('https://consent.shop.example'));
    expect(urls.scriptTag).toBe(urls.scriptTagExpected('https://consent.shop.example'));

    const own = await printedUrls(p.alias, { ...cliEnv, PUBLIC_BASE_URL: 'http://127.0.0.1:4000' });
    expect(own.fileUrl).toBe(own.fileUrlExpected('http://127.0.0.1:4000'));
    expect(own.scriptTag).toBe(own.scriptTagExpected('http://127.0.0.1:4000'));

    const refused = await cli(['settings', 'public-base-url', '--url', 'consent.shop.example']);
    expect(refused.code, showResult(refused)).toBe(1);
    expect(refused.stderr).toContain('url: must be an http:// or https:// URL');
    expect(expectJsonObject(await cli(['settings', 'public-base-url']))).toEqual({
      public_base_url: 'https://consent.shop.example',
    });
  });
});
