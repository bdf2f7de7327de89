import stringify from 'safe-stable-stringify';
import { queueLeaf } from '../log/queue.js';
import type { Trx } from '../platform/db.js';
import { AppError, type ErrorBody, type ErrorName, errorBody } from '../platform/errors.js';
import { sha256Hex } from '../platform/hashing.js';
import { newId } from '../platform/ids.js';
import { lockKey } from '../platform/locks.js';
import { nowIso } from '../platform/time.js';
import type { WriteQueue } from '../platform/write-queue.js';
import { newSalt } from '../proof/leaf.js';
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
  return writes.transaction(async (trx) => {
    const requestHash = sha256Hex(stringify(request) ?? '');
    if (idempotencyKey !== undefined) {
      // Same key at the same moment: the second waits here, then sees the first's record.
      await lockKey(trx, `idempotency:${context.tenantId}:${idempotencyKey}`);
      const previous = await findIdempotencyRecord(trx, context.tenantId, idempotencyKey);
      const windowStart = new Date(Date.now() - idempotencyWindowMs).toISOString();
      if (previous && previous.created_at >= windowStart) {
        if (previous.customer_id !== customerId || previous.request_hash !== requestHash) {
          throw new AppError('idempotencyMismatch');
        }
        return {
          status: previous.status_code,
          body: JSON.parse(previous.response_body) as DecisionResponse['body'],
          replayed: true,
        };
      }
    }
    const response = await decide(trx, version, context, customerId, request, idempotencyKey);
    if (idempotencyKey !== undefined) {
      await saveIdempotencyRecord(trx, {
        tenant_id: context.tenantId,
        key: idempotencyKey,
        customer_id: customerId,
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
  version: VersionWithCode,
  context: DecisionContext,
  customerId: string,
  request: DecisionRequest,
  idempotencyKey: string | undefined,
): Promise<DecisionResponse> {
  const { tenantId } = context;
  // One decision at a time per customer and template: the rules read the state they change.
  await lockKey(trx, `customer:${tenantId}:${version.template_id}:${customerId}`);
  const templateState = await findTemplateState(trx, tenantId, customerId, version.template_id);

  if (request.decision === 'withdraw') {
    // Withdrawing must be as easy as giving: allow_reconsent does not apply to it.
    if (templateState?.last_decision !== 'given') return refused('nothingToWithdraw');
  } else {
    const versionState = await findVersionState(trx, tenantId, customerId, version.id);
    if (versionState && version.allow_reconsent === 0) {
      if (versionState.last_decision !== request.decision) return refused('reconsentNotAllowed');
      const existing = await findDecision(trx, tenantId, versionState.last_decision_id);
      return {
        status: 200,
        body: { data: presentDecision(existing, version.template_code) },
        replayed: false,
      };
    }
  }

  const evidenceSalt = newSalt();
  const row: DecisionRow = {
    tenant_id: tenantId,
    id: newId(),
    customer_id: customerId,
    template_id: version.template_id,
    consent_version_id: version.id,
    version: publishedNumber(version),
    decision: request.decision,
    seq: (templateState?.decision_count ?? 0) + 1,
    decided_at: nowIso(),
    api_key_id: context.apiKeyId,
    ip: context.ip,
    user_agent: context.userAgent,
    content_sha256: version.content_sha256,
    idempotency_key: idempotencyKey ?? null,
    evidence_salt: evidenceSalt,
  };
  await appendDecision(trx, row);
  await queueLeaf(trx, { ...row, evidence_salt: evidenceSalt });
  return {
    status: 201,
    body: { data: presentDecision(row, version.template_code) },
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
export function presentDecision(row: DecisionRow, templateCode: string): RecordedDecision {
  return {
    decision_id: row.id,
    customer_id: row.customer_id,
    template_code: templateCode,
    consent_version_id: row.consent_version_id,
    version: row.version,
    decision: row.decision,
    decided_at: row.decided_at,
  };
}
