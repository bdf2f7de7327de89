import SQLite from 'better-sqlite3';
import {
  customerId,
  decidedAt,
  decisionId,
  type Fixture,
  loaderIp,
  loaderUserAgent,
} from './dataset.js';

const customersPerTransaction = 50_000;

/**
 * Fills decisions and both per-customer state tables with `size` decisions (dataset.ts), through
 * prepared inserts in large transactions. synchronous=OFF holds for this connection only: the
 * service opens the file again with its own synchronous=FULL.
 */
export function loadSqlite(path: string, fixture: Fixture, size: number): void {
  const db = new SQLite(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -262144'); // 256 MB: index pages stay in memory while appending.
    const insertDecision = db.prepare(
      `insert into decisions (tenant_id, id, customer_id, template_id, consent_version_id, version,
         decision, seq, decided_at, api_key_id, ip, user_agent, content_sha256, idempotency_key)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null)`,
    );
    const insertTemplateState = db.prepare(
      `insert into customer_template_states (tenant_id, customer_id, template_id, decision_count,
         last_decision_id, last_decision, last_consent_version_id, last_decided_at)
       values (?, ?, ?, 2, ?, ?, ?, ?)`,
    );
    const insertVersionState = db.prepare(
      `insert into customer_version_states (tenant_id, customer_id, consent_version_id,
         last_decision_id, last_decision, last_decided_at)
       values (?, ?, ?, ?, ?, ?)`,
    );
    const { tenantId: t, templateId, older, latest } = fixture;
    const decision = (i: number, k: number, versionIsLatest: boolean, value: string) => {
      const n = 2 * i + k;
      const v = versionIsLatest ? latest : older;
      insertDecision.run(
        t,
        decisionId(n),
        customerId(i),
        templateId,
        v.id,
        v.number,
        value,
        k + 1,
        decidedAt(n),
        fixture.apiKeyId,
        loaderIp,
        loaderUserAgent,
        v.sha256,
      );
    };
    const customers = (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const c = customerId(i);
        const accepted = i % 2 === 0;
        const last = 2 * i + 1;
        decision(i, 0, false, 'given');
        decision(i, 1, accepted, accepted ? 'given' : 'withdraw');
        insertTemplateState.run(
          t,
          c,
          templateId,
          decisionId(last),
          accepted ? 'given' : 'withdraw',
          accepted ? latest.id : older.id,
          decidedAt(last),
        );
        if (accepted) {
          insertVersionState.run(t, c, older.id, decisionId(2 * i), 'given', decidedAt(2 * i));
          insertVersionState.run(t, c, latest.id, decisionId(last), 'given', decidedAt(last));
        } else {
          insertVersionState.run(t, c, older.id, decisionId(last), 'withdraw', decidedAt(last));
        }
      }
    };
    const batch = db.transaction(customers);
    const total = size / 2;
    for (let from = 0; from < total; from += customersPerTransaction) {
      batch(from, Math.min(total, from + customersPerTransaction));
    }
    // Leave a checkpointed file, so the service does not start by copying a huge WAL.
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
