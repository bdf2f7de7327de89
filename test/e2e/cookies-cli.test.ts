/**
 * `consent-service cookie …` as an operator automates it: a website and its origins, a banner
 * configuration, a publish outside review that prints the tag to paste, a real `serve` that
 * records a visitor's choice from an allowed origin only, and `cookie decisions` as JSON lines.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishedTag } from '../helpers/cookies.js';
import {
  type CliResult,
  expectJsonObject,
  freePort,
  makeTempStore,
  type Provisioned,
  provision,
  runCli,
  serverEnv,
  showResult,
  startServer,
  type TempStore,
} from '../helpers/process.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

const origin = 'https://www.bank.example';

describe.each(stores)('cookie commands on $name', (testStore) => {
  let store: TempStore;
  let env: Record<string, string>;
  let p: Provisioned;
  let port: number;
  const cli = (...args: string[]) => runCli(args, env, { cwd: store.dir });

  beforeAll(async () => {
    store = await makeTempStore(testStore);
    port = await freePort();
    env = serverEnv(store, port, 'warn');
    p = await provision(env);
  });
  afterAll(async () => {
    await store?.remove();
  });

  it(
    'creates a system and a banner, publishes it with its tag, and lists the choices a served page records',
    async () => {
      const system = expectJsonObject(
        await cli(
          'cookie',
          'system',
          'create',
          '--tenant',
          p.alias,
          '--name',
          'Bank website',
          '--origin',
          origin,
          '--origin',
          'https://m.bank.example',
        ),
      );
      const scope = String(system.scope);
      expect(scope).toMatch(/^cs_[0-9a-f]{20}$/);
      expect(system.origins).toEqual([origin, 'https://m.bank.example']);

      const made = expectJsonObject(
        await cli(
          'cookie',
          'create',
          '--tenant',
          p.alias,
          '--system',
          scope,
          '--name',
          'Banner 2026',
          '--categories',
          'analytics,marketing,functional,personalization',
        ),
      );
      expect(made).toMatchObject({ status: 'draft', version: 1, published: false });

      const published = expectJsonObject(
        await cli('cookie', 'publish', '--tenant', p.alias, '--system', scope),
      );
      expect(published.script_tag).toBe(publishedTag(env.PUBLIC_BASE_URL ?? '', scope));

      const server = await startServer({ store, port, env });
      try {
        const choice = {
          event_id: randomUUID(),
          visitor_id: randomUUID(),
          configuration_id: made.id,
          configuration_version: 1,
          method: 'reject-all',
          categories: {
            necessary: true,
            analytics: false,
            marketing: false,
            functional: false,
            personalization: false,
          },
          locale: 'th',
        };
        const post = (from: string) =>
          fetch(`${server.baseUrl}/cookies/v1/${scope}/decisions`, {
            method: 'POST',
            headers: { origin: from, 'content-type': 'text/plain;charset=UTF-8' },
            body: JSON.stringify(choice),
            signal: AbortSignal.timeout(budget(10_000)),
          });
        const refused = await post('https://elsewhere.example');
        expect(refused.status).toBe(403);
        const recorded = await post(origin);
        expect(recorded.status).toBe(201);
        const { data } = (await recorded.json()) as { data: { decision_id: string } };

        const listed: CliResult = await cli(
          'cookie',
          'decisions',
          '--tenant',
          p.alias,
          '--system',
          scope,
        );
        expect(listed.code, showResult(listed)).toBe(0);
        const lines = listed.stdout.trim().split('\n');
        expect(lines).toHaveLength(1);
        expect(JSON.parse(lines[0] ?? '')).toMatchObject({
          decision_id: data.decision_id,
          system: scope,
          method: 'reject-all',
          categories: choice.categories,
          locale: 'th',
          origin,
          visitor_id: choice.visitor_id,
        });
      } finally {
        await server.stop(budget(10_000));
      }

      const off = expectJsonObject(
        await cli('cookie', 'unpublish', '--tenant', p.alias, '--system', scope),
      );
      expect(off.published).toBe(false);
    },
    budget(60_000),
  );

  it('refuses an origin with a path (exit 1, the reason on stderr) and a missing option (exit 2)', async () => {
    const bad = await cli(
      'cookie',
      'system',
      'create',
      '--tenant',
      p.alias,
      '--name',
      'Shop',
      '--origin',
      'https://shop.example/cart',
    );
    expect(bad.code, showResult(bad)).toBe(1);
    expect(bad.stderr).toMatch(/origins\.0/);
    const missing = await cli('cookie', 'create', '--tenant', p.alias, '--name', 'x');
    expect(missing.code, showResult(missing)).toBe(2);
    expect(missing.stderr).toMatch(/Missing --system/);
  });
});
