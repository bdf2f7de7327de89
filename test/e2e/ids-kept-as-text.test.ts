/**
 * A PostgreSQL store whose ids migration 0058 kept as text (one of them is no UUID:
 * `platform/uuid-ids.test.ts` makes one) says so at every start: `serve` warns once (one worker
 * of two), with the reason the store keeps and the docs to read, and answers as usual. A start
 * on the test stores, whose ids are `uuid`, warns of nothing (serve.test.ts).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.js';
import {
  makeTempStore,
  type ServerProcess,
  startServer,
  startTwoWorkers,
  type TempStore,
  withStore,
} from '../helpers/process.js';
import { postgresStore } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

const reason =
  'tlog_logs holds an id that is no UUID: invalid input syntax for type uuid: "legacy-log"';

describe('a PostgreSQL store whose ids 0058 kept as text', () => {
  let store: TempStore;
  let server: ServerProcess;

  beforeAll(async () => {
    store = await makeTempStore(postgresStore);
    // Migrated by a first start, then marked as 0058 marks a store it keeps as text.
    const first = await startServer({ store });
    await first.stop(budget(10_000));
    await withStore(store, (db) =>
      sql`insert into store_settings (name, value, updated_at)
        values ('ids_kept_as_text', ${reason}, '2026-12-04T00:00:00.000Z')`.execute(db),
    );
    server = await startTwoWorkers(store, await freePort());
  });

  afterAll(async () => {
    try {
      await server?.stop(budget(10_000));
    } finally {
      await store?.remove();
    }
  });

  it('serve on two workers warns once, with the reason and the docs, and answers', async () => {
    const warned = server.logs().filter((line) => /ids are text, not uuid/.test(String(line.msg)));
    expect(warned, server.describe()).toHaveLength(1);
    expect(warned[0]?.level).toBe(40);
    expect(warned[0]?.reason).toBe(reason);
    expect(String(warned[0]?.msg)).toContain('docs/upgrades.md');
    const health = await fetch(`${server.baseUrl}/api/health`);
    expect(health.status).toBe(200);
  });
});
