/**
 * `pending`'s one read: the customer's state on a version, found by their keyed look-up. Where it
 * runs depends on the store (docs/architecture.md, "Reads: `latest` and `pending`"):
 * - an SQLite file: on a reader thread, so a read that waits for the disk never stalls the event
 *   loop;
 * - PostgreSQL: the look-ups of the same turn of the event loop as one prepared statement over
 *   the batch, each request handed its own row; on a streaming replica (`DATABASE_READ_URL`) that
 *   has replayed every write answered before, else on the primary;
 * - an SQLite store in memory: on the main connection, which nothing else can reach.
 */
import { sql } from 'kysely';
import { type Db, isPostgres } from '../platform/db.js';
import {
  idArrayType,
  knownIdType,
  resolveIdType,
  stateOfTenant,
  subjectLookup,
} from '../platform/id-type.js';
import { prepared } from '../platform/prepared.js';
import { batchedReads } from '../platform/read-batches.js';
import type { ReaderThreads } from '../platform/reader-threads.js';
import type { Replicas } from '../platform/replicas.js';
import type { PendingReads, VersionState } from './pending.js';

// It names its columns: on PostgreSQL a prepared `select *` fails once a column is added by a
// newer instance's migration.
export const customerVersionState = prepared(
  (db, p: (name: 'tenantId' | 'lookup' | 'versionId') => never) =>
    db
      .selectFrom('subjects as s')
      .innerJoin('customer_version_states as cv', (j) =>
        j.on(stateOfTenant(db, 'cv', sql.ref('s.tenant_id'))).onRef('cv.subject_id', '=', 's.id'),
      )
      .select(['cv.last_decision', 'cv.last_decided_at'])
      .where('s.tenant_id', '=', p('tenantId'))
      .where('s.lookup', '=', subjectLookup(db, p('lookup')))
      .where('cv.consent_version_id', '=', p('versionId')),
);

/**
 * PostgreSQL: a batch of look-ups as rows of arrays (one parameter per column, as `unnest.ts`
 * does), each answered with its position: the text never changes with the batch's size, so the
 * server prepares it once per connection. Both joins are index-only scans: the look-up index
 * carries the subject's id and the state's key the two columns read (migration 0049), and the
 * state's tenant is named only where that key holds it (`stateOfTenant`, migration 0064).
 */
export const customerVersionStates = prepared(
  (db, p: (name: 'positions' | 'tenantIds' | 'lookups' | 'versionIds') => never) => ({
    compile: () =>
      sql<VersionState & { i: number }>`select q.i, cv.last_decision, cv.last_decided_at
        from unnest(${p('positions')}::integer[], ${p('tenantIds')}::${idArrayType(db)},
          ${p('lookups')}::text[], ${p('versionIds')}::${idArrayType(db)}) as q(i, tenant_id, lookup, version_id)
        join subjects as s on s.tenant_id = q.tenant_id
          and s.lookup = ${subjectLookup(db, sql.ref('q.lookup'))}
        join customer_version_states as cv on ${stateOfTenant(db, 'cv', sql.ref('q.tenant_id'))}
          and cv.subject_id = s.id and cv.consent_version_id = q.version_id`.compile(db),
  }),
);

interface Asked {
  tenantId: string;
  lookup: string;
  versionId: string;
}

/**
 * `pending`'s reads for the store: on an SQLite file through `readers` (the store's reader
 * threads), on PostgreSQL in batches, at most `inFlight` statements at once.
 */
export function pendingReads(
  db: Db,
  readers: ReaderThreads | undefined,
  inFlight: number,
  replicas?: Replicas,
): PendingReads {
  if (isPostgres(db)) {
    const read = batchedReads<Asked, VersionState | undefined>(async (batch) => {
      const values = {
        positions: batch.map((_, i) => i),
        tenantIds: batch.map((one) => one.tenantId),
        lookups: batch.map((one) => one.lookup),
        versionIds: batch.map((one) => one.versionId),
      };
      // A replica serves the batch once it has every decision answered before it was asked.
      const { rows } = replicas
        ? await replicas.read((on) => customerVersionStates.run(on, values))
        : await customerVersionStates.run(db, values);
      const answers: Array<VersionState | undefined> = new Array(batch.length);
      for (const { i, ...state } of rows) answers[i] = state;
      return answers;
    }, inFlight);
    return { versionState: (tenantId, lookup, versionId) => read({ tenantId, lookup, versionId }) };
  }
  if (readers) {
    return {
      async versionState(tenantId, lookup, versionId) {
        // Compiled here for the store's types (the states' key), read once a store.
        if (knownIdType(db) === undefined) await resolveIdType(db);
        const query = customerVersionState.bind(db, { tenantId, lookup, versionId });
        return (await readers.run(query)).rows[0];
      },
    };
  }
  return {
    versionState: (tenantId, lookup, versionId) =>
      customerVersionState.first(db, { tenantId, lookup, versionId }),
  };
}
