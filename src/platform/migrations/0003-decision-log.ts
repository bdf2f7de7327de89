import { type Kysely, sql } from 'kysely';
import {
  type DecisionRow0003,
  leafOfDecision0003 as leafOfDecision,
  newSalt0003 as newSalt,
} from './0003-decision-log.frozen.js';

/**
 * The tamper-evident decision log (docs/proof.md): one Merkle log per tenant (`log_id` is the
 * tenant's id), leaves queued in the decision's own transaction, appended by the integrator with
 * every complete subtree's hash kept once, and a signed checkpoint per appended batch.
 * Hashes are lower-case hex; portable SQL only, like the first migration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('log_subjects')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('salt', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('log_subjects_pk', ['tenant_id', 'customer_id'])
    .execute();

  // Random per decision, so the evidence commitment in the leaf cannot be guessed from its values.
  await db.schema.alterTable('decisions').addColumn('evidence_salt', 'text').execute();

  await db.schema
    .createTable('tlog_logs')
    .addColumn('log_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('verifier_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  // The log's size and root: every append moves it with a compare-and-swap on `size`.
  await db.schema
    .createTable('tlog_state')
    .addColumn('log_id', 'text', (c) => c.primaryKey())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('root', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('tlog_pending')
    .addColumn('log_id', 'text', (c) => c.notNull())
    .addColumn('record_id', 'text', (c) => c.notNull())
    .addColumn('leaf', 'text', (c) => c.notNull())
    .addColumn('queued_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tlog_pending_pk', ['log_id', 'record_id'])
    .execute();

  await db.schema
    .createTable('tlog_entries')
    .addColumn('log_id', 'text', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('record_id', 'text', (c) => c.notNull())
    .addColumn('leaf', 'text', (c) => c.notNull())
    .addColumn('integrated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tlog_entries_pk', ['log_id', 'idx'])
    .addUniqueConstraint('tlog_entries_record_uq', ['log_id', 'record_id'])
    .execute();

  // Level 0 holds the leaf hashes; level l, index i the subtree of leaves [i·2^l, (i+1)·2^l).
  await db.schema
    .createTable('tlog_nodes')
    .addColumn('log_id', 'text', (c) => c.notNull())
    .addColumn('level', 'integer', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tlog_nodes_pk', ['log_id', 'level', 'idx'])
    .execute();

  // One checkpoint per size: the key makes a second, different one of the same size impossible.
  await db.schema
    .createTable('tlog_checkpoints')
    .addColumn('log_id', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('root', 'text', (c) => c.notNull())
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tlog_checkpoints_pk', ['log_id', 'size'])
    .execute();

  await queueEarlierDecisions(db);
}

/**
 * Decisions recorded before the log existed join its queue with the leaf a new one gets, queued
 * at their own time (the integrator appends in order of `queued_at`, so the oldest go first).
 * Read a page at a time in key order, which the primary key serves without sorting or
 * rescanning, however many decisions the store holds.
 */
async function queueEarlierDecisions(db: Kysely<unknown>): Promise<void> {
  let after = { tenantId: '', id: '' };
  for (;;) {
    const { rows } = await sql<Omit<DecisionRow0003, 'evidence_salt'>>`
      select tenant_id, id, customer_id, template_id, version, content_sha256, decision,
             decided_at, api_key_id, ip, user_agent
      from decisions where (tenant_id, id) > (${after.tenantId}, ${after.id})
      order by tenant_id, id limit 500`.execute(db);
    const last = rows.at(-1);
    if (!last) return;
    for (const row of rows) {
      const subjectSalt = await saltOf(db, row.tenant_id, row.customer_id, row.decided_at);
      const evidenceSalt = newSalt();
      const leaf = leafOfDecision({ ...row, evidence_salt: evidenceSalt }, subjectSalt);
      await sql`update decisions set evidence_salt = ${evidenceSalt}
        where tenant_id = ${row.tenant_id} and id = ${row.id}`.execute(db);
      await sql`insert into tlog_pending (log_id, record_id, leaf, queued_at)
        values (${row.tenant_id}, ${row.id}, ${leaf}, ${row.decided_at})`.execute(db);
    }
    after = { tenantId: last.tenant_id, id: last.id };
  }
}

/** The customer's salt, made with the first of their decisions met (by key lookup, not memory). */
async function saltOf(
  db: Kysely<unknown>,
  tenantId: string,
  customerId: string,
  decidedAt: string,
): Promise<string> {
  const { rows } = await sql<{ salt: string }>`select salt from log_subjects
    where tenant_id = ${tenantId} and customer_id = ${customerId}`.execute(db);
  const known = rows[0]?.salt;
  if (known !== undefined) return known;
  const salt = newSalt();
  await sql`insert into log_subjects (tenant_id, customer_id, salt, created_at)
    values (${tenantId}, ${customerId}, ${salt}, ${decidedAt})`.execute(db);
  return salt;
}
