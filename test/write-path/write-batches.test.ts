/**
 * `DATABASE_WRITE_BATCHES` on PostgreSQL: how many batches of records an instance writes at once
 * (src/write-path/writers.ts). A customer's subject lock, held by another transaction, keeps one
 * decision's batch waiting in the store; what the setting allows is then read from the order in
 * which the other customers' decisions are answered, and from the commits they took.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config.js';
import { lockSubject } from '../../src/record-kinds/index.js';
import type { VersionWithCode } from '../../src/templates/service.js';
import { writeBatchesInFlight } from '../../src/write-path/writers.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { writeGiven } from '../helpers/decisions.js';
import { seedPublishedVersion, seedTenant, unique } from '../helpers/seed.js';
import { postgresStore } from '../helpers/stores.js';

/** The API key the decisions name: an id, a UUID as the service's are. */
const batchesKeyId = randomUUID();

describe('batches written at once (DATABASE_WRITE_BATCHES)', () => {
  it('is two by default, as set otherwise, and leaves a connection of the pool to reads', () => {
    expect(writeBatchesInFlight(loadConfig({}))).toBe(2);
    expect(writeBatchesInFlight(loadConfig({ DATABASE_WRITE_BATCHES: '3' }))).toBe(3);
    const small = { DATABASE_WRITE_BATCHES: '8', DATABASE_POOL_SIZE: '4' };
    expect(writeBatchesInFlight(loadConfig(small))).toBe(3);
    expect(writeBatchesInFlight(loadConfig({ DATABASE_POOL_SIZE: '1' }))).toBe(1);
  });

  it.each(['0', '65', 'many'])('refuses DATABASE_WRITE_BATCHES=%s, naming it', (value) => {
    expect(() => loadConfig({ DATABASE_WRITE_BATCHES: value })).toThrow('DATABASE_WRITE_BATCHES');
  });
});

describe.each([
  { batches: 1, alongside: false },
  { batches: 2, alongside: true },
])('PostgreSQL with DATABASE_WRITE_BATCHES=$batches', ({ batches, alongside }) => {
  let t: TestApp;
  let tenantId: string;
  let version: VersionWithCode;

  beforeAll(async () => {
    t = await startTestApp(postgresStore, { DATABASE_WRITE_BATCHES: String(batches) });
    tenantId = (await seedTenant(t.db)).tenant.id;
    version = await seedPublishedVersion(t.db, tenantId);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A new customer's `given`, handed to the writer as the route hands it: its status. */
  const decide = (customer: string) =>
    writeGiven(t, { tenantId, apiKeyId: batchesKeyId }, version, customer);

  /** Sessions of this test's database waiting for an advisory lock. */
  const waitingLocks = async () => {
    const { rows } = await sql<{ waiting: number }>`
      select count(*)::int as waiting from pg_locks
      where locktype = 'advisory' and not granted
        and database = (select oid from pg_database where datname = current_database())
    `.execute(t.db);
    return rows[0]?.waiting;
  };

  it(
    alongside
      ? "writes other customers' decisions while a batch waits on a lock"
      : "holds other customers' decisions until the waiting batch commits, then writes them as one batch",
    async () => {
      const held = unique('held');
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked = () => {};
      const lockTaken = new Promise<void>((resolve) => {
        locked = resolve;
      });
      // Another transaction holds the held customer's subject lock, as an erasure does.
      const holder = t.db.transaction().execute(async (trx) => {
        await lockSubject(trx, tenantId, t.vault.lookup(tenantId, held));
        locked();
        await gate;
      });
      await lockTaken;

      const answered: string[] = [];
      const track = (name: string, answer: Promise<number>) =>
        answer.then((status) => {
          answered.push(name);
          return status;
        });
      const first = track('held', decide(held));
      // The held customer's batch has reached the store and waits there for the lock.
      await expect.poll(waitingLocks).toBe(1);

      const commitsBefore = t.writer.stats().commits;
      const others = Promise.all(
        ['a', 'b', 'c'].map((name) => track(name, decide(unique(`other-${name}`)))),
      );
      try {
        if (alongside) {
          // A second batch is written beside the waiting one: answered before it.
          await expect.poll(() => answered.length).toBe(3);
          expect(answered).not.toContain('held');
        } else {
          // Nothing else is written until the waiting batch commits: the three wait, then go
          // together.
          release();
          expect(await first).toBe(201);
          expect(answered[0]).toBe('held');
          expect(await others).toEqual([201, 201, 201]);
          expect(t.writer.stats().commits - commitsBefore).toBe(2);
        }
      } finally {
        release();
      }
      expect(await first).toBe(201);
      expect(await others).toEqual([201, 201, 201]);
      await holder;
      expect(answered.sort()).toEqual(['a', 'b', 'c', 'held']);
    },
  );
});
