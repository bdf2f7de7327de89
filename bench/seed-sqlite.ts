import { createHash } from 'node:crypto';
import SQLite from 'better-sqlite3';
import { holdsBinaryIds, idsAsBytes } from '../src/platform/sqlite-ids.js';
import { decidedAt, decisionId, type Fixture, subjectId } from './dataset.js';
import { type SealedStep, sealedSteps } from './sealing.js';

const customersPerTransaction = 50_000;
/** The unique index of subjects' look-ups (migration 0006). */
const lookupIndexName = 'subjects_lookup_uq';

/**
 * Fills subjects, decisions and both per-customer state tables with `size` decisions
 * (dataset.ts), through prepared inserts in large transactions, while the next transaction's
 * customers are sealed (sealing.ts). synchronous=OFF holds for this connection only: the service
 * opens the file again with its own synchronous=FULL.
 */
export async function loadSqlite(path: string, fixture: Fixture, size: number): Promise<void> {
  const db = new SQLite(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -262144'); // 256 MB: index pages stay in memory while appending.
    // The ids in the form the store holds them (src/platform/sqlite-ids.ts).
    const binaryIds = holdsBinaryIds(db.pragma('user_version', { simple: true }));
    const inserter = (statement: string) => {
      const prepared = db.prepare(statement);
      return (...values: unknown[]) => prepared.run(binaryIds ? idsAsBytes(values) : values);
    };
    const insertSubject = inserter(
      `insert into subjects (tenant_id, id, lookup, wrapped_key, salt, commitment, created_at,
         erased_at)
       values (?, ?, ?, ?, ?, ?, ?, null)`,
    );
    const insertDecision = inserter(
      `insert into decisions (tenant_id, id, subject_id, template_id, consent_version_id, version,
         decision, seq, decided_at, api_key_id, personal, evidence_salt, idempotency_key)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null)`,
    );
    const insertTemplateState = inserter(
      `insert into customer_template_states (subject_id, template_id, decision_count,
         last_decision_id, last_decision, last_consent_version_id, last_decided_at)
       values (?, ?, 2, ?, ?, ?, ?)`,
    );
    const insertVersionState = inserter(
      `insert into customer_version_states (subject_id, consent_version_id, last_decision_id,
         last_decision, last_decided_at)
       values (?, ?, ?, ?, ?)`,
    );
    const { tenantId: t, templateId, older, latest } = fixture;
    const decision = (n: number, personal: string, versionIsLatest: boolean, value: string) => {
      const v = versionIsLatest ? latest : older;
      insertDecision(
        t,
        decisionId(n),
        subjectId(Math.floor(n / 2)),
        templateId,
        v.id,
        v.number,
        value,
        (n % 2) + 1,
        decidedAt(n),
        fixture.apiKeyId,
        personal,
        // A salt of the evidence's 16 bytes, as the service gives each decision.
        createHash('md5').update(`evidence${n}`).digest('base64'),
      );
    };
    const customers = (step: SealedStep) => {
      for (const [j, sealed] of step.customers.entries()) {
        const i = step.from + j;
        const s = subjectId(i);
        const accepted = i % 2 === 0;
        const first = 2 * i;
        const last = 2 * i + 1;
        insertSubject(
          t,
          s,
          sealed.lookup,
          sealed.wrappedKey,
          sealed.salt,
          sealed.commitment,
          decidedAt(first),
        );
        decision(first, sealed.personal[0], false, 'given');
        decision(last, sealed.personal[1], accepted, accepted ? 'given' : 'withdraw');
        insertTemplateState(
          s,
          templateId,
          decisionId(last),
          accepted ? 'given' : 'withdraw',
          accepted ? latest.id : older.id,
          decidedAt(last),
        );
        if (accepted) {
          insertVersionState(s, older.id, decisionId(first), 'given', decidedAt(first));
          insertVersionState(s, latest.id, decisionId(last), 'given', decidedAt(last));
        } else {
          insertVersionState(s, older.id, decisionId(last), 'withdraw', decidedAt(last));
        }
      }
    };
    const batch = db.transaction(customers);
    // The look-ups are HMACs, in no order: their index is made once, from all of them, rather
    // than grown at random.
    const lookupIndex = db
      .prepare(`select sql from sqlite_master where type = 'index' and name = ?`)
      .pluck()
      .get(lookupIndexName);
    if (typeof lookupIndex !== 'string') throw new Error(`no index ${lookupIndexName}`);
    db.exec(`drop index ${lookupIndexName}`);
    for await (const step of sealedSteps(t, size / 2, customersPerTransaction)) batch(step);
    db.exec(lookupIndex);
    // Leave a checkpointed file, so the service does not start by copying a huge WAL.
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
