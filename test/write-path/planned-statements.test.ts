/**
 * The write path's batch statements on PostgreSQL (`writePath` in src/platform/unnest.ts):
 * prepared on each connection, so that the server parses them once there, and planned for each
 * batch's own arrays by the write path's transaction (`planEachRun`), so that the server never
 * keeps a plan for them: one made while the store was nearly empty is the worse one once it has
 * grown. A pool of one connection lets the test read that connection's prepared statements
 * after the service's own batches ran on it.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VersionWithCode } from '../../src/templates/service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { writeGiven } from '../helpers/decisions.js';
import { seedPublishedVersion, seedTenant, unique } from '../helpers/seed.js';
import { postgresStore } from '../helpers/stores.js';

/** The API key the decisions name: an id, a UUID as the service's are. */
const plannedKeyId = randomUUID();

describe("the write path's batch statements on PostgreSQL", () => {
  let t: TestApp;
  let tenantId: string;
  let version: VersionWithCode;

  beforeAll(async () => {
    t = await startTestApp(postgresStore, { DATABASE_POOL_SIZE: '1' });
    tenantId = (await seedTenant(t.db)).tenant.id;
    version = await seedPublishedVersion(t.db, tenantId);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A new customer's `given`, handed to the writer as the route hands it: its status. */
  const decide = (customer: string) =>
    writeGiven(t, { tenantId, apiKeyId: plannedKeyId }, version, customer);

  it('are prepared once on the connection and planned at every batch, never kept', async () => {
    // One batch each, more than the five runs after which the server may keep a plan.
    const batches = 8;
    for (let i = 0; i < batches; i += 1) expect(await decide(unique(`planned-${i}`))).toBe(201);
    const { rows } = await sql<{ statement: string; generic: number; custom: number }>`
      select statement, generic_plans::int as generic, custom_plans::int as custom
      from pg_prepared_statements
      where statement like 'insert into "decisions" %' or statement like '%left join lateral%'
    `.execute(t.db);
    // The decisions' insert and the batch's standings, each prepared once.
    const kinds = rows.map((row) => row.statement.trim().slice(0, 6)).sort();
    expect(kinds).toEqual(['insert', 'select']);
    for (const row of rows) {
      expect(row.generic).toBe(0);
      expect(row.custom).toBe(batches);
    }
  });

  it("leaves the session's own planning as it was once the batch has committed", async () => {
    expect(await decide(unique('planned-after'))).toBe(201);
    const { rows } = await sql<{
      mode: string;
    }>`select current_setting('plan_cache_mode') as mode`.execute(t.db);
    expect(rows).toEqual([{ mode: 'auto' }]);
  });
});
