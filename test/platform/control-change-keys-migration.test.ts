import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { timeTables } from '../../src/app/time-tables.js';
import { findSubjectChangeRows } from '../../src/channels/repository.js';
import type { ChannelChangesTable } from '../../src/channels/table.js';
import { findStatuses } from '../../src/consent-status/repository.js';
import { findChangesAsOf } from '../../src/partner-blocks/repository.js';
import type { PartnerBlockChangesTable } from '../../src/partner-blocks/table.js';
import { type Db, isPostgres } from '../../src/platform/db.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { partitionByTime } from '../../src/platform/partitions.js';
import { controlStatements } from '../../src/record-kinds/control-repository.js';
import { testDataKey } from '../helpers/app.js';
import { type IndexShape, indexesOf, planWatcher } from '../helpers/indexes.js';
import { migrateBefore } from '../helpers/schema-history.js';
import { rowsByTenantAndId } from '../helpers/sealed.js';
import { postgresStore, sqliteStore, stores, useBareStore } from '../helpers/stores.js';

const migration = '0056-control-change-keys-without-tenant';

/** Each table's indexes before 0056 (on SQLite, before 0072) and after it. */
const tables = {
  channel_changes: {
    before: [
      {
        name: 'channel_changes_channel_idx',
        columns: ['tenant_id', 'subject_id', 'product_id', 'channel', 'changed_at'],
      },
      { name: 'channel_changes_subject_idx', columns: ['tenant_id', 'subject_id', 'changed_at'] },
    ],
    after: [
      {
        name: 'channel_changes_channel_idx',
        columns: ['subject_id', 'product_id', 'channel', 'changed_at'],
      },
      { name: 'channel_changes_subject_idx', columns: ['subject_id', 'changed_at'] },
    ],
  },
  partner_block_changes: {
    before: [
      {
        name: 'partner_block_changes_decision_idx',
        columns: ['tenant_id', 'decision_id', 'partner_code', 'changed_at'],
      },
      {
        name: 'partner_block_changes_subject_idx',
        columns: ['tenant_id', 'subject_id', 'changed_at'],
      },
    ],
    after: [
      {
        name: 'partner_block_changes_decision_idx',
        columns: ['decision_id', 'partner_code', 'changed_at'],
      },
      { name: 'partner_block_changes_subject_idx', columns: ['subject_id', 'changed_at'] },
    ],
  },
};
type Table = keyof typeof tables;

/** A table's indexes: its key (`pk`, under the store's name for it) and the others, plain. */
function shapes(table: Table, when: 'before' | 'after', pk: { name: string; columns: string[] }) {
  const indexes: IndexShape[] = [
    ...tables[table][when].map((index) => ({ ...index, unique: false })),
    { ...pk, unique: true },
  ];
  return indexes.sort((x, y) => x.name.localeCompare(y.name));
}

interface Changes {
  channel_changes: ChannelChangesTable[];
  partner_block_changes: PartnerBlockChangesTable[];
}

/** Changes as the service writes them: two tenants, two changes of each kind a customer. */
function changeRows(): Changes {
  const rows: Changes = { channel_changes: [], partner_block_changes: [] };
  for (const tenantId of [randomUUID(), randomUUID()]) {
    const productId = randomUUID();
    for (let c = 0; c < 150; c += 1) {
      const subjectId = randomUUID();
      const decisionId = randomUUID();
      for (const n of [0, 1]) {
        const common = {
          tenant_id: tenantId,
          // Random ids: the rows come in no key's order.
          id: randomUUID(),
          subject_id: subjectId,
          blocked: n === 0 ? 1 : 0,
          api_key_id: randomUUID(),
          user_id: null,
          idempotency_key: null,
          personal: randomBytes(100).toString('base64'),
          evidence_salt: randomBytes(16).toString('base64'),
          changed_at: new Date(Date.UTC(2026, 0, 1) + c * 1000 + n).toISOString(),
        };
        rows.channel_changes.push({
          ...common,
          product_id: productId,
          product_code: 'savings',
          channel: 'sms',
        });
        rows.partner_block_changes.push({
          ...common,
          id: randomUUID(),
          decision_id: decisionId,
          partner_code: 'insurer',
        });
      }
    }
  }
  return rows;
}

/** A store of the release before 0056 (or before `first`), with the changes of `changeRows`. */
async function storeBefore0056(db: Db, first = '0056'): Promise<Changes> {
  await migrateBefore(db, first);
  const written = changeRows();
  for (let at = 0; at < written.channel_changes.length; at += 100) {
    await db
      .insertInto('channel_changes')
      .values(written.channel_changes.slice(at, at + 100))
      .execute();
    await db
      .insertInto('partner_block_changes')
      .values(written.partner_block_changes.slice(at, at + 100))
      .execute();
  }
  return written;
}

const allRows = async (db: Db) => ({
  channels: await rowsByTenantAndId(db, 'channel_changes'),
  partners: await rowsByTenantAndId(db, 'partner_block_changes'),
});

describe.each(stores)('migration 0056, on $name', (store) => {
  const bare = useBareStore(store);

  it('keeps every change; the control changes’ keys no longer carry the tenant (on SQLite from 0072 on), and still hold', async () => {
    const { db } = bare;
    const written = await storeBefore0056(db);
    const before = await allRows(db);
    expect(before.channels).toHaveLength(written.channel_changes.length);
    const postgres = isPostgres(db);
    const pkName = (table: Table) => (postgres ? `${table}_pk` : `sqlite_autoindex_${table}_1`);
    for (const table of Object.keys(tables) as Table[]) {
      expect(await indexesOf(db, table)).toEqual(
        shapes(table, 'before', { name: pkName(table), columns: ['tenant_id', 'id'] }),
      );
    }

    expect(await migrateToLatest(db, testDataKey)).toContain(migration);

    expect(await allRows(db)).toEqual(before);
    for (const table of Object.keys(tables) as Table[]) {
      expect(await indexesOf(db, table)).toEqual(
        shapes(table, 'after', { name: pkName(table), columns: ['id'] }),
      );
    }
    // The keys still hold: a change's id.
    const first = written.channel_changes[0] as ChannelChangesTable;
    await expect(db.insertInto('channel_changes').values(first).execute()).rejects.toThrow(
      /unique|duplicate/i,
    );
    const block = written.partner_block_changes[0] as PartnerBlockChangesTable;
    await expect(db.insertInto('partner_block_changes').values(block).execute()).rejects.toThrow(
      /unique|duplicate/i,
    );
  });
});

describe('migration 0056, the reads of control changes on PostgreSQL', () => {
  const bare = useBareStore(postgresStore);

  it('each read of changes by id, by customer, by decision and by channel as of a moment walks its key', async () => {
    const { db } = bare;
    const written = await storeBefore0056(db);
    await migrateToLatest(db, testDataKey);
    await sql`analyze channel_changes`.execute(db);
    await sql`analyze partner_block_changes`.execute(db);

    const plans = planWatcher(db, bare.databaseUrl, ['channel_changes_', 'partner_block_changes_']);
    const { read, db: watched } = plans;
    const first = written.channel_changes[0] as ChannelChangesTable;
    const block = written.partner_block_changes[0] as PartnerBlockChangesTable;
    const { tenant_id: tenantId, subject_id: subjectId } = first;
    const channels = controlStatements({
      changes: 'channel_changes',
      states: 'channel_states',
      target: ['product_id', 'product_code', 'channel'],
      stateKey: ['product_id', 'channel'],
      bySubject: true,
      eventType: 'channel.changed',
    });
    const at = '2027-01-01T00:00:00.000Z';
    try {
      expect(await read(() => channels.changesByIds(watched, tenantId, [first.id]))).toEqual([
        'channel_changes_pk',
      ]);
      expect(await read(() => channels.subjectChanges(watched, tenantId, subjectId))).toEqual([
        'channel_changes_subject_idx',
      ]);
      expect(await read(() => findSubjectChangeRows(watched, tenantId, subjectId, 10))).toEqual([
        'channel_changes_subject_idx',
      ]);
      // A release's decisions' blocks as of a moment, by decision, then sorted by time: the
      // changes of several decisions, which no one key orders (the tenant's key did not either).
      expect(await read(() => findChangesAsOf(watched, tenantId, [block.decision_id], at))).toEqual(
        ['a sort', 'partner_block_changes_decision_idx'],
      );
      // Bulk status with a channel: each customer's change by its id, the id that of their
      // channel's latest change as of the moment (a subquery, found in the plan inside the join).
      const status = {
        tenantId,
        templateId: randomUUID(),
        at,
        releaseId: randomUUID(),
        releaseVersion: 1,
        channel: { productId: first.product_id, channel: first.channel },
      };
      expect(await read(() => findStatuses(watched, status, ['x']))).toEqual([
        'channel_changes_pk',
        'channel_changes_channel_idx',
      ]);
    } finally {
      await plans.destroy();
    }
  });
});

describe('migration 0072, the reads of control changes on SQLite', () => {
  const bare = useBareStore(sqliteStore);

  it('each read of changes by id, by customer, by decision and by channel as of a moment takes the key without the tenant', async () => {
    const { db } = bare;
    const written = await storeBefore0056(db, '0072');
    expect(await migrateToLatest(db, testDataKey)).toEqual([
      '0072-sqlite-keys-without-tenant',
      '0073-sqlite-states-without-tenant',
      '0074-sqlite-binary-ids',
    ]);

    const plans = planWatcher(db, bare.databaseUrl, [
      'channel_changes_',
      'partner_block_changes_',
      'sqlite_autoindex_channel_changes',
      'sqlite_autoindex_partner_block_changes',
    ]);
    const { read, db: watched } = plans;
    const first = written.channel_changes[0] as ChannelChangesTable;
    const block = written.partner_block_changes[0] as PartnerBlockChangesTable;
    const { tenant_id: tenantId, subject_id: subjectId } = first;
    const channels = controlStatements({
      changes: 'channel_changes',
      states: 'channel_states',
      target: ['product_id', 'product_code', 'channel'],
      stateKey: ['product_id', 'channel'],
      bySubject: true,
      eventType: 'channel.changed',
    });
    const at = '2027-01-01T00:00:00.000Z';
    try {
      expect(await read(() => channels.changesByIds(watched, tenantId, [first.id]))).toEqual([
        'sqlite_autoindex_channel_changes_1',
      ]);
      // A customer's changes in order of time, those of one moment then by id: a customer has
      // few (the key's entries carry the row's number, not the id).
      expect(await read(() => channels.subjectChanges(watched, tenantId, subjectId))).toEqual([
        'channel_changes_subject_idx',
        'a sort',
      ]);
      expect(await read(() => findSubjectChangeRows(watched, tenantId, subjectId, 10))).toEqual([
        'channel_changes_subject_idx',
        'a sort',
      ]);
      // A release's decisions' blocks as of a moment, by decision, then sorted by time, as on
      // PostgreSQL.
      expect(await read(() => findChangesAsOf(watched, tenantId, [block.decision_id], at))).toEqual(
        ['partner_block_changes_decision_idx', 'a sort'],
      );
      const status = {
        tenantId,
        templateId: randomUUID(),
        at,
        releaseId: randomUUID(),
        releaseVersion: 1,
        channel: { productId: first.product_id, channel: first.channel },
      };
      // Bulk status with a channel: each customer's change by its id, the id that of their
      // channel's latest change as of the moment, by the channel's key.
      expect(await read(() => findStatuses(watched, status, ['x']))).toEqual([
        'sqlite_autoindex_channel_changes_1',
        'channel_changes_channel_idx',
        'a sort',
      ]);
    } finally {
      await plans.destroy();
    }
  });
});

describe('migration 0056, on a PostgreSQL store partitioned by time', () => {
  const bare = useBareStore(postgresStore);

  it('gives the partitioned tables the same keys, their primary keys with the time', async () => {
    const { db } = bare;
    await storeBefore0056(db);
    const before = await allRows(db);
    await partitionByTime(db, timeTables(registry), 'month');

    expect(await migrateToLatest(db, testDataKey)).toContain(migration);

    expect(await allRows(db)).toEqual(before);
    for (const table of Object.keys(tables) as Table[]) {
      expect(await indexesOf(db, table)).toEqual(
        shapes(table, 'after', { name: `${table}_pk`, columns: ['id', 'changed_at'] }),
      );
    }
  });
});
