/**
 * The previous release on a store this checkout migrated, beside it (a rolling upgrade,
 * docs/upgrades.md): it is built from its tag (the newest release in CHANGELOG.md; failing the
 * tag, the commit that set its version in package.json), started on the store, and must answer
 * the seed's endpoints as this checkout does, and record decisions this checkout reads.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRelease, previousRelease } from '../helpers/previous-release.js';
import {
  callServer,
  freePort,
  makeTempStore,
  type Provisioned,
  provision,
  type ServerProcess,
  serverEnv,
  startServer,
  type TempStore,
} from '../helpers/process.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

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
