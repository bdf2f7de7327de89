import { productChannel } from '../channels/index.js';
import { type Coverage, checkpointCovering } from '../decision-log/index.js';
import { lapseOf } from '../decisions/index.js';
import type { Executor } from '../platform/db.js';
import { nowIso, storedInstant } from '../platform/time.js';
import type { NoteSigner } from '../proof/index.js';
import type { SubjectVault } from '../subjects/index.js';
import { type Catalog, validityAsOf, variantFor } from '../templates/index.js';
import {
  findLatestReleaseAsOf,
  findPartnerBlocksAsOf,
  findStatuses,
  type StatusQuery,
  type StoredStatus,
} from './repository.js';
import {
  type ConsentStatus,
  type CustomerStatus,
  maxCustomers,
  type StatusRequest,
  tooManyCustomers,
} from './schemas.js';

/** What a status request reads beside the store. */
export interface StatusContext {
  catalog: Pick<Catalog, 'latest'>;
  vault: SubjectVault;
  signer: NoteSigner;
  /** Asks the decision log's integrator to run now. */
  kick: () => Promise<void>;
}

/**
 * How long an answer waits for the log to append the records it rests on, when some are still
 * queued (about a second's work for the integrator): a record written just before is covered.
 */
const coverageWaitMs = 2_000;

/**
 * Where many customers stand on one template at the moment `at` (default now), in one answer:
 * each one as `as-of` would answer them (the same `accepted`, `expired` and `expires_at`, under
 * the validity period in force then), their last decision by then, the partners blocked on it,
 * and, when asked, whether a product's channel could be used. A customer the tenant does not
 * know, or who was erased, answers as never asked. The log's latest checkpoint comes with it,
 * and each customer says whether it covers the records their answer rests on.
 */
export async function getConsentStatus(
  db: Executor,
  context: StatusContext,
  tenantId: string,
  request: StatusRequest,
): Promise<ConsentStatus> {
  // The schema keeps the list from being empty; its length is the body's size, not its shape.
  if (request.customer_ids.length > maxCustomers) throw tooManyCustomers();
  const release = await context.catalog.latest(tenantId, request.template_code);
  const { version: current } = variantFor(release, []);
  const templateId = current.template_id;
  const at = request.at === undefined ? nowIso() : storedInstant(request.at, 'body.at');
  const channel = request.channel ? await channelAsked(db, tenantId, request.channel) : null;
  const latest = await findLatestReleaseAsOf(db, tenantId, templateId, at);
  const validity = await validityAsOf(db, tenantId, templateId, at);
  const customers = [...new Set(request.customer_ids)];
  const query: StatusQuery = {
    tenantId,
    templateId,
    at,
    releaseId: latest?.id ?? null,
    releaseVersion: latest ? Number(latest.version) : null,
    channel: channel && { productId: channel.productId, channel: channel.channel },
  };
  const stored = await findStatuses(
    db,
    query,
    customers.map((customer) => context.vault.lookup(tenantId, customer)),
  );
  const lastIds = stored.flatMap((s) => (s.last_id === null ? [] : [s.last_id]));
  const blocked = new Map<string, string[]>();
  for (const row of await findPartnerBlocksAsOf(db, tenantId, lastIds, at)) {
    if (Number(row.blocked) !== 1) continue;
    blocked.set(row.decision_id, [...(blocked.get(row.decision_id) ?? []), row.partner_code]);
  }
  const coverage = await checkpointCovering(
    db,
    context.signer,
    context.kick,
    tenantId,
    stored.flatMap(recordsOf),
    coverageWaitMs,
  );
  return {
    template_code: current.template_code,
    at,
    customers: customers.map((customerId, i) =>
      statusOf(customerId, stored[i], {
        at,
        hasRelease: latest !== undefined,
        validity,
        blocked,
        channel,
        coverage,
      }),
    ),
    checkpoint: coverage.checkpoint,
  };
}

/** The product and channel asked about: `404 1004` for either unknown to the tenant. */
async function channelAsked(
  db: Executor,
  tenantId: string,
  asked: NonNullable<StatusRequest['channel']>,
): Promise<{ productId: string; productCode: string; channel: string }> {
  const { product, channel } = await productChannel(
    db,
    tenantId,
    asked.product_code,
    asked.channel,
  );
  return { productId: product.id, productCode: product.code, channel };
}

/** The records a customer's answer rests on: the decisions it names and the channel's change. */
function recordsOf(s: StoredStatus): string[] {
  return [s.last_id, s.on_latest_id, s.channel_change_id].filter((id) => id !== null);
}

interface Shared {
  at: string;
  hasRelease: boolean;
  validity: number | null;
  blocked: Map<string, string[]>;
  channel: { productCode: string; channel: string } | null;
  coverage: Coverage;
}

function statusOf(customerId: string, s: StoredStatus | undefined, shared: Shared): CustomerStatus {
  const row = s?.subject_id ? s : undefined;
  // As `as-of`: accepted once decided on the latest release by then, unless a lapsed `given`.
  const onLatest = shared.hasRelease && row?.on_latest_id ? row : undefined;
  const lapse = onLatest
    ? lapseOf(
        onLatest.on_latest_decision,
        onLatest.on_latest_decided_at,
        shared.validity,
        shared.at,
      )
    : undefined;
  const last =
    row?.last_id && row.last_decision && row.last_decided_at && row.last_version_id
      ? {
          decision_id: row.last_id,
          decision: row.last_decision,
          decided_at: row.last_decided_at,
          consent_version_id: row.last_version_id,
          version: Number(row.last_version),
        }
      : null;
  const records = s ? recordsOf(s) : [];
  return {
    customer_id: customerId,
    accepted: onLatest !== undefined && lapse?.expired !== true,
    last_decision: last,
    ...(lapse ? { expired: lapse.expired, expires_at: lapse.expires_at } : {}),
    blocked_partners: last ? [...(shared.blocked.get(last.decision_id) ?? [])].sort() : [],
    ...(shared.channel
      ? {
          channel: {
            product_code: shared.channel.productCode,
            channel: shared.channel.channel,
            allowed: Number(row?.channel_blocked ?? 0) !== 1,
            since: row?.channel_since ?? null,
          },
        }
      : {}),
    in_checkpoint: records.every((id) => !shared.coverage.uncovered.has(id)),
  };
}
