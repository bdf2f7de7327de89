/**
 * A control kind's statements (`control-kind.ts`), over the two tables its folder declares: the
 * changes (append-only records) and the current states. On PostgreSQL one statement a batch
 * (one round trip whatever the batch's size); on SQLite, where a statement costs no round trip,
 * a prepared statement a row.
 */
import { type Kysely, sql } from 'kysely';
import { anySubscriber, subscribedSql } from '../journal/index.js';
import { type Executor, isPostgres, type Trx } from '../platform/db.js';
import { holdsServiceId, resolveIdType, sealedColumn, subjectLookup } from '../platform/id-type.js';
import { type PreparedQuery, paramRow, prepared } from '../platform/prepared.js';
import { answersInOrder, batchStatement, type UnnestType } from '../platform/unnest.js';
import { findLiveSubjectRow } from '../subjects/index.js';
import type { HistoryPageQuery, Standing } from './kind.js';

/** Where a control kind keeps its records, as its folder's `table.ts` declares them. */
export interface ControlTables {
  /** Append-only changes: `tenant_id`, `id`, the subject, the target's columns, `blocked`, evidence. */
  changes: string;
  /** The latest change of each target: its key, `subject_id`, `blocked`, `change_id`, `since`. */
  states: string;
  /** The columns naming what is controlled, in a change row (text). */
  target: readonly string[];
  /** Those of them that key a state, beside `tenant_id` (and `subject_id` with `bySubject`). */
  stateKey: readonly string[];
  /** Whether a state is the subject's own (a channel per customer), not the target's alone. */
  bySubject: boolean;
  /** The event type whose subscription a standing asks about. */
  eventType: string;
}

/**
 * The columns every control kind's table of changes has (append-only), beside the columns
 * naming its target: its folder's `table.ts` extends this.
 */
export interface ControlChangeColumns {
  tenant_id: string;
  id: string;
  /** The customer's subject (src/subjects): their id, address and user agent are in `personal`. */
  subject_id: string;
  /** 1: blocked from then on; 0: allowed again. */
  blocked: number;
  /** The API key that made it; null for a back-office user's change (`user_id`). */
  api_key_id: string | null;
  /** The back-office user who made it; null for an API key's change. */
  user_id: string | null;
  /** The `Idempotency-Key` the request carried, if any. */
  idempotency_key: string | null;
  /** Customer id, address and user agent, sealed under the subject's key. */
  personal: string;
  /** base64 random bytes behind the evidence commitment of the change's log leaf. */
  evidence_salt: string;
  changed_at: string;
}

/** The columns of every control kind's current states, beside its target's key. */
export interface ControlStateColumns {
  tenant_id: string;
  subject_id: string;
  blocked: number;
  /** The change that set it. */
  change_id: string;
  since: string;
}

/** A control change's row, its target's columns by name. */
export type ControlChangeRow = ControlChangeColumns & Record<string, string | number | null>;

/** A control's current state row, its key's columns by name. */
export type ControlStateRow = ControlStateColumns & Record<string, string | number>;

/** One change's target as the store stands before the batch: nulls where nothing is. */
export interface ControlStanding extends Standing {
  blocked: number | null;
  change_id: string | null;
  since: string | null;
}

/** What a batch asks about one change: the customer by look-up, the target's key. */
export interface ControlQuery {
  tenant_id: string;
  lookup: string;
  [key: string]: string;
}

const changeFixed = {
  tenant_id: 'id',
  id: 'id',
  subject_id: 'id',
  blocked: 'integer',
  api_key_id: 'id',
  user_id: 'id',
  idempotency_key: 'text',
  personal: 'sealed',
  evidence_salt: 'sealed',
  changed_at: 'text',
} as const satisfies Record<string, UnnestType>;

/** A target's column: an id of the service's (`product_id`, `decision_id`) or a name. */
const keyType = (column: string): UnnestType => (holdsServiceId(column) ? 'id' : 'text');

// The tables are the kind's, named by its declaration: the statements are built for them here.
const open = (db: Executor) => db as unknown as Kysely<Record<string, Record<string, unknown>>>;

/** The statements of one control kind, built once for its tables. */
export function controlStatements(tables: ControlTables) {
  const changeTypes: Record<string, UnnestType> = {
    ...changeFixed,
    ...Object.fromEntries(tables.target.map((column) => [column, keyType(column)])),
  };
  const changeColumns = Object.keys(changeTypes);
  const stateKey = ['tenant_id', ...(tables.bySubject ? ['subject_id'] : []), ...tables.stateKey];
  const stateTypes: Record<string, UnnestType> = {
    tenant_id: 'id',
    subject_id: 'id',
    ...Object.fromEntries(tables.stateKey.map((column) => [column, keyType(column)])),
    blocked: 'integer',
    change_id: 'id',
    since: 'text',
  };
  const stateColumns = Object.keys(stateTypes);

  const insertChange = prepared((db, p: (name: string) => never) =>
    open(db).insertInto(tables.changes).values(paramRow(changeColumns, p)),
  );
  const upsertState = prepared((db, p: (name: string) => never) =>
    open(db)
      .insertInto(tables.states)
      .values(paramRow(stateColumns, p))
      .onConflict((oc) =>
        oc.columns(stateKey).doUpdateSet({
          blocked: p('blocked'),
          change_id: p('change_id'),
          since: p('since'),
        }),
      ),
  );
  const currentState: PreparedQuery<string, { blocked: number; change_id: string; since: string }> =
    prepared((db, p: (name: string) => never) =>
      stateKey.reduce(
        (query, column) => query.where(column, '=', p(column)),
        open(db).selectFrom(tables.states).select(['blocked', 'change_id', 'since']),
      ),
    ) as never;

  // PostgreSQL: a batch's statements (src/platform/unnest.ts), built for the kind's tables.
  const askedTypes = {
    i: 'integer',
    tenant_id: 'id',
    lookup: 'text',
    ...Object.fromEntries(tables.stateKey.map((column) => [column, keyType(column)])),
  } as Record<string, UnnestType>;
  const on = stateKey.map((column) =>
    column === 'subject_id'
      ? sql`c.subject_id = s.id`
      : sql`c.${sql.id(column)} = q.${sql.id(column)}`,
  );
  const allStandings = batchStatement(
    askedTypes,
    (db, asked) =>
      sql<ControlStanding & { i: number }>`
      select q.i, s.id as subject_id, ${sealedColumn(db, 's.wrapped_key')} as wrapped_key,
        ${sealedColumn(db, 's.salt')} as salt,
        c.blocked, c.change_id, c.since,
        ${subscribedSql(sql.ref('q.tenant_id'), tables.eventType, 'any')} as event_wanted
      from (${asked}) as q
      left join subjects as s
        on s.tenant_id = q.tenant_id and s.lookup = ${subjectLookup(db, sql.ref('q.lookup'))}
      left join ${sql.table(tables.states)} as c on ${sql.join(on, sql` and `)}
    `,
    { writePath: true },
  );
  const insertAllChanges = batchStatement(
    changeTypes,
    (db, rows) =>
      open(db)
        .insertInto(tables.changes)
        .columns(changeColumns)
        .expression(rows as never),
    { writePath: true },
  );
  // PostgreSQL's upsert names the state's key by its name (`<states>_pk`): the same whether it
  // leads with the tenant or with the subject or decision alone, where a list of columns
  // matches one form only (as the customers' states' upserts do, decisions/repository.ts).
  const upsertAllStates = batchStatement(
    stateTypes,
    (_db, rows) => sql`
      insert into ${sql.table(tables.states)} (${sql.join(stateColumns.map((c) => sql.id(c)))})
      ${rows}
      on conflict on constraint ${sql.id(`${tables.states}_pk`)} do update
      set blocked = excluded.blocked, change_id = excluded.change_id, since = excluded.since
    `,
    { writePath: true },
  );

  /** Every change's standing, answered in the order asked. */
  async function standings(trx: Trx, queries: readonly ControlQuery[]): Promise<ControlStanding[]> {
    if (queries.length === 0) return [];
    if (!isPostgres(trx)) {
      const found: ControlStanding[] = [];
      for (const query of queries) found.push(await standingOf(trx, query));
      return found;
    }
    return answersInOrder(allStandings, trx, queries);
  }

  async function standingOf(trx: Trx, query: ControlQuery): Promise<ControlStanding> {
    const subject = await findLiveSubjectRow(trx, query.tenant_id, query.lookup);
    const state =
      subject || !tables.bySubject
        ? await currentState.first(trx, { ...query, subject_id: subject?.id ?? null })
        : undefined;
    return {
      subject_id: subject?.id ?? null,
      wrapped_key: subject?.wrapped_key ?? null,
      salt: subject?.salt ?? null,
      blocked: state?.blocked ?? null,
      change_id: state?.change_id ?? null,
      since: state?.since ?? null,
      event_wanted: await anySubscriber(trx, query.tenant_id, tables.eventType, 'any'),
    };
  }

  /** A batch's changes. */
  async function insertChanges(trx: Trx, rows: readonly ControlChangeRow[]): Promise<void> {
    if (rows.length === 0) return;
    if (!isPostgres(trx)) {
      for (const row of rows) await insertChange.run(trx, row);
      return;
    }
    await insertAllChanges.run(trx, rows);
  }

  /** A batch's new states, at most one a key (the batch keeps the last change of each). */
  async function saveStates(trx: Trx, rows: readonly ControlStateRow[]): Promise<void> {
    if (rows.length === 0) return;
    if (!isPostgres(trx)) {
      for (const row of rows) await upsertState.run(trx, row);
      return;
    }
    await upsertAllStates.run(trx, rows);
  }

  /**
   * Every column of a change, its sealed ones as base64 (`SealedType`): for reads built once
   * the store's types are read (`resolveIdType`).
   */
  const changeSelection = (db: Executor) =>
    Object.entries(changeTypes).map(([column, type]) =>
      type === 'sealed' ? sealedColumn(db, column).as(column) : column,
    );

  /** The tenant's changes of these ids. */
  async function changesByIds(db: Executor, tenantId: string, ids: readonly string[]) {
    await resolveIdType(db);
    return open(db)
      .selectFrom(tables.changes)
      .select(changeSelection(db))
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', ids)
      .execute() as Promise<ControlChangeRow[]>;
  }

  /** Every change of a subject, oldest first. */
  async function subjectChanges(db: Executor, tenantId: string, subjectId: string) {
    await resolveIdType(db);
    return open(db)
      .selectFrom(tables.changes)
      .select(changeSelection(db))
      .where('tenant_id', '=', tenantId)
      .where('subject_id', '=', subjectId)
      .orderBy('changed_at')
      .orderBy('id')
      .execute() as Promise<ControlChangeRow[]>;
  }

  /** The tenant's changes in a range of time, oldest first, after a position. */
  async function changesPage(db: Executor, tenantId: string, q: HistoryPageQuery) {
    await resolveIdType(db);
    let query = open(db)
      .selectFrom(tables.changes)
      .select(changeSelection(db))
      .where('tenant_id', '=', tenantId);
    if (q.from) query = query.where('changed_at', '>=', q.from);
    if (q.to) query = query.where('changed_at', '<', q.to);
    const after = q.after;
    if (after) {
      query = query.where((eb) =>
        eb.or([
          eb('changed_at', '>', after.changedAt),
          eb.and([eb('changed_at', '=', after.changedAt), eb('id', '>', after.id)]),
        ]),
      );
    }
    return query.orderBy('changed_at').orderBy('id').limit(q.limit).execute() as Promise<
      ControlChangeRow[]
    >;
  }

  /** A subject's current states, dropped with their erasure (their changes stay). */
  async function deleteSubjectStates(trx: Trx, tenantId: string, subjectId: string) {
    await open(trx)
      .deleteFrom(tables.states)
      .where('tenant_id', '=', tenantId)
      .where('subject_id', '=', subjectId)
      .execute();
  }

  return {
    standings,
    insertChanges,
    saveStates,
    changesByIds,
    subjectChanges,
    changesPage,
    deleteSubjectStates,
  };
}
