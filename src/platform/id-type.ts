import { type DialectAdapter, type RawBuilder, sql } from 'kysely';
import { type Executor, isPostgres } from './db.js';
import { sqliteBase64Mark } from './sqlite-blobs.js';
import { findStoreSetting } from './store-settings-repository.js';

/**
 * The PostgreSQL type of the store's ids: `text` as every store has made them so far, or `uuid`
 * (16 bytes instead of 37, in every row and key that carries one). SQLite's are always text.
 */
export type IdType = 'text' | 'uuid';

/**
 * The columns a migration left in their old type on a PostgreSQL store, each with the setting
 * that says why and what `serve` warns at every start (docs/upgrades.md has a section for each).
 */
const keptAsText = [
  {
    setting: 'ids_kept_as_text',
    message:
      "The store's ids are text, not uuid: migration 0058 kept them so, as one of them is no " +
      'UUID; rows and keys take more room than they need. See docs/upgrades.md ("A store ' +
      'whose ids 0058 kept as text").',
  },
  {
    setting: 'decision_times_kept_as_text',
    message:
      "The store's decision times are text, not timestamptz: migration 0061 kept them so, as " +
      'decisions are partitioned by time; rows and keys take more room than they need. See ' +
      'docs/upgrades.md ("A store whose decision times 0061 kept as text").',
  },
  {
    setting: 'log_times_kept_as_text',
    message:
      "The log entries' times are text, not timestamptz: migration 0062 kept them so, as the " +
      'log is partitioned by time; its rows take more room than they need. See ' +
      'docs/upgrades.md ("A store whose log times 0062 kept as text").',
  },
  {
    setting: 'lookups_kept_as_text',
    message:
      "The subjects' look-ups are text, not bytea: migration 0063 kept them so, as one of them " +
      'is no HMAC in lowercase hex; rows and keys take more room than they need. See ' +
      'docs/upgrades.md ("A store whose subjects\' look-ups 0063 kept as text").',
  },
  {
    setting: 'sealed_kept_as_text',
    message:
      'The sealed columns are text, not bytea: migration 0066 kept them so, as one of their ' +
      'values is no base64 as the service writes it; rows take more room than they need. See ' +
      'docs/upgrades.md ("A store whose sealed columns 0066 kept as text").',
  },
] as const;

/**
 * What a migration kept in its old type on this store (none for a store it converted, and for
 * SQLite's): the warning for each, and the reason the store keeps in its setting.
 */
export async function typesKeptAsText(
  db: Executor,
): Promise<Array<{ message: string; reason: string }>> {
  const kept: Array<{ message: string; reason: string }> = [];
  for (const { setting, message } of keptAsText) {
    const reason = await findStoreSetting(db, setting);
    if (reason !== undefined) kept.push({ message, reason });
  }
  return kept;
}

/**
 * Whether a column named so holds one of the service's ids, of the store's id type: `id` and
 * `…_id`, but those that hold what a client, a provider or a standard names, and roles' (their
 * ids are names such as `admin`; a table's own `id` of roles is the one other, which 0058 keeps
 * too). Migration 0058 keeps its own copy of the list, as history.
 */
export function holdsServiceId(column: string): boolean {
  return (column === 'id' || column.endsWith('_id')) && !textIdColumns.includes(column);
}

const textIdColumns = [
  'customer_id',
  'event_id',
  'external_id',
  'client_id',
  'credential_id',
  'email_key_id',
  'role_id',
];

/**
 * The PostgreSQL type of the decisions' times (`decisions.decided_at` and the customer's states'
 * `last_decided_at`): `text` (ISO 8601, as SQLite keeps every time) or `timestamptz` (8 bytes
 * instead of 25, in the row and every key that holds one). Either reads as the same ISO text
 * (`postgres.ts`); a batch's array of them is typed as the columns are (`timeArrayType`).
 */
export type TimeType = 'text' | 'timestamptz';

/**
 * The PostgreSQL types of the log's entries (`tlog_entries`): their leaf's hash as 64 hex digits
 * of `text` or as 32 bytes of `bytea`, and the time each was logged as `text` or `timestamptz`.
 * Either reads as the same text (the hash's hex, the ISO time: `postgres.ts`); an append's
 * arrays are typed as the columns are (`unnest.ts`).
 */
export type LogEntryTypes = { leaf: 'text' | 'bytea'; time: TimeType };

/**
 * The PostgreSQL type of a subject's keyed look-up (`subjects.lookup`, an HMAC): 64 hex digits of
 * `text` or 32 bytes of `bytea`. Either reads as the same hex (`postgres.ts`); a statement gives
 * the look-ups it asks for as hex and decodes them for a `bytea` column (`subjectLookup`).
 */
export type LookupType = 'text' | 'bytea';

/**
 * What the keys of a customer's states (`customer_version_states`, `customer_template_states`)
 * lead with: the tenant's id, as every store has made them so far, or the subject's (PostgreSQL's
 * since migration 0064, SQLite's since 0073: a subject's id is never shared between tenants). A
 * read that must be answered from the key alone (`pending`'s) names the tenant only where the
 * key holds it; PostgreSQL's upserts name the key by its name, the same on both.
 */
export type StateKey = 'tenant' | 'subject';

/**
 * Whether a customer's states (`customer_version_states`, `customer_template_states`) name
 * their tenant in a column of their own, as every store has until a migration drops it
 * (PostgreSQL's 0071, 16 bytes a row; SQLite's 0073, 37; a subject's id is never shared between
 * tenants). Without it a tenant's states are found through its subjects, templates or versions
 * (`stateOfTenantRow`), and a new state is written without it.
 */
export type StateTenant = 'column' | 'none';

/**
 * The PostgreSQL type of the sealed columns: the personal fields sealed under a customer's key,
 * the salts of the evidence and of the subject, the subject's wrapped key and commitment
 * (`personal` and `evidence_salt` of `decisions`, `cookie_decisions`, `channel_changes`,
 * `partner_block_changes` and `request_steps`, `personal` of `subject_requests`, `wrapped_key`,
 * `salt` and `commitment` of `subjects`): base64 `text`, as every store has kept them so far,
 * or their bytes as `bytea` (three quarters of the size), all of them alike, read from
 * `decisions.personal`. Either reads as the same base64 (`sealedColumn`); a statement gives
 * them as base64 and decodes them for `bytea` columns (`sealedValue`, the `sealed` array type
 * of `unnest.ts`). A SQLite column keeps each value as it was given (a `text` column takes a
 * blob as it is): the service writes base64 text there, and reads each value as it is held,
 * text or bytes (`sealedColumn`).
 */
export type SealedType = 'text' | 'bytea';

/** The store's types as `knownTypes` gives them, once read. */
interface StoreTypes {
  ids: IdType;
  times: TimeType;
  log: LogEntryTypes;
  lookup: LookupType;
  stateKey: StateKey;
  stateTenant: StateTenant;
  sealed: SealedType;
  /**
   * The PostgreSQL type of a subject's times (`subjects.created_at` and `erased_at`): ISO text,
   * as every store has kept them so far, or `timestamptz` (8 bytes instead of 25). Either reads as
   * the same ISO text (`postgres.ts`); a batch of new subjects types its arrays of them so.
   */
  subjectTimes: TimeType;
  /** All of them as one key (`uuid timestamptz … subject none bytea timestamptz`). */
  key: string;
}

/** Each store's types, once read, by the adapter its connections and transactions share. */
const known = new WeakMap<DialectAdapter, StoreTypes>();

/** SQLite's types but the states' (`StateKey`, `StateTenant`), which are read from the store. */
const sqliteTypes = {
  ids: 'text',
  times: 'text',
  log: { leaf: 'text', time: 'text' },
  lookup: 'text',
  sealed: 'text',
  subjectTimes: 'text',
} as const satisfies Partial<StoreTypes>;

/**
 * The store's types if they are known without asking it: once `resolveIdType` (or a statement
 * of `prepared.ts`) has read them.
 */
export function knownTypes(db: Executor): StoreTypes | undefined {
  return known.get(db.getExecutor().adapter);
}

/** The store's id type if it is known without asking it, once `resolveIdType` has read it. */
export function knownIdType(db: Executor): IdType | undefined {
  return knownTypes(db)?.ids;
}

/**
 * The store's types as one key (`StoreTypes.key`), known as `knownIdType` is:
 * what a statement compiled for the store's types is kept under (`prepared.ts`), read on each
 * of its runs.
 */
export function knownTypesKey(db: Executor): string | undefined {
  return knownTypes(db)?.key;
}

/** The type of the decisions' times, known as `knownIdType` is (read with it). */
export function knownTimeType(db: Executor): TimeType | undefined {
  return knownTypes(db)?.times;
}

/**
 * Forgets the store's id type, to be read again by the next statement: migrations may change it
 * (0058 makes PostgreSQL's ids `uuid`), and a handle that ran statements before them knew the old.
 */
export function forgetIdType(db: { getExecutor(): { readonly adapter: DialectAdapter } }): void {
  known.delete(db.getExecutor().adapter);
}

/** The reads under way, one a store: the first statements of a new handle often come at once. */
const reading = new WeakMap<DialectAdapter, Promise<IdType>>();

/**
 * Reads the type of `decisions.id` from the store's catalogue, once a store: every id column
 * of the service has the same type, since PostgreSQL compares no `text` with a `uuid` (SQLite's
 * are text; of its types only the states' are read, `StateKey` and `StateTenant`). A store not
 * yet migrated answers `text` and is asked again next time. Statements that start together
 * on a new handle wait for the one read (a thousand look-ups at once would otherwise each ask,
 * and hold the pool's connections for it). The read runs on the first one's connection: when
 * that fails (a transaction already failed), the others read on their own.
 */
export function resolveIdType(db: Executor): Promise<IdType> {
  const now = knownIdType(db);
  if (now) return Promise.resolve(now);
  const adapter = db.getExecutor().adapter;
  const shared = reading.get(adapter);
  if (shared) return shared.catch(() => readIdType(db, adapter));
  const read = readIdType(db, adapter).finally(() => reading.delete(adapter));
  reading.set(adapter, read);
  return read;
}

/** The type of the decisions' times, read as `resolveIdType` reads the ids' (with them). */
export async function resolveTimeType(db: Executor): Promise<TimeType> {
  if (knownTimeType(db) === undefined) await resolveIdType(db);
  return knownTimeType(db) ?? 'text';
}

async function readIdType(db: Executor, adapter: DialectAdapter): Promise<IdType> {
  if (!isPostgres(db)) return readSqliteTypes(db, adapter);
  // The state key's first column comes in the same round trip, as a row of its own.
  const { rows } = await sql<{ table_name: string; column_name: string; data_type: string }>`select
      table_name::text, column_name::text, data_type::text
    from information_schema.columns
    where table_schema = current_schema()
      and ((table_name = 'decisions' and column_name in ('id', 'decided_at', 'personal'))
        or (table_name = 'tlog_entries' and column_name in ('leaf', 'integrated_at'))
        or (table_name = 'subjects' and column_name in ('lookup', 'created_at'))
        or (table_name = 'customer_version_states' and column_name = 'tenant_id'))
    union all
    select 'customer_version_states_pk', a.attname::text, 'key'
    from pg_index as i
    join pg_attribute as a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
    where i.indexrelid = to_regclass('customer_version_states_pk')`.execute(db);
  const typeOf = (table: string, column: string) =>
    rows.find((row) => row.table_name === table && row.column_name === column)?.data_type;
  const timeOf = (table: string, column: string): TimeType =>
    typeOf(table, column) === 'timestamp with time zone' ? 'timestamptz' : 'text';
  const ids: IdType = typeOf('decisions', 'id') === 'uuid' ? 'uuid' : 'text';
  const times = timeOf('decisions', 'decided_at');
  const log: LogEntryTypes = {
    leaf: typeOf('tlog_entries', 'leaf') === 'bytea' ? 'bytea' : 'text',
    time: timeOf('tlog_entries', 'integrated_at'),
  };
  const lookup: LookupType = typeOf('subjects', 'lookup') === 'bytea' ? 'bytea' : 'text';
  const stateKey: StateKey =
    typeOf('customer_version_states_pk', 'subject_id') === 'key' ? 'subject' : 'tenant';
  const stateTenant: StateTenant =
    typeOf('customer_version_states', 'tenant_id') === undefined ? 'none' : 'column';
  const sealed: SealedType = typeOf('decisions', 'personal') === 'bytea' ? 'bytea' : 'text';
  const subjectTimes = timeOf('subjects', 'created_at');
  if (rows.length > 0) {
    const key = `${ids} ${times} ${log.leaf} ${log.time} ${lookup} ${stateKey} ${stateTenant} ${sealed} ${subjectTimes}`;
    known.set(adapter, {
      ids,
      times,
      log,
      lookup,
      stateKey,
      stateTenant,
      sealed,
      subjectTimes,
      key,
    });
  }
  return ids;
}

/** SQLite's types: the states' key and tenant column, read from `customer_version_states`. */
async function readSqliteTypes(db: Executor, adapter: DialectAdapter): Promise<IdType> {
  const { rows } = await sql<{ name: string; pk: number }>`select name, pk
    from pragma_table_info('customer_version_states')`.execute(db);
  if (rows.length === 0) return 'text';
  const stateKey: StateKey =
    rows.find((row) => row.pk === 1)?.name === 'subject_id' ? 'subject' : 'tenant';
  const stateTenant: StateTenant = rows.some((row) => row.name === 'tenant_id') ? 'column' : 'none';
  known.set(adapter, {
    ...sqliteTypes,
    stateKey,
    stateTenant,
    key: `sqlite ${stateKey} ${stateTenant}`,
  });
  return 'text';
}

/**
 * The array type of a batch's ids in a PostgreSQL statement (`unnest($1::uuid[])`): a typed
 * array is compared only with columns of its element's type. For a statement compiled once the
 * store's type is known (`prepared.ts` reads it before compiling).
 */
export function idArrayType(db: Executor): RawBuilder<unknown> {
  return sql.raw(`${knownIdType(db) ?? 'text'}[]`);
}

/** The array type of a batch's decision times, as `idArrayType` is of its ids. */
export function timeArrayType(db: Executor): RawBuilder<unknown> {
  return sql.raw(`${knownTimeType(db) ?? 'text'}[]`);
}

/** The array type of a batch's subjects' times, as `idArrayType` is of its ids. */
export function subjectTimeArrayType(db: Executor): RawBuilder<unknown> {
  return sql.raw(`${knownTypes(db)?.subjectTimes ?? 'text'}[]`);
}

/** The array type of an append's times, as `idArrayType` is of its ids. */
export function logTimeArrayType(db: Executor): RawBuilder<unknown> {
  return sql.raw(`${knownTypes(db)?.log.time ?? 'text'}[]`);
}

/**
 * A subject's look-up, given as hex (a parameter, a column of a batch's rows), as
 * `subjects.lookup` holds it: as it is in a `text` column, decoded in the statement for a
 * `bytea` one. For a statement compiled once the store's types are known (`prepared.ts`, or
 * after `resolveIdType`).
 */
export function subjectLookup(db: Executor, hex: unknown): RawBuilder<string> {
  return knownTypes(db)?.lookup === 'bytea' ? sql`decode(${hex}, 'hex')` : sql`${hex}`;
}

/**
 * The condition that a customer's state (`alias`: `customer_version_states`) is the tenant's,
 * for a read answered from the state's key alone (`pending`'s): where the key leads with the
 * tenant, the condition a seek needs; where it leads with the subject (0064), none, since the
 * subject, found by the tenant's look-up, is the tenant's already, and a tenant column outside
 * the key would send the read to the table. For a statement compiled once the store's types are
 * known, as `subjectLookup` is.
 */
export function stateOfTenant(db: Executor, alias: string, tenant: unknown): RawBuilder<boolean> {
  return knownTypes(db)?.stateKey === 'subject'
    ? sql`true`
    : sql`${sql.ref(`${alias}.tenant_id`)} = ${tenant}`;
}

/**
 * The condition that a customer's state (`alias`: a row of `customer_version_states` or
 * `customer_template_states`) is the tenant's, on its own column where the store has one
 * (`StateTenant`): SQLite's keys lead with it while it is there, so its reads need it. Without
 * the column, none: each statement that reads states reaches them through the tenant's subject,
 * template or version, named with the tenant. For a statement compiled once the store's types
 * are known, as `subjectLookup` is.
 */
export function stateOfTenantRow(
  db: Executor,
  alias: string,
  tenant: unknown,
): RawBuilder<boolean> {
  return typesRead(db).stateTenant === 'none'
    ? sql`true`
    : sql`${sql.ref(`${alias}.tenant_id`)} = ${tenant}`;
}

/** Whether new states are written with their tenant's id (`StateTenant`), as `stateOfTenantRow`. */
export function statesNameTenant(db: Executor): boolean {
  return typesRead(db).stateTenant === 'column';
}

/**
 * The store's types, for a statement that cannot be built right without them:
 * known once `resolveIdType` (or a statement of `prepared.ts`) has read them. Building such a
 * statement before is a fault of the code, not of the store.
 */
function typesRead(db: Executor): StoreTypes {
  const types = knownTypes(db);
  if (!types)
    throw new Error("the store's column types must be read before this statement is built");
  return types;
}

/**
 * A sealed column (`SealedType`) read as base64 text, whichever its type: as it is from
 * `text`, encoded in the statement from `bytea` (PostgreSQL's base64 breaks lines every 76
 * characters; Node's, which sealed them, does not: `replace` takes the breaks out in a third of
 * the time `translate` does, bench/notebook.md). On SQLite each value is read as it is held:
 * text as it is, a blob as its hex marked to be made base64 by the connection that reads it
 * (`sqlite-blobs.ts`). For a statement built once the store's types are known
 * (`resolveIdType`, or `prepared.ts`).
 */
export function sealedColumn<T extends string | null = string>(
  db: Executor,
  column: string,
): RawBuilder<T> {
  const ref = sql.ref(column);
  if (!isPostgres(db)) {
    return sql<T>`case typeof(${ref}) when 'blob' then ${sql.raw(sqliteBase64Mark)} || hex(${ref})
      else ${ref} end`;
  }
  if (typesRead(db).sealed === 'text') return sql<T>`${ref}`;
  return sql<T>`replace(encode(${ref}, 'base64'), E'\\n', '')`;
}

/**
 * A sealed value, given as base64 (a parameter, a column of a batch's rows), as the sealed
 * columns hold it: as it is in `text`, decoded in the statement for `bytea`. Built as
 * `sealedColumn` is.
 */
export function sealedValue(db: Executor, base64: unknown): RawBuilder<string> {
  if (!isPostgres(db) || typesRead(db).sealed === 'text') return sql<string>`${base64}`;
  return sql<string>`decode(${base64}, 'base64')`;
}
