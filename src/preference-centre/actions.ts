import { recordAudit } from '../audit-trail/index.js';
import { type ChannelChangeWriter, setChannel } from '../channels/index.js';
import { type DecisionWriter, decide } from '../decisions/index.js';
import { type PartnerBlockWriter, setPartnerBlock } from '../partner-blocks/index.js';
import type { Db } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import type { ExplicitAct } from '../proof/index.js';
import type { SubjectVault } from '../subjects/index.js';
import type { Catalog } from '../templates/index.js';
import type { SessionClaims } from './tokens.js';

/** What the customer's page changes records through: the API's own writers and rules. */
export interface PreferenceWriters {
  db: Db;
  catalog: Catalog;
  vault: SubjectVault;
  decisions: DecisionWriter;
  channels: ChannelChangeWriter;
  partnerBlocks: PartnerBlockWriter;
}

/** The customer on their page: their session, and the request's address and user agent. */
export interface CustomerRequest {
  session: SessionClaims;
  ip: string;
  userAgent: string | null;
}

/** What became of a change: recorded (with its record's id), already so, or refused by a rule. */
export type ChangeResult =
  | { kind: 'recorded'; recordId: string }
  | { kind: 'unchanged' }
  | {
      kind: 'refused';
      reason:
        | 'nothingToWithdraw'
        | 'reconsentNotAllowed'
        | 'explicitConsentRequired'
        | 'representationRefused'
        | string;
    };

/**
 * The evidence of a record made on the page: the API key that asked for the link stands as its
 * key (it vouched for who the customer is), with the customer's own address and user agent, and
 * `via` naming the preference centre (committed in the record's log leaf).
 */
function evidenceOf(request: CustomerRequest) {
  return {
    tenantId: request.session.tenantId,
    apiKeyId: request.session.apiKeyId,
    ip: request.ip,
    userAgent: request.userAgent,
    via: 'preference-centre' as const,
  };
}

/** The audit entry of a change on the page: the customer named by their session, never their id. */
async function audit(
  writers: PreferenceWriters,
  request: CustomerRequest,
  action: string,
  recordId: string,
  details: Record<string, unknown>,
) {
  await recordAudit(writers.db, {
    tenantId: request.session.tenantId,
    actorKind: 'customer',
    actor: request.session.sessionId,
    ip: request.ip,
    userAgent: request.userAgent,
    action,
    target: recordId,
    details,
  });
}

/**
 * A decision on a version, `given` or `withdraw`, through the API's rules and writer. The form's
 * own id is its idempotency key, so a form sent twice (a double click, a reload) records once.
 * A `given` on sensitive data carries the explicit act the page asked for (its separate tick,
 * and the sentence next to it); without it, it is refused as the API refuses it.
 */
export async function decideOnPage(
  writers: PreferenceWriters,
  request: CustomerRequest,
  change: {
    versionId: string;
    decision: 'given' | 'withdraw';
    formId: string;
    explicit?: ExplicitAct | undefined;
  },
): Promise<ChangeResult> {
  let outcome: Awaited<ReturnType<typeof decide>>;
  try {
    outcome = await decide(
      writers.decisions,
      writers.catalog,
      writers.vault,
      evidenceOf(request),
      request.session.customerId,
      {
        consent_version_id: change.versionId,
        decision: change.decision,
        ...(change.explicit ? { explicit: change.explicit } : {}),
      },
      `preference-centre:${change.formId}`,
    );
  } catch (error) {
    // Refused before the writer (decisions/service.ts): told on the page, like the writer's own.
    if (
      error instanceof AppError &&
      (error.kind === 'explicitConsentRequired' || error.kind === 'representationRefused')
    ) {
      return { kind: 'refused', reason: error.kind };
    }
    throw error;
  }
  if (outcome.kind === 'refused') return { kind: 'refused', reason: outcome.refusal };
  // Never here: the page holds no act of a co-consent (it sends no acted_by, which such a
  // template refuses first).
  if (outcome.kind === 'held') return { kind: 'refused', reason: 'representationRefused' };
  if (outcome.kind === 'replayed' || outcome.kind === 'unchanged') return { kind: 'unchanged' };
  await audit(writers, request, 'preference_centre.decision', outcome.decision.decision_id, {
    template_code: outcome.decision.template_code,
    decision: outcome.decision.decision,
    version: outcome.decision.version,
  });
  return { kind: 'recorded', recordId: outcome.decision.decision_id };
}

/** A channel of a product blocked or allowed; `404 1004` for an unknown product or channel. */
export async function setChannelOnPage(
  writers: PreferenceWriters,
  request: CustomerRequest,
  change: { productCode: string; channel: string; blocked: boolean },
): Promise<ChangeResult> {
  const outcome = await setChannel(
    writers.db,
    writers.channels,
    writers.vault,
    { ...evidenceOf(request), userId: null },
    { customerId: request.session.customerId, ...change },
    change.blocked,
  );
  if (outcome.kind !== 'recorded' || outcome.state.record_id === null) return { kind: 'unchanged' };
  await audit(writers, request, 'preference_centre.channel_change', outcome.state.record_id, {
    product_code: change.productCode,
    channel: change.channel,
    blocked: change.blocked,
  });
  return { kind: 'recorded', recordId: outcome.state.record_id };
}

/** A partner blocked or allowed on one of the customer's own decisions; `404 1004` otherwise. */
export async function setPartnerOnPage(
  writers: PreferenceWriters,
  request: CustomerRequest,
  change: { decisionId: string; partnerCode: string; blocked: boolean },
): Promise<ChangeResult> {
  const outcome = await setPartnerBlock(
    writers.db,
    writers.partnerBlocks,
    writers.vault,
    { ...evidenceOf(request), userId: null },
    { customerId: request.session.customerId, ...change },
    change.blocked,
  );
  if (outcome.kind !== 'recorded' || outcome.state.record_id === null) return { kind: 'unchanged' };
  await audit(writers, request, 'preference_centre.partner_block', outcome.state.record_id, {
    decision_id: change.decisionId,
    partner_code: change.partnerCode,
    blocked: change.blocked,
  });
  return { kind: 'recorded', recordId: outcome.state.record_id };
}
