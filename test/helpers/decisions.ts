import { answerOf } from '../../src/decisions/answer.js';
import { appendDecisions } from '../../src/decisions/repository.js';
import type { DecisionValue } from '../../src/decisions/table.js';
import type { DecisionOutcome } from '../../src/decisions/writes.js';
import { newId } from '../../src/platform/ids.js';
import { sealPersonal } from '../../src/subjects/personal.js';
import {
  findLiveSubjectRow,
  newSubject,
  openSubject,
  storeNewSubjects,
} from '../../src/subjects/service.js';
import type { VersionWithCode } from '../../src/templates/service.js';
import type { TestApp } from './app.js';

/**
 * A customer's `given` on the version, handed to the app's writer as the route hands it (no
 * idempotency key): the status the route would answer. The job joins the writer's queue before
 * this returns.
 */
export function writeGiven(
  t: TestApp,
  by: { tenantId: string; apiKeyId: string },
  version: VersionWithCode,
  customer: string,
): Promise<number> {
  const { tenantId, apiKeyId } = by;
  return t.writer
    .write({
      version,
      context: { tenantId, apiKeyId, ip: '192.0.2.1', userAgent: 'test' },
      customer: { id: customer, lookup: t.vault.lookup(tenantId, customer) },
      request: { consent_version_id: version.id, decision: 'given' },
      requestHash: 'not used without a key',
      idempotencyKey: undefined,
    })
    .then((outcome) => answerOf(outcome as DecisionOutcome).status);
}

/**
 * Records a decision straight into the store at a chosen time, as the decision service would
 * (the per-customer states included), so that a test can place decisions on a fixed timeline:
 * the service dates each decision by the clock of the thread that writes it, which a test does
 * not move. Returns the decision's id.
 */
export async function insertDecisionAt(
  t: TestApp,
  by: { tenantId: string; apiKeyId: string },
  customer: string,
  versionId: string,
  decision: DecisionValue,
  decidedAt: string,
): Promise<string> {
  const { tenantId } = by;
  const id = newId();
  await t.db.transaction().execute(async (trx) => {
    const lookup = t.vault.lookup(tenantId, customer);
    const known = await findLiveSubjectRow(trx, tenantId, lookup);
    let subject = known && openSubject(t.vault, tenantId, known);
    if (!subject) {
      const fresh = newSubject(t.vault, tenantId, customer, lookup, decidedAt);
      await storeNewSubjects(trx, [fresh.row]);
      subject = fresh.subject;
    }
    const v = await trx
      .selectFrom('template_versions')
      .select(['template_id', 'content_sha256', 'version'])
      .where('tenant_id', '=', tenantId)
      .where('id', '=', versionId)
      .executeTakeFirstOrThrow();
    const { seq } = await trx
      .selectFrom('decisions')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .where('tenant_id', '=', tenantId)
      .where('subject_id', '=', subject.id)
      .where('template_id', '=', v.template_id)
      .executeTakeFirstOrThrow();
    const row = {
      tenant_id: tenantId,
      id,
      subject_id: subject.id,
      template_id: v.template_id,
      consent_version_id: versionId,
      version: Number(v.version),
      decision,
      seq: Number(seq ?? 0) + 1,
      decided_at: decidedAt,
      api_key_id: by.apiKeyId,
      personal: sealPersonal(subject.key, id, {
        customer_id: customer,
        ip: '127.0.0.1',
        user_agent: null,
      }),
      content_sha256: v.content_sha256,
      idempotency_key: null,
      evidence_salt: null,
    };
    await appendDecisions(trx, [row], [row], [row]);
  });
  return id;
}
