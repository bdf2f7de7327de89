import pg from 'pg';
import { decidedAtTimestamptzSql, decisionIdSql, type Fixture, subjectIdSql } from './dataset.js';
import { type SealedStep, sealedSteps } from './sealing.js';

/**
 * Customers per step: their sealed fields travel as array parameters (about 30 MB a step), and
 * each step bounds the WAL written at once.
 */
const customersPerStatement = 100_000;
/** The unique index of subjects' look-ups (migration 0006). */
const lookupIndexName = 'subjects_lookup_uq';

/**
 * Fills subjects, decisions and both per-customer state tables with `size` decisions
 * (dataset.ts), with `insert … select` on the server: what only the data key can make (look-ups,
 * sealed keys and fields) is sealed while the step before is stored (sealing.ts) and sent as
 * arrays; the rest is computed from `generate_series`. Then VACUUM ANALYZE and a CHECKPOINT, so
 * that autovacuum and the checkpointer do not run during the measured runs on the core the
 * service shares with the database.
 */
export async function loadPostgres(url: string, fixture: Fixture, size: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Loading only: a crash would lose the load, not a decision anyone was promised.
    await client.query('set synchronous_commit = off');
    // The look-ups are HMACs, in no order: their index is made once, from all of them, rather
    // than grown at random.
    const { rows } = await client.query<{ indexdef: string }>(
      'select indexdef from pg_indexes where indexname = $1',
      [lookupIndexName],
    );
    const lookupIndex = rows[0]?.indexdef;
    if (lookupIndex === undefined) throw new Error(`no index ${lookupIndexName}`);
    await client.query(`drop index ${lookupIndexName}`);
    for await (const step of sealedSteps(fixture.tenantId, size / 2, customersPerStatement)) {
      await insertStep(client, fixture, step);
    }
    // VACUUM marks a page all-visible only once its rows' commits are on disk (it must set their
    // hint bits), and the asynchronous commits above may not be yet: without this, no page of the
    // load is all-visible and every index-only scan of the runs reads the table's rows too.
    await client.query('set synchronous_commit = on');
    await client.query(lookupIndex);
    await client.query(
      'vacuum analyze subjects, decisions, customer_template_states, customer_version_states',
    );
    await client.query('checkpoint');
  } finally {
    await client.end();
  }
}

/** Customers `from` to `to - 1`: their subjects, decisions and states. */
async function insertStep(client: pg.Client, f: Fixture, step: SealedStep): Promise<void> {
  const { from, to, customers } = step;
  const last = to - 1;
  const subject = subjectIdSql('i');
  const accepted = 'i % 2 = 0';
  const series = `generate_series(${from}::bigint, ${last}::bigint) as i`;
  await client.query(
    `insert into subjects (tenant_id, id, lookup, wrapped_key, salt, commitment, created_at,
       erased_at)
     select $1::uuid, ${subject}, decode(u.lookup, 'hex'), decode(u.wrapped_key, 'base64'),
       decode(u.salt, 'base64'), decode(u.commitment, 'base64'),
       ${decidedAtTimestamptzSql('2 * i')}, null
     from unnest($2::text[], $3::text[], $4::text[], $5::text[])
         with ordinality as u(lookup, wrapped_key, salt, commitment, o)
       cross join lateral (select ${from}::bigint + o - 1 as i) as x`,
    [
      f.tenantId,
      customers.map((c) => c.lookup),
      customers.map((c) => c.wrappedKey),
      customers.map((c) => c.salt),
      customers.map((c) => c.commitment),
    ],
  );
  // k = 0: given on older; k = 1: given on latest (even i) or withdraw on older (odd i).
  const onLatest = `(k = 1 and ${accepted})`;
  await client.query(
    `insert into decisions (tenant_id, id, subject_id, template_id, consent_version_id,
       version, decision, seq, decided_at, api_key_id, personal, evidence_salt,
       idempotency_key)
     select $1::uuid, ${decisionIdSql('n')}, ${subject}, $2::uuid,
       case when ${onLatest} then $3::uuid else $4::uuid end,
       case when ${onLatest} then $5::int else $6::int end,
       case when k = 1 and not ${accepted} then 'withdraw' else 'given' end,
       k + 1, ${decidedAtTimestamptzSql('n')}, $7::uuid, decode(u.personal, 'base64'),
       decode(md5('evidence' || n), 'hex'), null
     from unnest($8::text[]) with ordinality as u(personal, o)
       cross join lateral (select ${2 * from}::bigint + o - 1 as n) as x
       cross join lateral (select n / 2 as i, n % 2 as k) as y`,
    [
      f.tenantId,
      f.templateId,
      f.latest.id,
      f.older.id,
      f.latest.number,
      f.older.number,
      f.apiKeyId,
      customers.flatMap((c) => c.personal),
    ],
  );
  await client.query(
    `insert into customer_template_states (subject_id, template_id,
       decision_count, last_decision_id, last_decision, last_consent_version_id,
       last_decided_at)
     select ${subject}, $1::uuid, 2, ${decisionIdSql('2 * i + 1')},
       case when ${accepted} then 'given' else 'withdraw' end,
       case when ${accepted} then $2::uuid else $3::uuid end, ${decidedAtTimestamptzSql('2 * i + 1')}
     from ${series}`,
    [f.templateId, f.latest.id, f.older.id],
  );
  // On older: every customer (seq 1 for even, the withdraw at seq 2 for odd).
  const onOlder = `2 * i + (i % 2)`;
  await client.query(
    `insert into customer_version_states (subject_id, consent_version_id,
       last_decision_id, last_decision, last_decided_at)
     select ${subject}, $1::uuid, ${decisionIdSql(onOlder)},
       case when ${accepted} then 'given' else 'withdraw' end, ${decidedAtTimestamptzSql(onOlder)}
     from ${series}
     union all
     select ${subject}, $2::uuid, ${decisionIdSql('2 * i + 1')}, 'given',
       ${decidedAtTimestamptzSql('2 * i + 1')}
     from generate_series(${from + (from % 2)}::bigint, ${last}::bigint, 2) as i`,
    [f.older.id, f.latest.id],
  );
}

/** The insert baseline's table: the decisions table's columns, keys and indexes, empty. */
export async function createDecisionsCopy(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('drop table if exists bench_decisions_copy');
    await client.query('create table bench_decisions_copy (like decisions including all)');
    return 'bench_decisions_copy';
  } finally {
    await client.end();
  }
}
