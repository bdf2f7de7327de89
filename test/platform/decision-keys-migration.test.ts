import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { timeTables } from '../../src/app/time-tables.js';
import { findStatuses } from '../../src/consent-status/repository.js';
import { findDecisionWithTemplate } from '../../src/decisions/record-repository.js';
import type { DecisionsTable as Decisions } from '../../src/decisions/table.js';
import { type Db, isPostgres } from '../../src/platform/db.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { partitionByTime } from '../../src/platform/partitions.js';
import { findDecisionAsOf, findHistoryPage } from '../../src/records/repository.js';
import { testDataKey } from '../helpers/app.js';
import { indexesOf, planWatcher } from '../helpers/indexes.js';
import { keyColumns, migrateBefore } from '../helpers/schema-history.js';
import { rowsByTenantAndId, sealedToStore } from '../helpers/sealed.js';
import { seedPublishedVersion, seedTenant } from '../helpers/seed.js';
import { postgresStore, sqliteStore, stores, useBareStore } from '../helpers/stores.js';

/** A decision's row as releases before 0059 wrote it, with the text's hash. */
type DecisionsTable = Decisions & { content_sha256?: string };

/**
 * The keys of `decisions` on PostgreSQL once migrations 0054 and 0067 have run, on a table not
 * partitioned.
 */
const keys = [
  { name: 'decisions_customer_time_idx', unique: false, columns: ['subject_id', 'decided_at'] },
  { name: 'decisions_decided_at_idx', unique: false, columns: ['tenant_id', 'decided_at'] },
  { name: 'decisions_history_uq', unique: true, columns: ['subject_id', 'template_id', 'seq'] },
  { name: 'decisions_pk', unique: true, columns: ['id'] },
];

/** The keys before it, which SQLite keeps (its two constraints' indexes have SQLite's names). */
const keysBefore = (names: { pk: string; history: string }) =>
  [
    {
      name: 'decisions_customer_time_idx',
      unique: false,
      columns: ['tenant_id', 'subject_id', 'decided_at', 'id'],
    },
    { name: 'decisions_decided_at_idx', unique: false, columns: ['tenant_id', 'decided_at'] },
    {
      name: names.history,
      unique: true,
      columns: ['tenant_id', 'subject_id', 'template_id', 'seq'],
    },
    { name: names.pk, unique: true, columns: ['tenant_id', 'id'] },
  ].sort((x, y) => x.name.localeCompare(y.name));

/** The keys of `decisions` on SQLite once migration 0072 has run, under SQLite's names. */
const sqliteKeys = [
  {
    name: 'decisions_customer_time_idx',
    unique: false,
    columns: ['subject_id', 'decided_at', 'id'],
  },
  { name: 'decisions_decided_at_idx', unique: false, columns: ['tenant_id', 'decided_at'] },
  {
    name: 'sqlite_autoindex_decisions_1',
    unique: true,
    columns: ['id'],
  },
  {
    name: 'sqlite_autoindex_decisions_2',
    unique: true,
    columns: ['subject_id', 'template_id', 'seq'],
  },
];

/** Decisions as the service writes them: two tenants, two templates a customer, two each. */
function decisionRows(): DecisionsTable[] {
  const rows: DecisionsTable[] = [];
  for (const tenantId of [randomUUID(), randomUUID()]) {
    const templates = [randomUUID(), randomUUID()];
    for (let c = 0; c < 150; c += 1) {
      const subjectId = randomUUID();
      for (const [t, templateId] of templates.entries()) {
        for (const seq of [1, 2]) {
          rows.push({
            tenant_id: tenantId,
            // Random ids: the rows come in no key's order.
            id: randomUUID(),
            subject_id: subjectId,
            template_id: templateId,
            consent_version_id: randomUUID(),
            version: seq,
            decision: seq === 1 ? 'given' : 'withdraw',
            seq,
            decided_at: new Date(Date.UTC(2026, 0, 1) + c * 1000 + t * 10 + seq).toISOString(),
            api_key_id: randomUUID(),
            content_sha256: randomBytes(32).toString('hex'),
            idempotency_key: c % 3 === 0 ? `key-${c}-${t}-${seq}` : null,
            evidence_salt: randomBytes(16).toString('base64'),
            personal: randomBytes(100).toString('base64'),
          });
        }
      }
    }
  }
  return rows;
}

async function insertDecisions(db: Db, rows: readonly DecisionsTable[]) {
  for (let at = 0; at < rows.length; at += 100) {
    await db
      .insertInto('decisions')
      .values(rows.slice(at, at + 100))
      .execute();
  }
}

/** A store of the release before 0054, with the decisions of `decisionRows` in it. */
async function storeBefore0054(db: Db): Promise<DecisionsTable[]> {
  await migrateBefore(db, '0054');
  const written = decisionRows();
  await insertDecisions(db, written);
  return written;
}

const allRows = (db: Db) => rowsByTenantAndId(db, 'decisions');

describe.each(stores)('migration 0054, on $name', (store) => {
  const bare = useBareStore(store);

  it('keeps every decision; its keys by id, by history and by customer and time no longer carry the tenant (on SQLite from 0072 on), and still hold', async () => {
    const { db } = bare;
    const written = await storeBefore0054(db);
    const before = await allRows(db);
    expect(before).toHaveLength(written.length);
    const sqliteNames = {
      pk: 'sqlite_autoindex_decisions_1',
      history: 'sqlite_autoindex_decisions_2',
    };
    const postgresNames = { pk: 'decisions_pk', history: 'decisions_history_uq' };
    const postgres = isPostgres(db);
    expect(await indexesOf(db, 'decisions')).toEqual(
      keysBefore(postgres ? postgresNames : sqliteNames),
    );

    expect(await migrateToLatest(db, testDataKey)).toContain('0054-decision-keys-without-tenant');

    // 0059, applied with it, makes the text's hash optional: SQLite adds the column back empty.
    expect(await allRows(db)).toEqual(
      before.map((row) => (postgres ? row : { ...row, content_sha256: null })),
    );
    expect(await indexesOf(db, 'decisions')).toEqual(postgres ? keys : sqliteKeys);
    const first = written[0] as DecisionsTable;
    const again = (changes: Partial<DecisionsTable>) =>
      insertDecisions(db, [{ ...first, id: randomUUID(), ...changes }]);
    // The keys still hold: a decision's id, and a customer's place in a template's history.
    await expect(again({ id: first.id })).rejects.toThrow(/unique|duplicate/i);
    await expect(again({ seq: first.seq })).rejects.toThrow(/unique|duplicate/i);
    await again({ seq: 3 });
  });
});

describe('migration 0054, the reads of decisions on PostgreSQL', () => {
  const bare = useBareStore(postgresStore);

  it('each read of decisions by id, by customer and time and by history walks its key, with no sort', async () => {
    const { db } = bare;
    const written = await storeBefore0054(db);
    await migrateToLatest(db, testDataKey);
    await sql`analyze decisions`.execute(db);

    // The statements the service reads decisions with, as they run.
    const plans = planWatcher(db, bare.databaseUrl, ['decisions_']);
    const watched = plans.db;
    const read = plans.read;
    const first = written[0] as DecisionsTable;
    const { tenant_id: tenantId, subject_id: subjectId, template_id: templateId } = first;
    try {
      expect(await read(() => findDecisionWithTemplate(watched, tenantId, first.id))).toEqual([
        'decisions_pk',
      ]);
      expect(
        await read(() => findHistoryPage(watched, tenantId, subjectId, 10, undefined)),
      ).toEqual(['decisions_customer_time_idx']);
      const after = { decidedAt: first.decided_at, id: first.id };
      expect(await read(() => findHistoryPage(watched, tenantId, subjectId, 10, after))).toEqual([
        'decisions_customer_time_idx',
      ]);
      const at = '2027-01-01T00:00:00.000Z';
      expect(
        await read(() => findDecisionAsOf(watched, tenantId, subjectId, templateId, at)),
      ).toEqual(['decisions_history_uq']);
      // Bulk status: each customer's latest as of the moment, and the latest on the release.
      const status = { tenantId, templateId, at, releaseVersion: 2, channel: null };
      expect(
        await read(() =>
          findStatuses(watched, { ...status, releaseId: first.consent_version_id }, ['x']),
        ),
      ).toEqual(['decisions_history_uq', 'decisions_history_uq']);
    } finally {
      await plans.destroy();
    }
  });
});

describe('migration 0072, the reads of decisions on SQLite', () => {
  const bare = useBareStore(sqliteStore);

  it("each read of decisions by id, by customer and time and by history takes the key without the tenant, and never the tenant's key by time", async () => {
    const { db } = bare;
    await migrateBefore(db, '0072');
    const written = decisionRows();
    await insertDecisions(db, written);
    expect(await migrateToLatest(db, testDataKey)).toEqual([
      '0072-sqlite-keys-without-tenant',
      '0073-sqlite-states-without-tenant',
      '0074-sqlite-binary-ids',
    ]);

    const plans = planWatcher(db, bare.databaseUrl, ['decisions_', 'sqlite_autoindex_decisions']);
    const watched = plans.db;
    const read = plans.read;
    const first = written[0] as DecisionsTable;
    const { tenant_id: tenantId, subject_id: subjectId, template_id: templateId } = first;
    try {
      expect(await read(() => findDecisionWithTemplate(watched, tenantId, first.id))).toEqual([
        'sqlite_autoindex_decisions_1',
      ]);
      expect(
        await read(() => findHistoryPage(watched, tenantId, subjectId, 10, undefined)),
      ).toEqual(['decisions_customer_time_idx']);
      const after = { decidedAt: first.decided_at, id: first.id };
      expect(await read(() => findHistoryPage(watched, tenantId, subjectId, 10, after))).toEqual([
        'decisions_customer_time_idx',
      ]);
      const at = '2027-01-01T00:00:00.000Z';
      expect(
        await read(() => findDecisionAsOf(watched, tenantId, subjectId, templateId, at)),
      ).toEqual(['sqlite_autoindex_decisions_2']);
      // Bulk status: each customer's latest as of the moment, and the latest on the release, by
      // the history's key, each then found by its id.
      const status = { tenantId, templateId, at, releaseVersion: 2, channel: null };
      expect(
        await read(() =>
          findStatuses(watched, { ...status, releaseId: first.consent_version_id }, ['x']),
        ),
      ).toEqual([
        'sqlite_autoindex_decisions_1',
        'sqlite_autoindex_decisions_2',
        'sqlite_autoindex_decisions_1',
        'sqlite_autoindex_decisions_2',
      ]);
    } finally {
      await plans.destroy();
    }
  });
});

describe('migration 0054, on a PostgreSQL store partitioned by time', () => {
  const bare = useBareStore(postgresStore);

  it('gives the partitioned table the same keys, its primary key with the time and its history’s index plain', async () => {
    const { db } = bare;
    await storeBefore0054(db);
    const before = await allRows(db);
    await partitionByTime(db, timeTables(registry), 'month');

    expect(await migrateToLatest(db, testDataKey)).toContain('0054-decision-keys-without-tenant');

    expect(await allRows(db)).toEqual(before);
    expect(await indexesOf(db, 'decisions')).toEqual([
      keys[0],
      keys[1],
      {
        name: 'decisions_history_uq',
        unique: false,
        columns: ['subject_id', 'template_id', 'seq'],
      },
      { name: 'decisions_pk', unique: true, columns: ['id', 'decided_at'] },
    ]);
  });
});

describe('migration 0067, on PostgreSQL', () => {
  const bare = useBareStore(postgresStore);

  it("takes the id out of the customer's key by time; a customer's history reads page by page as before, the decisions of one moment in order of their id", async () => {
    const { db } = bare;
    await migrateBefore(db, '0067');
    expect(await keyColumns(db, 'decisions_customer_time_idx')).toEqual([
      'subject_id',
      'decided_at',
      'id',
    ]);
    // Other customers' decisions around, and one customer's five on a published text, three of
    // them at one moment.
    const { tenant } = await seedTenant(db);
    const tenantId = tenant.id;
    const version = await seedPublishedVersion(db, tenantId);
    const [first] = decisionRows();
    const subjectId = randomUUID();
    const moment = (ms: number) => new Date(Date.UTC(2026, 5, 1) + ms).toISOString();
    const ids = [
      '0190e8a0-0000-7000-8000-000000000005',
      '0190e8a0-0000-7000-8000-000000000002',
      '0190e8a0-0000-7000-8000-000000000009',
      '0190e8a0-0000-7000-8000-000000000001',
      '0190e8a0-0000-7000-8000-000000000007',
    ];
    const times = [moment(0), moment(5), moment(5), moment(5), moment(9)];
    const customers = ids.map((id, i) => ({
      ...(first as DecisionsTable),
      tenant_id: tenantId,
      id,
      subject_id: subjectId,
      template_id: version.template_id,
      consent_version_id: version.id,
      seq: i + 1,
      decided_at: times[i] as string,
    }));
    await insertDecisions(db, await sealedToStore(db, [...decisionRows(), ...customers]));
    // Newest first; at one moment, the greater id first.
    const expected = [
      '0190e8a0-0000-7000-8000-000000000007',
      '0190e8a0-0000-7000-8000-000000000009',
      '0190e8a0-0000-7000-8000-000000000002',
      '0190e8a0-0000-7000-8000-000000000001',
      '0190e8a0-0000-7000-8000-000000000005',
    ];
    const pages = async () => {
      const read: string[][] = [];
      let after: { decidedAt: string; id: string } | undefined;
      for (;;) {
        const page = await findHistoryPage(db, tenantId, subjectId, 2, after);
        if (page.length === 0) return read;
        read.push(page.map((row) => row.decision_id));
        const last = page.at(-1) as (typeof page)[number];
        after = { decidedAt: last.decided_at, id: last.decision_id };
      }
    };
    const paged = [expected.slice(0, 2), expected.slice(2, 4), expected.slice(4)];
    expect(await pages()).toEqual(paged);

    expect(await migrateToLatest(db, testDataKey)).toEqual([
      '0067-customer-time-key-without-id',
      '0068-log-nodes-from-level-6',
      '0069-log-entries-by-number',
      '0070-subject-times-timestamptz',
      '0071-states-without-tenant',
      '0072-sqlite-keys-without-tenant',
      '0073-sqlite-states-without-tenant',
      '0074-sqlite-binary-ids',
    ]);

    expect(await keyColumns(db, 'decisions_customer_time_idx')).toEqual([
      'subject_id',
      'decided_at',
    ]);
    expect(await pages()).toEqual(paged);
  });
});
