import pg from 'pg';
import {
  customerIdWidth,
  decidedAtSql,
  decisionIdSql,
  type Fixture,
  loaderIp,
  loaderUserAgent,
} from './dataset.js';

/** Customers per statement: a progress point every million decisions, and bounded WAL per step. */
const customersPerStatement = 500_000;

/**
 * Fills decisions and both per-customer state tables with `size` decisions (dataset.ts), with
 * `insert … select … from generate_series` so that the rows never leave the server. Then VACUUM
 * ANALYZE and a CHECKPOINT, so that autovacuum and the checkpointer do not run during the
 * measured runs on the core the service shares with the database.
 */
export async function loadPostgres(url: string, fixture: Fixture, size: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Loading only: a crash would lose the load, not a decision anyone was promised.
    await client.query('set synchronous_commit = off');
    const f = fixture;
    const customer = `'c' || lpad(i::text, ${customerIdWidth}, '0')`;
    const accepted = 'i % 2 = 0';
    const total = size / 2;
    for (let from = 0; from < total; from += customersPerStatement) {
      const to = Math.min(total, from + customersPerStatement) - 1;
      const series = `generate_series(${from}::bigint, ${to}::bigint) as i`;
      // k = 0: given on older; k = 1: given on latest (even i) or withdraw on older (odd i).
      const onLatest = `(k = 1 and ${accepted})`;
      await client.query(
        `insert into decisions (tenant_id, id, customer_id, template_id, consent_version_id,
           version, decision, seq, decided_at, api_key_id, ip, user_agent, content_sha256,
           idempotency_key)
         select $1, ${decisionIdSql('n')}, ${customer}, $2,
           case when ${onLatest} then $3 else $4 end,
           case when ${onLatest} then $5::int else $6::int end,
           case when k = 1 and not ${accepted} then 'withdraw' else 'given' end,
           k + 1, ${decidedAtSql('n')}, $7, $8, $9,
           case when ${onLatest} then $10 else $11 end, null
         from generate_series(${2 * from}::bigint, ${2 * to + 1}::bigint) as n
           cross join lateral (select n / 2 as i, n % 2 as k) as x`,
        [
          f.tenantId,
          f.templateId,
          f.latest.id,
          f.older.id,
          f.latest.number,
          f.older.number,
          f.apiKeyId,
          loaderIp,
          loaderUserAgent,
          f.latest.sha256,
          f.older.sha256,
        ],
      );
      await client.query(
        `insert into customer_template_states (tenant_id, customer_id, template_id,
           decision_count, last_decision_id, last_decision, last_consent_version_id,
           last_decided_at)
         select $1, ${customer}, $2, 2, ${decisionIdSql('2 * i + 1')},
           case when ${accepted} then 'given' else 'withdraw' end,
           case when ${accepted} then $3 else $4 end, ${decidedAtSql('2 * i + 1')}
         from ${series}`,
        [f.tenantId, f.templateId, f.latest.id, f.older.id],
      );
      // On older: every customer (seq 1 for even, the withdraw at seq 2 for odd).
      const onOlder = `2 * i + (i % 2)`;
      await client.query(
        `insert into customer_version_states (tenant_id, customer_id, consent_version_id,
           last_decision_id, last_decision, last_decided_at)
         select $1, ${customer}, $2, ${decisionIdSql(onOlder)},
           case when ${accepted} then 'given' else 'withdraw' end, ${decidedAtSql(onOlder)}
         from ${series}
         union all
         select $1, ${customer}, $3, ${decisionIdSql('2 * i + 1')}, 'given',
           ${decidedAtSql('2 * i + 1')}
         from generate_series(${from + (from % 2)}::bigint, ${to}::bigint, 2) as i`,
        [f.tenantId, f.older.id, f.latest.id],
      );
    }
    await client.query(
      'vacuum analyze decisions, customer_template_states, customer_version_states',
    );
    await client.query('checkpoint');
  } finally {
    await client.end();
  }
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
