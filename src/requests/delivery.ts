/**
 * How an access or portability request is answered (PDPA sections 30 and 31; docs/requests.md):
 * a single-use link, valid 7 days, to a ZIP of the customer's evidence pack and a
 * machine-readable export of their record (JSON and CSV). The token is shown once, when the
 * request is marked done, and kept only as its SHA-256.
 */
import { randomBytes } from 'node:crypto';
import { stringify } from 'csv-stringify/sync';
import { zipSync } from 'fflate';
import { evidencePack, type PackContext } from '../evidence/index.js';
import type { Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { sha256Hex } from '../platform/hashing.js';
import { newId } from '../platform/ids.js';
import { addDaysIso, nowIso } from '../platform/time.js';
import { getCustomerConsents } from '../records/index.js';
import { findRequest, findUsableDelivery, insertDelivery, useDelivery } from './repository.js';
import { openCustomerId, requestSubject } from './sealed.js';
import { customerRequests } from './views.js';

/** How long a delivery link may be used (once). */
export const deliveryDays = 7;

/** The path a delivery is downloaded from, under the service's public address. */
export const deliveryPath = (token: string) => `/requests/deliveries/${token}`;

/** A delivery just made: its token (shown once) and when it expires. */
export interface Delivery {
  token: string;
  expires_at: string;
}

/** Makes a request's delivery link in the caller's transaction (the one that marks it done). */
export async function createDelivery(
  trx: Trx,
  tenantId: string,
  requestId: string,
  now: string,
): Promise<Delivery> {
  const token = randomBytes(32).toString('base64url');
  const expires = addDaysIso(now, deliveryDays);
  await insertDelivery(trx, {
    tenant_id: tenantId,
    id: newId(),
    request_id: requestId,
    token_hash: sha256Hex(token),
    created_at: now,
    expires_at: expires,
    used_at: null,
  });
  return { token, expires_at: expires };
}

const linkGone = () =>
  new AppError('notFound', { message: 'This link was used already, has expired, or never was.' });

const encoder = new TextEncoder();

/**
 * The delivery of a token: its ZIP (the evidence pack, `export.json`, `export.csv`), made now,
 * and the link used up only once it is made (a pack that cannot be made yet, `503 1009`, leaves
 * it usable). `404 1004` for a token used, expired or unknown, or a customer erased since.
 */
export async function downloadDelivery(
  context: PackContext,
  token: string,
): Promise<{ fileName: string; bytes: Uint8Array }> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) throw linkGone();
  const { db, vault } = context;
  const now = nowIso();
  const delivery = await findUsableDelivery(db, sha256Hex(token), now);
  if (!delivery) throw linkGone();
  const request = await findRequest(db, delivery.tenant_id, delivery.request_id);
  const subject = request ? await requestSubject(db, vault, request) : undefined;
  if (!request || !subject) throw linkGone();
  const customerId = openCustomerId(subject, request);
  const pack = await evidencePack(context, delivery.tenant_id, customerId, now);
  const record = await wholeRecord(context, delivery.tenant_id, customerId);
  const requests = await customerRequests(db, vault, delivery.tenant_id, pack.subjectId);
  const json = { generated_at: now, ...record, requests };
  const csv = stringify(
    record.history.map((h) => [
      h.decided_at,
      h.decision_id,
      h.template_code,
      h.version ?? '',
      h.tag,
      h.consent_version_id,
      h.decision,
      h.locale ?? '',
      h.content_sha256 ?? '',
    ]),
    {
      header: true,
      columns: [
        'decided_at',
        'decision_id',
        'template_code',
        'version',
        'tag',
        'consent_version_id',
        'decision',
        'locale',
        'content_sha256',
      ],
      escape_formulas: true,
      record_delimiter: 'windows',
    },
  );
  if (!(await useDelivery(db, delivery.id, now))) throw linkGone();
  const stamp = now.replace(/[-:]/g, '').replace(/\.\d+/, '');
  return {
    fileName: `your-data-${stamp}.zip`,
    bytes: zipSync(
      {
        [pack.fileName]: pack.bytes,
        'export.json': encoder.encode(`${JSON.stringify(json, null, 2)}\n`),
        'export.csv': encoder.encode(csv),
      },
      { level: 0 },
    ),
  };
}

/** The customer's standings and every decision of theirs, the API's pages read to the end. */
async function wholeRecord(context: PackContext, tenantId: string, customerId: string) {
  const { db, vault, registry } = context;
  let page = await getCustomerConsents(db, vault, registry, tenantId, customerId, {
    limit: '500',
  });
  const history = [...page.history];
  while (page.next_cursor) {
    page = await getCustomerConsents(db, vault, registry, tenantId, customerId, {
      limit: '500',
      cursor: page.next_cursor,
    });
    history.push(...page.history);
  }
  return { customer_id: customerId, templates: page.templates, history };
}
