import { sql } from 'kysely';
import { type Executor, isPostgres, type Trx } from '../platform/db.js';
import { entryOfRecord, type LogKey, resolveLogKey } from '../platform/log-key.js';
import { batchStatement, type UnnestType } from '../platform/unnest.js';
import type { NodeId } from '../proof/index.js';
import type {
  TlogAuditsTable,
  TlogCheckpointsTable,
  TlogEntriesTable,
  TlogEpochsTable,
  TlogLogsTable,
  TlogNodesTable,
  TlogStateTable,
} from './table.js';

/** A log's origin line, until its first append fixes it in `tlog_logs`. */
export const defaultOrigin = (signer: { name: string }, logId: string) => `${signer.name}/${logId}`;

export const nodeKey = (node: NodeId) => `${node.level}:${node.index}`;
export const toHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
export const fromHex = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'));

/** Logs with leaves waiting, oldest waiting first. */
export async function logsWithPending(db: Executor, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('tlog_pending')
    .select('log_id')
    .groupBy('log_id')
    .orderBy((eb) => eb.fn.min('queued_at'))
    .limit(limit)
    .execute();
  return rows.map((row) => row.log_id);
}

export function findLog(db: Executor, logId: string): Promise<TlogLogsTable | undefined> {
  return db.selectFrom('tlog_logs').selectAll().where('log_id', '=', logId).executeTakeFirst();
}

export function findState(db: Executor, logId: string): Promise<TlogStateTable | undefined> {
  return db.selectFrom('tlog_state').selectAll().where('log_id', '=', logId).executeTakeFirst();
}

export function readPending(trx: Trx, logId: string, limit: number) {
  return trx
    .selectFrom('tlog_pending')
    .select(['record_id', 'leaf'])
    .where('log_id', '=', logId)
    .orderBy('queued_at')
    .orderBy('record_id')
    .limit(limit)
    .execute();
}

/** The hashes `tlog_nodes` holds of the given nodes, by `nodeKey` (those it has). */
export async function readStoredNodes(
  db: Executor,
  logId: string,
  nodes: readonly NodeId[],
): Promise<Map<string, Uint8Array>> {
  const found = new Map<string, Uint8Array>();
  if (nodes.length === 0) return found;
  // Each alternative names the whole primary key, so that both stores look each node up by it
  // (SQLite's multi-index OR, PostgreSQL's bitmap OR). With `log_id` outside the alternatives,
  // SQLite read every node of the log: 34 ms instead of 16 µs at 170 thousand nodes.
  const rows = await db
    .selectFrom('tlog_nodes')
    .select(['level', 'idx', 'hash'])
    .where((eb) =>
      eb.or(
        nodes.map((n) =>
          eb.and([eb('log_id', '=', logId), eb('level', '=', n.level), eb('idx', '=', n.index)]),
        ),
      ),
    )
    .execute();
  for (const row of rows) {
    found.set(nodeKey({ level: Number(row.level), index: Number(row.idx) }), fromHex(row.hash));
  }
  return found;
}

/**
 * The condition that an entry of `tlog_entries` is of this log, as the store's entries name it
 * (`LogKey`): by its id, or by the number the log's row gives it.
 */
function inLog(key: LogKey, logId: string) {
  return key === 'number'
    ? sql<boolean>`log_no = (select no from tlog_logs where log_id = ${logId})`
    : sql<boolean>`log_id = ${logId}`;
}

/**
 * An entry's leaf as 64 hex digits (or the text 0.4.0 logged), as every reader takes it: SQLite
 * keeps it as its 32 bytes where entries name their log by number (migration 0069), read as
 * hex here; PostgreSQL's `bytea` reads as hex on its own (src/platform/postgres.ts).
 */
function leafOf(db: Executor, key: LogKey) {
  return key === 'number' && !isPostgres(db)
    ? sql<string>`lower(hex(leaf))`.as('leaf')
    : sql<string>`leaf`.as('leaf');
}

/** The leaves of the entries with indexes in any of the runs [begin, end). */
export async function findLeavesInRuns(
  db: Executor,
  logId: string,
  runs: readonly { begin: number; end: number }[],
) {
  const key = await resolveLogKey(db);
  // As above: the log in every alternative, so each run is one range of the primary key.
  return db
    .selectFrom('tlog_entries')
    .select(['idx', leafOf(db, key)])
    .where((eb) =>
      eb.or(
        runs.map((run) =>
          eb.and([inLog(key, logId), eb('idx', '>=', run.begin), eb('idx', '<', run.end)]),
        ),
      ),
    )
    .execute();
}

/** An entry as an append gives it, of the log the append names: its leaf's hash as hex. */
export type NewEntry = Omit<TlogEntriesTable, 'log_id' | 'log_no'>;

const entryColumns = {
  idx: 'integer',
  record_id: 'id',
  leaf: 'log-leaf',
  integrated_at: 'log-time',
} as const satisfies Record<keyof NewEntry, UnnestType>;

// With the column that names the log, of each `LogKey`, first.
const entryTypes = { log_id: 'id', ...entryColumns } as const;
const numberedEntryTypes = { log_no: 'integer', ...entryColumns } as const;

const nodeTypes = {
  log_id: 'id',
  level: 'integer',
  idx: 'integer',
  hash: 'text',
} as const satisfies Record<keyof TlogNodesTable, UnnestType>;

// PostgreSQL: an append's rows in one statement (a list of values would be a new text for each
// size, built and parsed every time).
const manyEntries = batchStatement(entryTypes, (db, rows) =>
  db
    .insertInto('tlog_entries')
    .columns(Object.keys(entryTypes) as (keyof TlogEntriesTable)[])
    .expression(rows),
);

const manyNumberedEntries = batchStatement(numberedEntryTypes, (db, rows) =>
  db
    .insertInto('tlog_entries')
    .columns(Object.keys(numberedEntryTypes) as (keyof TlogEntriesTable)[])
    .expression(rows),
);

const manyNodes = batchStatement(nodeTypes, (db, rows) =>
  db
    .insertInto('tlog_nodes')
    .columns(Object.keys(nodeTypes) as (keyof TlogNodesTable)[])
    .expression(rows),
);

/** A log's number, from its row: made in the append's transaction, perhaps, by the store. */
async function logNumber(trx: Trx, logId: string): Promise<number> {
  const { no } = await trx
    .selectFrom('tlog_logs')
    .select('no')
    .where('log_id', '=', logId)
    .executeTakeFirstOrThrow();
  return Number(no);
}

/** An append's entries, of one log, named as the store's entries name it (`LogKey`). */
export async function insertEntries(
  trx: Trx,
  logId: string,
  entries: readonly NewEntry[],
): Promise<void> {
  if (entries.length === 0) return;
  const numbered = (await resolveLogKey(trx)) === 'number';
  const no = numbered ? await logNumber(trx, logId) : undefined;
  const rows: TlogEntriesTable[] = entries.map((entry) =>
    no === undefined ? { log_id: logId, ...entry } : { log_no: no, ...entry },
  );
  if (isPostgres(trx)) {
    await (numbered ? manyNumberedEntries : manyEntries).run(trx, rows);
    return;
  }
  for (const slice of slices(rows)) {
    // SQLite keeps the hash's bytes where entries name their log by number (`leafOf`).
    const values = numbered
      ? slice.map((row) => ({ ...row, leaf: sql<string>`unhex(${row.leaf})` }))
      : slice;
    await trx.insertInto('tlog_entries').values(values).execute();
  }
}

export async function insertNodes(trx: Trx, rows: readonly TlogNodesTable[]): Promise<void> {
  if (rows.length === 0) return;
  if (isPostgres(trx)) {
    await manyNodes.run(trx, rows);
    return;
  }
  for (const slice of slices(rows)) await trx.insertInto('tlog_nodes').values(slice).execute();
}

/** Rows a slice at a time: SQLite and PostgreSQL cap the parameters of one statement. */
function slices<T>(rows: readonly T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < rows.length; start += size) out.push(rows.slice(start, start + size));
  return out;
}

export function latestCheckpoint(
  db: Executor,
  logId: string,
): Promise<TlogCheckpointsTable | undefined> {
  return db
    .selectFrom('tlog_checkpoints')
    .selectAll()
    .where('log_id', '=', logId)
    .orderBy('size', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function findEntryByRecord(db: Executor, logId: string, recordId: string) {
  const key = await resolveLogKey(db);
  return db
    .selectFrom('tlog_entries')
    .select(['idx', leafOf(db, key), 'integrated_at'])
    .where(inLog(key, logId))
    .where('record_id', '=', recordId)
    .executeTakeFirst();
}

/** The log entries of these records (those appended so far), a slice of ids at a time. */
export async function findEntriesByRecords(
  db: Executor,
  logId: string,
  recordIds: readonly string[],
) {
  const key = await resolveLogKey(db);
  const rows: { record_id: string; idx: number | string; leaf: string }[] = [];
  for (const slice of slices(recordIds)) {
    rows.push(
      ...(await db
        .selectFrom('tlog_entries')
        .select(['record_id', 'idx', leafOf(db, key)])
        .where(inLog(key, logId))
        .where('record_id', 'in', slice)
        .execute()),
    );
  }
  return rows;
}

export async function insertLog(trx: Trx, row: TlogLogsTable): Promise<void> {
  // A log's number (`LogKey`): PostgreSQL's column gives the next one itself (an identity);
  // SQLite's is given here, the store's writes being one at a time.
  const numbered = !isPostgres(trx) && (await resolveLogKey(trx)) === 'number';
  const no = sql<number>`(select coalesce(max(no), 0) + 1 from tlog_logs)`;
  await trx
    .insertInto('tlog_logs')
    .values(numbered ? { ...row, no } : row)
    .execute();
}

/** The queued leaves of these records, once appended. */
export async function deletePending(
  trx: Trx,
  logId: string,
  recordIds: readonly string[],
): Promise<void> {
  await trx
    .deleteFrom('tlog_pending')
    .where('log_id', '=', logId)
    .where('record_id', 'in', recordIds)
    .execute();
}

export async function insertCheckpoint(trx: Trx, row: TlogCheckpointsTable): Promise<void> {
  await trx.insertInto('tlog_checkpoints').values(row).execute();
}

export async function insertState(trx: Trx, row: TlogStateTable): Promise<void> {
  await trx.insertInto('tlog_state').values(row).execute();
}

/**
 * Moves the log from `oldSize` to the new values: the compare-and-swap of appends. False when
 * another append moved it first.
 */
export async function moveStateFrom(
  trx: Trx,
  logId: string,
  oldSize: number,
  values: Omit<TlogStateTable, 'log_id'>,
): Promise<boolean> {
  const moved = await trx
    .updateTable('tlog_state')
    .set(values)
    .where('log_id', '=', logId)
    .where('size', '=', oldSize)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

/** Leaves waiting to be appended to the log. */
export async function countPending(db: Executor, logId: string): Promise<number> {
  const { n } = await db
    .selectFrom('tlog_pending')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('log_id', '=', logId)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** Every log's queued leaves together: how many, and when the oldest was queued. */
export async function pendingBacklog(
  db: Executor,
): Promise<{ queued: number; oldestQueuedAt: string | null }> {
  const row = await db
    .selectFrom('tlog_pending')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('n'),
      eb.fn.min('queued_at').as('oldest'),
    ])
    .executeTakeFirstOrThrow();
  return { queued: Number(row.n), oldestQueuedAt: row.oldest ?? null };
}

export async function insertAuditRun(db: Executor, row: TlogAuditsTable): Promise<void> {
  await db.insertInto('tlog_audits').values(row).execute();
}

export function findLastAuditRun(db: Executor, logId: string) {
  return db
    .selectFrom('tlog_audits')
    .selectAll()
    .where('log_id', '=', logId)
    .orderBy('ran_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

// The audit recomputes the log from the records themselves: the kinds of record name their
// tables (src/record-kinds), which are read here by name beside the log's own.

/** Every checkpoint of the log, smallest first. */
export function findCheckpoints(db: Executor, logId: string) {
  return db
    .selectFrom('tlog_checkpoints')
    .select(['size', 'root', 'note'])
    .where('log_id', '=', logId)
    .orderBy('size')
    .execute();
}

/** Up to `limit` entries from index `from` on, in order. */
export async function findEntriesFrom(db: Executor, logId: string, from: number, limit: number) {
  const key = await resolveLogKey(db);
  return db
    .selectFrom('tlog_entries')
    .select(['idx', 'record_id', leafOf(db, key)])
    .where(inLog(key, logId))
    .where('idx', '>=', from)
    .orderBy('idx')
    .limit(limit)
    .execute();
}

/** Stored nodes of one level with indexes in [begin, end). */
export function findNodesAtLevel(
  db: Executor,
  logId: string,
  level: number,
  begin: number,
  end: number,
) {
  return db
    .selectFrom('tlog_nodes')
    .select(['idx', 'hash'])
    .where('log_id', '=', logId)
    .where('level', '=', level)
    .where('idx', '>=', begin)
    .where('idx', '<', end)
    .execute();
}

/** A kind's records of the tenant whose customer or visitor was erased. */
export async function countErasedRows(db: Executor, table: string, tenantId: string) {
  // Every table of records names its subject by (tenant_id, subject_id), all this reads of any.
  const { count } = await db
    .selectFrom(`${table} as d` as 'decisions as d')
    .innerJoin('subjects as s', (join) =>
      join.onRef('s.tenant_id', '=', 'd.tenant_id').onRef('s.id', '=', 'd.subject_id'),
    )
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('d.tenant_id', '=', tenantId)
    .where('s.erased_at', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** A kind's records that are neither in the log nor queued for it (at most 1,000). */
export async function findUnlogged(db: Executor, table: string, logId: string): Promise<string[]> {
  // Every table of records names one by (tenant_id, id), which is all this reads of any.
  const key = await resolveLogKey(db);
  const rows = await db
    .selectFrom(`${table} as r` as 'decisions as r')
    .leftJoin('tlog_entries as e', (join) =>
      join.on(entryOfRecord(key, 'e', 'r.tenant_id', 'r.id')),
    )
    .leftJoin('tlog_pending as p', (join) =>
      join.onRef('p.log_id', '=', 'r.tenant_id').onRef('p.record_id', '=', 'r.id'),
    )
    .select('r.id')
    .where('r.tenant_id', '=', logId)
    .where('e.record_id', 'is', null)
    .where('p.record_id', 'is', null)
    .limit(1000)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Of these records, each one still queued for the log and each one's index in it. The queue is
 * read first: a record the integrator moves in between is then seen in the log, never in neither.
 */
export async function findLogPlaces(
  db: Executor,
  logId: string,
  recordIds: readonly string[],
): Promise<{ entries: Map<string, number>; queued: Set<string> }> {
  const entries = new Map<string, number>();
  const queued = new Set<string>();
  const key = await resolveLogKey(db);
  // Chunks keep each statement's parameters well under either store's limit.
  for (let start = 0; start < recordIds.length; start += 500) {
    const ids = recordIds.slice(start, start + 500);
    const waiting = await db
      .selectFrom('tlog_pending')
      .select('record_id')
      .where('log_id', '=', logId)
      .where('record_id', 'in', ids)
      .execute();
    for (const row of waiting) queued.add(row.record_id);
    const logged = await db
      .selectFrom('tlog_entries')
      .select(['record_id', 'idx'])
      .where(inLog(key, logId))
      .where('record_id', 'in', ids)
      .execute();
    for (const row of logged) entries.set(row.record_id, Number(row.idx));
  }
  return { entries, queued };
}

/**
 * The keys the store's logs are signed with; none on a store whose schema has no log yet (the
 * check made before migrating one).
 */
export async function logVerifierKeys(db: Executor): Promise<string[]> {
  try {
    const rows = await db.selectFrom('tlog_logs').select('verifier_key').distinct().execute();
    return rows.map((row) => row.verifier_key);
  } catch (error) {
    if (await hasLogTable(db)) throw error;
    return [];
  }
}

async function hasLogTable(db: Executor): Promise<boolean> {
  const tables = await db.introspection.getTables();
  return tables.some((table) => table.name === 'tlog_logs');
}

/** Every log with its origin and its size and root (none for a log not appended to yet). */
export function listLogStates(db: Executor) {
  return db
    .selectFrom('tlog_logs as l')
    .leftJoin('tlog_state as s', 's.log_id', 'l.log_id')
    .select(['l.log_id', 'l.tenant_id', 'l.origin', 's.size', 's.root'])
    .orderBy('l.log_id')
    .execute();
}

/** The root (hex) of the checkpoint of this size, if the store holds one. */
export async function findCheckpointRoot(
  db: Executor,
  logId: string,
  size: number,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('tlog_checkpoints')
    .select('root')
    .where('log_id', '=', logId)
    .where('size', '=', size)
    .executeTakeFirst();
  return row?.root;
}

export async function countEpochs(db: Executor, logId: string): Promise<number> {
  const row = await db
    .selectFrom('tlog_epochs')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('log_id', '=', logId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertEpoch(trx: Trx, row: TlogEpochsTable): Promise<void> {
  await trx.insertInto('tlog_epochs').values(row).execute();
}

export async function updateLogOrigin(trx: Trx, logId: string, origin: string): Promise<void> {
  await trx.updateTable('tlog_logs').set({ origin }).where('log_id', '=', logId).execute();
}
