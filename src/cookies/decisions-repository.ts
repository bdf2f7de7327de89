import { type Executor, isPostgres, type Trx } from '../platform/db.js';
import { resolveIdType, sealedColumn } from '../platform/id-type.js';
import { paramRow, prepared } from '../platform/prepared.js';
import { batchStatement, type UnnestType } from '../platform/unnest.js';
import type { CookieDecisionRecordRow, CookieDecisionRow, CookieDecisionsTable } from './table.js';

// A batch of choices (writes.ts) writes its rows in one set-based statement on
// PostgreSQL (one round trip whatever the batch's size), and a prepared statement a row on
// SQLite, where a statement costs no round trip.

type ChoiceColumn = keyof CookieDecisionsTable & string;

/** Every column of a choice, with its PostgreSQL array type: the record type names them all. */
const choiceTypes = {
  tenant_id: 'id',
  id: 'id',
  system_id: 'id',
  configuration_id: 'id',
  configuration_version: 'integer',
  subject_id: 'id',
  event_id: 'text',
  method: 'text',
  categories: 'text',
  locale: 'text',
  origin: 'text',
  region: 'text',
  variant: 'text',
  customer_subject_id: 'id',
  customer: 'text',
  personal: 'sealed',
  evidence_salt: 'sealed',
  decided_at: 'text',
} as const satisfies Record<ChoiceColumn, UnnestType>;

const choiceColumns = Object.keys(choiceTypes) as ChoiceColumn[];

const insertChoice = prepared((db, p: (name: ChoiceColumn) => never) =>
  db.insertInto('cookie_decisions').values(paramRow(choiceColumns, p)),
);

/**
 * A choice's sealed columns as base64 (`SealedType`), for reads built once the store's types
 * are read (`resolveIdType`).
 */
function sealedColumns(db: Executor) {
  return [
    sealedColumn(db, 'd.personal').as('personal'),
    sealedColumn(db, 'd.evidence_salt').as('evidence_salt'),
  ];
}

/** Every column of a choice but its sealed ones (`sealedColumns`). */
const plainColumns = choiceColumns
  .filter((column) => choiceTypes[column] !== 'sealed')
  .map((column) => `d.${column}` as const);

/**
 * Every column of a choice (`cookie_decisions as d`), its sealed ones as base64: for reads
 * built once the store's types are read (`resolveIdType`).
 */
export function choiceSelection(db: Executor) {
  return [...plainColumns, ...sealedColumns(db)];
}

const insertChoices = batchStatement(
  choiceTypes,
  (db, rows) => db.insertInto('cookie_decisions').columns(choiceColumns).expression(rows),
  { writePath: true },
);

/** A batch's choices. */
export async function insertCookieDecisions(
  trx: Trx,
  rows: readonly CookieDecisionsTable[],
): Promise<void> {
  if (rows.length === 0) return;
  if (!isPostgres(trx)) {
    for (const row of rows) await insertChoice.run(trx, row);
    return;
  }
  await insertChoices.run(trx, rows);
}

/** A page of a tenant's choices (of one system, or all), oldest first, after a position. */
export async function listCookieDecisionRows(
  db: Executor,
  tenantId: string,
  filter: { systemId?: string; after?: { decided_at: string; id: string } },
  limit: number,
): Promise<(CookieDecisionRow & { scope: string })[]> {
  await resolveIdType(db);
  let query = db
    .selectFrom('cookie_decisions as d')
    .innerJoin('cookie_systems as s', (j) =>
      j.onRef('s.tenant_id', '=', 'd.tenant_id').onRef('s.id', '=', 'd.system_id'),
    )
    .select(choiceSelection(db))
    .select('s.scope')
    .where('d.tenant_id', '=', tenantId);
  if (filter.systemId !== undefined) query = query.where('d.system_id', '=', filter.systemId);
  const after = filter.after;
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('d.decided_at', '>', after.decided_at),
        eb.and([eb('d.decided_at', '=', after.decided_at), eb('d.id', '>', after.id)]),
      ]),
    );
  }
  return query.orderBy('d.decided_at').orderBy('d.id').limit(limit).execute();
}

/** One website visitor's cookie decision of the tenant (the record behind its receipt). */
export async function findCookieDecisionRow(
  db: Executor,
  tenantId: string,
  decisionId: string,
): Promise<ReceiptCookieDecisionRow | undefined> {
  await resolveIdType(db);
  return withCustomerSalt(db)
    .where('d.tenant_id', '=', tenantId)
    .where('d.id', '=', decisionId)
    .executeTakeFirst();
}

/** A cookie decision as its receipt shows it: with the signed-in customer's salt, until erased. */
export type ReceiptCookieDecisionRow = CookieDecisionRecordRow & { customer_salt: string | null };

/**
 * A choice's columns as its record reads them. The SHA-256 of the configuration shown is the
 * configuration's (its content never changes once it leaves draft, and a choice is made only on
 * a published one): read from it, so that the choice's own copy can go.
 */
const recordColumns = [
  'd.tenant_id',
  'd.id',
  'd.system_id',
  'd.configuration_id',
  'd.configuration_version',
  'c.content_sha256',
  'd.subject_id',
  'd.event_id',
  'd.method',
  'd.categories',
  'd.locale',
  'd.origin',
  'd.region',
  'd.variant',
  'd.customer_subject_id',
  'd.customer',
  'd.decided_at',
] as const satisfies readonly (`d.${ChoiceColumn}` | 'c.content_sha256')[];

/** The tenant's choices, each with its configuration's hash. */
function choiceRecords(db: Executor) {
  return db
    .selectFrom('cookie_decisions as d')
    .innerJoin('cookie_configurations as c', (j) =>
      j.onRef('c.tenant_id', '=', 'd.tenant_id').onRef('c.id', '=', 'd.configuration_id'),
    )
    .select([...recordColumns, ...sealedColumns(db)]);
}

/** Choices, each with the salt of the customer it was made as (null: none, or erased). */
function withCustomerSalt(db: Executor) {
  return choiceRecords(db)
    .leftJoin('subjects as cs', (j) =>
      j.onRef('cs.tenant_id', '=', 'd.tenant_id').onRef('cs.id', '=', 'd.customer_subject_id'),
    )
    .select(sealedColumn<string | null>(db, 'cs.salt').as('customer_salt'));
}

/** The tenant's cookie decisions of these ids. */
export async function findCookieDecisionsByIds(
  db: Executor,
  tenantId: string,
  ids: readonly string[],
) {
  await resolveIdType(db);
  return choiceRecords(db).where('d.tenant_id', '=', tenantId).where('d.id', 'in', ids).execute();
}

/** How many cookie choices a visitor's subject made. */
export async function countSubjectCookieDecisions(
  db: Executor,
  tenantId: string,
  subjectId: string,
): Promise<number> {
  const { count } = await db
    .selectFrom('cookie_decisions')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('tenant_id', '=', tenantId)
    .where('subject_id', '=', subjectId)
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** The newest choice a signed-in customer made on a system, with its configuration's fingerprint. */
export function findLatestCustomerChoice(
  db: Executor,
  tenantId: string,
  systemId: string,
  customerSubjectId: string,
) {
  return db
    .selectFrom('cookie_decisions as d')
    .innerJoin('cookie_configurations as c', (j) =>
      j.onRef('c.tenant_id', '=', 'd.tenant_id').onRef('c.id', '=', 'd.configuration_id'),
    )
    .select([
      'd.id',
      'd.decided_at',
      'd.configuration_id',
      'd.configuration_version',
      'd.method',
      'd.categories',
      'c.fingerprint',
    ])
    .where('d.tenant_id', '=', tenantId)
    .where('d.customer_subject_id', '=', customerSubjectId)
    .where('d.system_id', '=', systemId)
    .orderBy('d.decided_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * A customer's choices made while signed in, on every system, oldest first: those whose visitor
 * was not erased since (an erased visitor's choice opens to no one, so it names no customer).
 */
export async function findCustomerCookieDecisions(
  db: Executor,
  tenantId: string,
  customerSubjectId: string,
): Promise<ReceiptCookieDecisionRow[]> {
  await resolveIdType(db);
  return withCustomerSalt(db)
    .innerJoin('subjects as v', (j) =>
      j.onRef('v.tenant_id', '=', 'd.tenant_id').onRef('v.id', '=', 'd.subject_id'),
    )
    .where('d.tenant_id', '=', tenantId)
    .where('d.customer_subject_id', '=', customerSubjectId)
    .where('v.lookup', 'is not', null)
    .orderBy('d.decided_at')
    .orderBy('d.id')
    .execute();
}
