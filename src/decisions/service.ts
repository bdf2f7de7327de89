import stringify from 'safe-stable-stringify';
import { leafOfDecision, queueLeaf } from '../log/queue.js';
import type { Trx } from '../platform/db.js';
import { AppError, type ErrorBody, type ErrorName, errorBody } from '../platform/errors.js';
import { sha256Hex } from '../platform/hashing.js';
import { newId } from '../platform/ids.js';
import { lockKey } from '../platform/locks.js';
import { nowIso } from '../platform/time.js';
import type { WriteQueue } from '../platform/write-queue.js';
import { newSalt } from '../proof/leaf.js';
import { sealPersonal } from '../subjects/personal.js';
import { createSubject, findSubject } from '../subjects/service.js';
import type { SubjectVault } from '../subjects/vault.js';
import type { Catalog } from '../templates/catalog.js';
import type { VersionWithCode } from '../templates/repository.js';
import {
  appendDecision,
  findDecision,
  findIdempotencyRecord,
  findTemplateState,
  findVersionState,
  saveIdempotencyRecord,
} from './repository.js';
import type { DecisionRequest, RecordedDecision } from './schemas.js';
import type { DecisionRow } from './table.js';

export const idempotencyWindowMs = 24 * 60 * 60 * 1000;

/** Who sent the decision: kept with it as evidence. */
export interface DecisionContext {
  tenantId: string;
  apiKeyId: string;
  ip: string;
  userAgent: string | null;
}

export interface DecisionResponse {
  status: number;
  body: { data: RecordedDecision } | ErrorBody;
  /** True when an idempotency key answered a stored response. */
  replayed: boolean;
}

/**
 * Records one decision under the rules of contract section 5, in one transaction with the
 * per-customer states and the idempotency record (on SQLite, shared with the decisions that
 * arrived with it: see `createWriteQueue`). Rule refusals (409) are answers, not errors,
 * so that a retry with the same idempotency key gets the same refusal.
 */
export async function recordDecision(
  writes: WriteQueue,
  versions: Pick<Catalog, 'publishedById'>,
  vault: SubjectVault,
  context: DecisionContext,
  customerId: string,
  request: DecisionRequest,
  idempotencyKey?: string,
): Promise<DecisionResponse> {
  // A published version never changes: it is read before, and outside, the transaction.
  const version = await versions.publishedById(
    context.tenantId,
    request.consent_version_id.toLowerCase(),
  );
  if (!version) throw new AppError('versionNotFound');
  // The store knows the customer only by this keyed hash and a random id (src/subjects).
  const lookup = vault.lookup(context.tenantId, customerId);
  return writes.transaction(async (trx) => {
    const requestHash = sha256Hex(stringify(request) ?? '');
    if (idempotencyKey !== undefined) {
      // Same key at the same moment: the second waits here, then sees the first's record.
      await lockKey(trx, `idempotency:${context.tenantId}:${idempotencyKey}`);
      const previous = await findIdempotencyRecord(trx, context.tenantId, idempotencyKey);
      const windowStart = new Date(Date.now() - idempotencyWindowMs).toISOString();
      if (previous && previous.created_at >= windowStart) {
        if (previous.customer_lookup !== lookup || previous.request_hash !== requestHash) {
          throw new AppError('idempotencyMismatch');
        }
        return {
          status: previous.status_code,
          body: JSON.parse(previous.response_body) as DecisionResponse['body'],
          replayed: true,
        };
      }
    }
    const customer = { id: customerId, lookup };
    const response = await decide(trx, vault, version, context, customer, request, idempotencyKey);
    if (idempotencyKey !== undefined) {
      await saveIdempotencyRecord(trx, {
        tenant_id: context.tenantId,
        key: idempotencyKey,
        customer_lookup: lookup,
        request_hash: requestHash,
        status_code: response.status,
        response_body: JSON.stringify(response.body),
        created_at: nowIso(),
      });
    }
    return response;
  });
}

async function decide(
  trx: Trx,
  vault: SubjectVault,
  version: VersionWithCode,
  context: DecisionContext,
  customer: { id: string; lookup: string },
  request: DecisionRequest,
  idempotencyKey: string | undefined,
): Promise<DecisionResponse> {
  const { tenantId } = context;
  // One decision at a time per customer: the rules read the state they change, and an erasure
  // (which takes the same lock) never interleaves with a decision.
  await lockKey(trx, `subject:${tenantId}:${customer.lookup}`);
  // A customer the store does not know yet gets a subject only with their first decision.
  const known = await findSubject(trx, vault, tenantId, customer.lookup);
  const templateState = known
    ? await findTemplateState(trx, tenantId, known.id, version.template_id)
    : undefined;

  if (request.decision === 'withdraw') {
    // Withdrawing must be as easy as giving: allow_reconsent does not apply to it.
    if (templateState?.last_decision !== 'given') return refused('nothingToWithdraw');
  } else {
    const versionState = known
      ? await findVersionState(trx, tenantId, known.id, version.id)
      : undefined;
    if (versionState && version.allow_reconsent === 0) {
      if (versionState.last_decision !== request.decision) return refused('reconsentNotAllowed');
      const existing = await findDecision(trx, tenantId, versionState.last_decision_id);
      return {
        status: 200,
        body: { data: presentDecision(existing, customer.id, version.template_code) },
        replayed: false,
      };
    }
  }

  const now = nowIso();
  const subject =
    known ?? (await createSubject(trx, vault, tenantId, customer.id, customer.lookup, now));
  const id = newId();
  const personal = { customer_id: customer.id, ip: context.ip, user_agent: context.userAgent };
  const row: DecisionRow = {
    tenant_id: tenantId,
    id,
    subject_id: subject.id,
    template_id: version.template_id,
    consent_version_id: version.id,
    version: publishedNumber(version),
    decision: request.decision,
    seq: (templateState?.decision_count ?? 0) + 1,
    decided_at: now,
    api_key_id: context.apiKeyId,
    personal: sealPersonal(subject.key, id, personal),
    content_sha256: version.content_sha256,
    idempotency_key: idempotencyKey ?? null,
    evidence_salt: newSalt(),
  };
  await appendDecision(trx, row);
  const leaf = leafOfDecision(
    { ...row, ...personal, evidence_salt: row.evidence_salt ?? '' },
    subject.salt,
  );
  await queueLeaf(trx, tenantId, id, leaf, now);
  return {
    status: 201,
    body: { data: presentDecision(row, customer.id, version.template_code) },
    replayed: false,
  };
}

function refused(name: ErrorName): DecisionResponse {
  const error = new AppError(name);
  return { status: error.status, body: errorBody(error), replayed: false };
}

function publishedNumber(version: VersionWithCode): number {
  if (version.version === null) throw new Error(`Version ${version.id} has no number`);
  return version.version;
}

/** D of contract section 4. */
export function presentDecision(
  row: Pick<DecisionRow, 'id' | 'consent_version_id' | 'version' | 'decision' | 'decided_at'>,
  customerId: string,
  templateCode: string,
): RecordedDecision {
  return {
    decision_id: row.id,
    customer_id: customerId,
    template_code: templateCode,
    consent_version_id: row.consent_version_id,
    version: row.version,
    decision: row.decision,
    decided_at: row.decided_at,
  };
}
