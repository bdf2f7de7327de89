import { type Kysely, SqliteAdapter, sql } from 'kysely';

/**
 * `erased_evidence`: the evidence commitment of each record whose subject was erased, kept by
 * the erasure from the record's fields while they still opened, so that the log's audit rebuilds
 * the record's whole leaf from the store once the fields are gone (docs/erasure.md). On SQLite
 * the table is kept in its key's order (`WITHOUT ROWID`, as 0050's are).
 *
 * The subjects erased before this migration have their records' fields gone already: theirs are
 * taken from their leaves as logged (or still queued), which is what the audit checked them by
 * until now. The erased subjects are found in one pass over `subjects`, and only their records
 * are read, by each table's subject index and the log's record index: the time is that pass (0.3
 * s a million customers with the table in memory, on both stores) and grows with the erasures
 * made, not with the records.
 */
const sealedTables = [
  'decisions',
  'cookie_decisions',
  'channel_changes',
  'partner_block_changes',
  'request_steps',
] as const;

/** The evidence line every leaf format with an evidence commitment has. */
const evidenceLine = /\nevidence (\S+)\n/;

export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await sql
    .raw(`create table erased_evidence (
      tenant_id text not null,
      record_id text not null,
      evidence text not null,
      constraint erased_evidence_pk primary key (tenant_id, record_id)
    )${sqlite ? ' without rowid' : ''}`)
    .execute(db);
  await keepErasedEvidence(db);
}

/**
 * Fills `erased_evidence` for the records of every erased subject from their leaves as logged
 * (as text) or queued, leaving any record it already has a row for as it is.
 */
export async function keepErasedEvidence(db: Kysely<unknown>): Promise<void> {
  const { rows: erased } = await sql<{ tenant_id: string; id: string }>`
    select tenant_id, id from subjects where erased_at is not null`.execute(db);
  for (let start = 0; start < erased.length; start += 200) {
    const subjects = erased.slice(start, start + 200);
    for (const table of sealedTables) {
      const { rows } = await sql<{ tenant_id: string; record_id: string; leaf: string | null }>`
        select r.tenant_id, r.id as record_id, coalesce(e.leaf, p.leaf) as leaf
        from ${sql.table(table)} r
        left join tlog_entries e on e.log_id = r.tenant_id and e.record_id = r.id
        left join tlog_pending p on p.log_id = r.tenant_id and p.record_id = r.id
        where ${sql.join(
          subjects.map((s) => sql`(r.tenant_id = ${s.tenant_id} and r.subject_id = ${s.id})`),
          sql` or `,
        )}`.execute(db);
      const kept = rows.flatMap(({ tenant_id, record_id, leaf }) => {
        const evidence = evidenceLine.exec(leaf ?? '')?.[1];
        return evidence ? [{ tenant_id, record_id, evidence }] : [];
      });
      for (let at = 0; at < kept.length; at += 300) {
        await db
          .insertInto('erased_evidence' as never)
          .values(kept.slice(at, at + 300) as never)
          .onConflict((oc) => oc.doNothing())
          .execute();
      }
    }
  }
}
