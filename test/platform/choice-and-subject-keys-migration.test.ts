import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { timeTables } from '../../src/app/time-tables.js';
import { findChoiceStandings } from '../../src/cookies/choice-standing-repository.js';
import {
  countSubjectCookieDecisions,
  findCookieDecisionRow,
  findCookieDecisionsByIds,
  findCustomerCookieDecisions,
  findLatestCustomerChoice,
} from '../../src/cookies/decisions-repository.js';
import type { CookieDecisionsTable as Choices } from '../../src/cookies/table.js';
import { type Db, isPostgres, type Trx } from '../../src/platform/db.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { partitionByTime } from '../../src/platform/partitions.js';
import { findSubjectRow } from '../../src/subjects/service.js';
import type { SubjectsTable } from '../../src/subjects/table.js';
import { testDataKey } from '../helpers/app.js';
import { indexesOf, planWatcher } from '../helpers/indexes.js';
import { migrateBefore } from '../helpers/schema-history.js';
import { rowsByTenantAndId } from '../helpers/sealed.js';
import { postgresStore, sqliteStore, stores, useBareStore } from '../helpers/stores.js';

/** A choice's row as releases before 0060 wrote it, with the configuration's hash. */
type CookieDecisionsTable = Choices & { content_sha256?: string };

/** The indexes of `cookie_decisions` before migration 0055 (on SQLite, before 0072). */
const keysBefore = (names: { pk: string; event: string }) =>
  [
    {
      name: 'cookie_decisions_customer',
      unique: false,
      columns: ['tenant_id', 'customer_subject_id', 'decided_at'],
    },
    { name: names.event, unique: true, columns: ['tenant_id', 'system_id', 'event_id'] },
    { name: names.pk, unique: true, columns: ['tenant_id', 'id'] },
    { name: 'cookie_decisions_subject_idx', unique: false, columns: ['tenant_id', 'subject_id'] },
    {
      name: 'cookie_decisions_system_time_idx',
      unique: false,
      columns: ['system_id', 'decided_at', 'id'],
    },
  ].sort((x, y) => x.name.localeCompare(y.name));

/** The indexes of `cookie_decisions` on PostgreSQL once 0055 has run, on a table not partitioned. */
const keys = [
  {
    name: 'cookie_decisions_customer',
    unique: false,
    columns: ['customer_subject_id', 'decided_at'],
  },
  { name: 'cookie_decisions_event_uq', unique: true, columns: ['system_id', 'event_id'] },
  { name: 'cookie_decisions_pk', unique: true, columns: ['id'] },
  { name: 'cookie_decisions_subject_idx', unique: false, columns: ['subject_id'] },
  {
    name: 'cookie_decisions_system_time_idx',
    unique: false,
    columns: ['system_id', 'decided_at', 'id'],
  },
];

/** Choices as the service writes them: two tenants, two websites each, two choices a visitor. */
function choiceRows(): CookieDecisionsTable[] {
  const rows: CookieDecisionsTable[] = [];
  for (const tenantId of [randomUUID(), randomUUID()]) {
    for (const systemId of [randomUUID(), randomUUID()]) {
      const configurationId = randomUUID();
      for (let v = 0; v < 100; v += 1) {
        const subjectId = randomUUID();
        // One visitor in four signed in, as a customer of the tenant.
        const customerSubjectId = v % 4 === 0 ? randomUUID() : null;
        for (const n of [0, 1]) {
          rows.push({
            tenant_id: tenantId,
            // Random ids: the rows come in no key's order.
            id: randomUUID(),
            system_id: systemId,
            configuration_id: configurationId,
            configuration_version: 1,
            content_sha256: randomBytes(32).toString('hex'),
            subject_id: subjectId,
            event_id: randomUUID(),
            method: n === 0 ? 'accept-all' : 'custom',
            categories: JSON.stringify({ necessary: true, analytics: n === 0 }),
            locale: 'th',
            origin: 'https://shop.example',
            region: 'TH',
            variant: null,
            customer_subject_id: customerSubjectId,
            customer: customerSubjectId && randomBytes(32).toString('base64'),
            personal: randomBytes(100).toString('base64'),
            evidence_salt: randomBytes(16).toString('base64'),
            decided_at: new Date(Date.UTC(2026, 0, 1) + v * 1000 + n).toISOString(),
          });
        }
      }
    }
  }
  return rows;
}

/** The subjects the choices name, visitors and signed-in customers, as the service keeps them. */
function subjectRows(choices: readonly CookieDecisionsTable[]): SubjectsTable[] {
  const ids = new Map<string, string>();
  for (const choice of choices) {
    ids.set(choice.subject_id, choice.tenant_id);
    if (choice.customer_subject_id) ids.set(choice.customer_subject_id, choice.tenant_id);
  }
  return [...ids].map(([id, tenantId]) => ({
    tenant_id: tenantId,
    id,
    lookup: randomBytes(32).toString('hex'),
    wrapped_key: randomBytes(60).toString('base64'),
    salt: randomBytes(16).toString('base64'),
    commitment: randomBytes(32).toString('base64'),
    created_at: '2026-01-01T00:00:00.000Z',
    erased_at: null,
  }));
}

async function insertChoices(db: Db, rows: readonly CookieDecisionsTable[]) {
  for (let at = 0; at < rows.length; at += 100) {
    await db
      .insertInto('cookie_decisions')
      .values(rows.slice(at, at + 100))
      .execute();
  }
}

/**
 * A store of the release before 0055 (or before `first`), with the choices of `choiceRows` and
 * their subjects.
 */
async function storeBefore0055(db: Db, first = '0055'): Promise<CookieDecisionsTable[]> {
  await migrateBefore(db, first);
  const written = choiceRows();
  await insertChoices(db, written);
  const subjects = subjectRows(written);
  for (let at = 0; at < subjects.length; at += 100) {
    await db
      .insertInto('subjects')
      .values(subjects.slice(at, at + 100))
      .execute();
  }
  return written;
}

/** Every choice and every subject. */
const allRows = async (db: Db) => ({
  choices: await rowsByTenantAndId(db, 'cookie_decisions'),
  subjects: await rowsByTenantAndId(db, 'subjects'),
});

/**
 * The indexes of `subjects`: its key by id without the tenant on PostgreSQL since 0055; its
 * look-up's key keeps the tenant (on PostgreSQL with the id carried, since 0049).
 */
const subjectKeys = (postgres: boolean, pk: { name: string; columns: string[] }) =>
  [
    {
      name: 'subjects_lookup_uq',
      unique: true,
      columns: ['tenant_id', 'lookup', ...(postgres ? ['id'] : [])],
    },
    { ...pk, unique: true },
  ].sort((x, y) => x.name.localeCompare(y.name));

describe.each(stores)('migration 0055, on $name', (store) => {
  const bare = useBareStore(store);

  it("keeps every choice and subject; the choices' keys by id, by event, by visitor and by customer (on SQLite from 0072 on), and on PostgreSQL the subjects' by id, no longer carry the tenant, and still hold", async () => {
    const { db } = bare;
    const written = await storeBefore0055(db);
    const before = await allRows(db);
    expect(before.choices).toHaveLength(written.length);
    const sqliteNames = {
      pk: 'sqlite_autoindex_cookie_decisions_1',
      event: 'sqlite_autoindex_cookie_decisions_2',
    };
    const postgresNames = { pk: 'cookie_decisions_pk', event: 'cookie_decisions_event_uq' };
    const postgres = isPostgres(db);
    expect(await indexesOf(db, 'cookie_decisions')).toEqual(
      keysBefore(postgres ? postgresNames : sqliteNames),
    );
    const subjectsPk = postgres ? 'subjects_pk' : 'sqlite_autoindex_subjects_1';
    expect(await indexesOf(db, 'subjects')).toEqual(
      subjectKeys(postgres, { name: subjectsPk, columns: ['tenant_id', 'id'] }),
    );

    expect(await migrateToLatest(db, testDataKey)).toContain(
      '0055-choice-and-subject-keys-without-tenant',
    );

    // 0060, applied with it, makes the configuration's hash optional: SQLite adds it back empty.
    expect(await allRows(db)).toEqual({
      ...before,
      choices: before.choices.map((row) => (postgres ? row : { ...row, content_sha256: null })),
    });
    expect(await indexesOf(db, 'cookie_decisions')).toEqual(
      postgres
        ? keys
        : keys
            .map((key) => ({
              ...key,
              name: key.name
                .replace('cookie_decisions_pk', sqliteNames.pk)
                .replace('cookie_decisions_event_uq', sqliteNames.event),
            }))
            .sort((x, y) => x.name.localeCompare(y.name)),
    );
    expect(await indexesOf(db, 'subjects')).toEqual(
      subjectKeys(postgres, { name: subjectsPk, columns: postgres ? ['id'] : ['tenant_id', 'id'] }),
    );
    const first = written[0] as CookieDecisionsTable;
    const again = (changes: Partial<CookieDecisionsTable>) =>
      insertChoices(db, [{ ...first, id: randomUUID(), event_id: randomUUID(), ...changes }]);
    // The keys still hold: a choice's id, and an event id within its website.
    await expect(again({ id: first.id })).rejects.toThrow(/unique|duplicate/i);
    await expect(again({ event_id: first.event_id })).rejects.toThrow(/unique|duplicate/i);
    // A subject's id.
    const subject = (await db
      .selectFrom('subjects')
      .selectAll()
      .executeTakeFirstOrThrow()) as SubjectsTable;
    await expect(
      db
        .insertInto('subjects')
        .values({ ...subject, lookup: 'another' })
        .execute(),
    ).rejects.toThrow(/unique|duplicate/i);
    // The same event id on another website is another choice.
    const other = written.find((row) => row.system_id !== first.system_id) as CookieDecisionsTable;
    await again({ event_id: first.event_id, system_id: other.system_id });
  });
});

describe('migration 0055, the reads of cookie choices on PostgreSQL', () => {
  const bare = useBareStore(postgresStore);

  it('each read of choices by id, by event, by visitor and by signed-in customer, and of a subject by id, walks its key, with no sort', async () => {
    const { db } = bare;
    const written = await storeBefore0055(db);
    await migrateToLatest(db, testDataKey);
    await sql`analyze cookie_decisions`.execute(db);

    // The statements the service reads choices with, as they run.
    const plans = planWatcher(db, bare.databaseUrl, ['cookie_decisions_', 'subjects_']);
    const { read, db: watched } = plans;
    const first = written[0] as CookieDecisionsTable;
    const { tenant_id: tenantId, system_id: systemId } = first;
    const signedIn = written.find((row) => row.customer_subject_id !== null);
    const customerId = signedIn?.customer_subject_id as string;
    try {
      // A choice with its signed-in customer's subject, by their keys.
      expect(await read(() => findCookieDecisionRow(watched, tenantId, first.id))).toEqual([
        'cookie_decisions_pk',
        'subjects_pk',
      ]);
      expect(await read(() => findSubjectRow(watched, tenantId, first.subject_id))).toEqual([
        'subjects_pk',
      ]);
      const ids = written.slice(0, 3).map((row) => row.id);
      expect(await read(() => findCookieDecisionsByIds(watched, tenantId, ids))).toEqual([
        'cookie_decisions_pk',
      ]);
      // A batch's look-up of each choice's retry, by its website and event id.
      const asked = { tenant_id: tenantId, system_id: systemId, event_id: first.event_id };
      const standings = () =>
        // A batch's look-up runs in its write's transaction; on PostgreSQL it is one
        // statement, which runs alike outside one.
        findChoiceStandings(watched as unknown as Trx, [
          { ...asked, lookup: 'a'.repeat(64), customer_lookup: null },
        ]);
      expect(await read(standings)).toEqual([
        'subjects_lookup_uq',
        'subjects_lookup_uq',
        'cookie_decisions_event_uq',
      ]);
      expect(
        await read(() => countSubjectCookieDecisions(watched, tenantId, first.subject_id)),
      ).toEqual(['cookie_decisions_subject_idx']);
      expect(
        await read(() => findLatestCustomerChoice(watched, tenantId, systemId, customerId)),
      ).toEqual(['cookie_decisions_customer']);
      // A customer's choices with their visitors' subjects (which of the subjects' keys a
      // table this small gets is the planner's guess): the choices by the customer's key.
      const customerChoices = await read(() =>
        findCustomerCookieDecisions(watched, tenantId, customerId),
      );
      expect(customerChoices.filter((index) => !index.startsWith('subjects_'))).toEqual([
        'cookie_decisions_customer',
      ]);
    } finally {
      await plans.destroy();
    }
  });
});

describe('migration 0072, the reads of cookie choices on SQLite', () => {
  const bare = useBareStore(sqliteStore);

  it("each read of choices by id, by event, by visitor and by signed-in customer takes the key without the tenant, and never the website's key by time", async () => {
    const { db } = bare;
    const written = await storeBefore0055(db, '0072');
    expect(await migrateToLatest(db, testDataKey)).toEqual([
      '0072-sqlite-keys-without-tenant',
      '0073-sqlite-states-without-tenant',
      '0074-sqlite-binary-ids',
    ]);

    const plans = planWatcher(db, bare.databaseUrl, [
      'cookie_decisions_',
      'sqlite_autoindex_cookie_decisions',
      'subjects_',
    ]);
    const { read, db: watched } = plans;
    const first = written[0] as CookieDecisionsTable;
    const { tenant_id: tenantId, system_id: systemId } = first;
    const signedIn = written.find((row) => row.customer_subject_id !== null);
    const customerId = signedIn?.customer_subject_id as string;
    const pk = 'sqlite_autoindex_cookie_decisions_1';
    try {
      // A choice with its signed-in customer's subject, by their keys (the subjects' is their
      // table's own, kept by key).
      expect(await read(() => findCookieDecisionRow(watched, tenantId, first.id))).toEqual([
        pk,
        'PRIMARY KEY',
      ]);
      const ids = written.slice(0, 3).map((row) => row.id);
      expect(await read(() => findCookieDecisionsByIds(watched, tenantId, ids))).toEqual([pk]);
      const asked = { tenant_id: tenantId, system_id: systemId, event_id: first.event_id };
      const standings = () =>
        findChoiceStandings(watched as unknown as Trx, [
          { ...asked, lookup: 'a'.repeat(64), customer_lookup: null },
        ]);
      // A batch's look-up of each choice's retry, by its website and event id, and of its
      // visitor's subject, one statement each on SQLite.
      expect(await plans.readEach(standings)).toEqual([
        ['sqlite_autoindex_cookie_decisions_2'],
        ['subjects_lookup_uq'],
        [],
      ]);
      expect(
        await read(() => countSubjectCookieDecisions(watched, tenantId, first.subject_id)),
      ).toEqual(['cookie_decisions_subject_idx']);
      // A signed-in customer's latest choice on a website by their key, those of one moment
      // then by id: a customer has few (the key's entries carry the row's number, not the id).
      expect(
        await read(() => findLatestCustomerChoice(watched, tenantId, systemId, customerId)),
      ).toEqual(['cookie_decisions_customer', 'a sort']);
      const customerChoices = await read(() =>
        findCustomerCookieDecisions(watched, tenantId, customerId),
      );
      // A customer's choices with their visitors' subjects: the choices by the customer's key.
      expect(customerChoices).toEqual([
        'cookie_decisions_customer',
        'PRIMARY KEY',
        'PRIMARY KEY',
        'a sort',
      ]);
    } finally {
      await plans.destroy();
    }
  });
});

describe('migration 0055, on a PostgreSQL store partitioned by time', () => {
  const bare = useBareStore(postgresStore);

  it('gives the partitioned table the same keys, its primary key with the time and its event’s index plain', async () => {
    const { db } = bare;
    await storeBefore0055(db);
    const before = await allRows(db);
    await partitionByTime(db, timeTables(registry), 'month');

    expect(await migrateToLatest(db, testDataKey)).toContain(
      '0055-choice-and-subject-keys-without-tenant',
    );

    expect(await allRows(db)).toEqual(before);
    expect(await indexesOf(db, 'cookie_decisions')).toEqual([
      keys[0],
      { name: 'cookie_decisions_event_uq', unique: false, columns: ['system_id', 'event_id'] },
      { name: 'cookie_decisions_pk', unique: true, columns: ['id', 'decided_at'] },
      keys[3],
      keys[4],
    ]);
  });
});
