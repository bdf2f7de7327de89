/**
 * Whether the store orders text byte by byte, as SQLite does (docs/postgresql.md, "The database's
 * collation"): the test stores do (the test server is made with the C locale), a PostgreSQL
 * database made with an ICU locale does not, and `serve` on such a database says so once (one
 * worker of two), in a warning, and answers as usual (that a start on the test stores gives
 * none: serve.test.ts). ICU locales for a database need PostgreSQL 15 or later (the embedded
 * test server is 16).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { comparesTextByBytes } from '../../src/platform/text-order.js';
import { freePort } from '../helpers/ports.js';
import {
  makeTempStore,
  type ServerProcess,
  startTwoWorkers,
  type TempStore,
  withStore,
} from '../helpers/process.js';
import { postgresDatabase, stores, type TestStore } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

const warning = /orders text by a language's collation/;

describe.concurrent.each(stores)('on $name as the tests make it', (testStore) => {
  it('text is compared byte by byte: "B" before "a", "a-b" before "a_b"', async () => {
    const store = await makeTempStore(testStore);
    try {
      expect(await withStore(store, comparesTextByBytes)).toBe(true);
    } finally {
      await store.remove();
    }
  });
});

describe('a PostgreSQL database made with an ICU locale (en-US)', () => {
  let store: TempStore;
  let server: ServerProcess;

  beforeAll(async () => {
    const icu: TestStore = {
      name: 'postgres',
      create: () =>
        postgresDatabase('template0', "locale_provider icu icu_locale 'en-US' locale 'C'"),
    };
    store = await makeTempStore(icu);
    server = await startTwoWorkers(store, await freePort());
  });

  afterAll(async () => {
    try {
      await server?.stop(budget(10_000));
    } finally {
      await store?.remove();
    }
  });

  it('does not compare text byte by byte', async () => {
    expect(await withStore(store, comparesTextByBytes)).toBe(false);
  });

  it('serve on two workers warns once, naming the setting and the docs, and answers', async () => {
    const warned = server.logs().filter((line) => warning.test(String(line.msg)));
    expect(warned, server.describe()).toHaveLength(1);
    expect(warned[0]?.level).toBe(40);
    expect(String(warned[0]?.msg)).toContain("LC_COLLATE 'C'");
    expect(String(warned[0]?.msg)).toContain('docs/postgresql.md');
    const health = await fetch(`${server.baseUrl}/api/health`);
    expect(health.status).toBe(200);
  });
});
