/**
 * A PostgreSQL store whose ids migration 0058 kept as text (one of them is no UUID:
 * `platform/uuid-ids.test.ts` makes one) says so at every start: `serve` warns once (one worker
 * of two), with the reason the store keeps and the docs to read, and answers as usual. So does
 * one whose decision times 0061, log times 0062 or subjects' look-ups 0063 kept as text
 * (`decision-times`, `log-entry-types` and `lookup-types` tests make them), each with its own
 * warning. A start on the test stores, whose columns are converted, warns of nothing
 * (serve.test.ts).
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
/** The other settings a migration leaves, each with the start of the warning it brings. */
const others = [
  {
    setting: 'decision_times_kept_as_text',
    reason: 'decisions is partitioned by time',
    warning: "The store's decision times are text, not timestamptz",
    section: 'A store whose decision times 0061 kept as text',
  },
  {
    setting: 'log_times_kept_as_text',
    reason: 'tlog_entries is partitioned by time',
    warning: "The log entries' times are text, not timestamptz",
    section: 'A store whose log times 0062 kept as text',
  },
  {
    setting: 'lookups_kept_as_text',
    reason: 'subjects holds a look-up that is no SHA-256 HMAC in lowercase hex: subject x',
    warning: "The subjects' look-ups are text, not bytea",
    section: "A store whose subjects' look-ups 0063 kept as text",
  },
];

describe('a PostgreSQL store whose ids 0058 kept as text', () => {
  let store: TempStore;
  let server: ServerProcess;

  beforeAll(async () => {
    store = await makeTempStore(postgresStore);
    // Migrated by a first start, then marked as 0058 marks a store it keeps as text.
    const first = await startServer({ store });
    await first.stop(budget(10_000));
    await withStore(store, async (db) => {
      for (const [name, value] of [
        ['ids_kept_as_text', reason],
        ...others.map((other) => [other.setting, other.reason]),
      ]) {
        await sql`insert into store_settings (name, value, updated_at)
          values (${name}, ${value}, '2026-12-04T00:00:00.000Z')`.execute(db);
      }
    });
    server = await startTwoWorkers(store, await freePort());
  });

  afterAll(async () => {
    try {
      await server?.stop(budget(10_000));
    } finally {
      await store?.remove();
    }
  });

  it('serve on two workers warns once of each, with the reason and the docs, and answers', async () => {
    const warned = server.logs().filter((line) => /ids are text, not uuid/.test(String(line.msg)));
    expect(warned, server.describe()).toHaveLength(1);
    expect(warned[0]?.level).toBe(40);
    expect(warned[0]?.reason).toBe(reason);
    expect(String(warned[0]?.msg)).toContain('docs/upgrades.md');
    for (const other of others) {
      const lines = server.logs().filter((line) => String(line.msg).startsWith(other.warning));
      expect(lines, server.describe()).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 40, reason: other.reason });
      expect(String(lines[0]?.msg)).toContain(`docs/upgrades.md ("${other.section}")`);
    }
    const health = await fetch(`${server.baseUrl}/api/health`);
    expect(health.status).toBe(200);
  });
});
