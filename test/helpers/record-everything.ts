/**
 * What the tests of a store's forms compare a store on (sealed-types, sqlite-binary-ids): a
 * scripted session, a data-subject request, a partner block and an erasure, recorded and settled
 * in the log; every read of them; and an erasure whose receipt must still prove the decision.
 */
import { expect } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { findCookieDecisionPage } from '../../src/cookies/decision-filters-repository.js';
import { eraseCustomer } from '../../src/erasure/service.js';
import { createPartner } from '../../src/partners/index.js';
import { findEvidencePageNewestFirst } from '../../src/records/evidence-repository.js';
import { publishOutsideReview } from '../../src/templates/index.js';
import { apiOf } from './api.js';
import { reads, type Session, session } from './api-session.js';
import { json, type TestApp } from './app.js';
import { entriesOfLog } from './log-entries.js';
import { seedTemplate } from './seed.js';
import { byCli, eventually } from './webhook-receiver.js';

const by = { actorKind: 'operator', actor: 'test', ip: '127.0.0.1', userAgent: null } as const;

/** A partner blocked on a decision of ann's: its template, and the reads of the block. */
export interface PartnerBlock {
  code: string;
  urls: string[];
}

/** ann's standing on a template as of a moment, by bulk status: the partners blocked included. */
async function statusOf(t: TestApp, s: Session, code: string, at: string): Promise<string> {
  const answer = await t.app.inject({
    method: 'POST',
    url: '/api/v1/consents/status',
    headers: { ...s.headers, 'content-type': 'application/json' },
    payload: JSON.stringify({ template_code: code, customer_ids: ['ann'], at }),
  });
  expect(answer.statusCode, answer.body).toBe(200);
  expect(answer.body).toContain('"blocked_partners":["zeta"]');
  return answer.body;
}

/**
 * A partner blocked on one of ann's decisions: the reads of it, its list and its receipt, once
 * the log has taken it.
 */
async function partnerBlock(t: TestApp, s: Session): Promise<PartnerBlock> {
  const actor = byCli(s.tenantId);
  await t.db
    .transaction()
    .execute((trx) => createPartner(trx, actor, s.tenantId, { code: 'zeta', name: 'Zeta' }));
  const code = await seedTemplate(t.db, s.tenantId);
  const version = await t.db.transaction().execute((trx) =>
    publishOutsideReview(
      trx,
      actor,
      s.tenantId,
      code,
      { tag: '1.0', content_html: '<p>Zeta</p>' },
      {
        partners: ['zeta'],
      },
    ),
  );
  const decided = await apiOf(t.app, s.headers).decide('ann', version.id, 'given');
  const decision = json(decided).data.decision_id as string;
  const url = `/api/v1/customers/ann/consents/decisions/${decision}/partners`;
  const blocked = await t.app.inject({
    method: 'PUT',
    url: `${url}/zeta`,
    headers: { ...s.headers, 'content-type': 'application/json' },
    payload: JSON.stringify({ blocked: true }),
  });
  expect(blocked.statusCode, blocked.body).toBe(201);
  return {
    code,
    urls: [url, `/api/v1/partner-block-changes/${json(blocked).data.record_id}/receipt?wait=true`],
  };
}

/**
 * Until the tenant's log holds every record queued and its checkpoint covers them: a receipt
 * carries the checkpoint of its moment, which a record still queued would move on.
 */
export async function logSettled(t: TestApp, s: Session): Promise<void> {
  await eventually(async () => {
    const queued = await t.db.selectFrom('tlog_pending').select('record_id').execute();
    if (queued.length > 0) return false;
    const { count } = await entriesOfLog(t.db, s.tenantId)
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .executeTakeFirstOrThrow();
    const receipt = await t.app.inject({
      method: 'GET',
      url: s.receiptUrls[0] ?? '',
      headers: s.headers,
    });
    return json(receipt).data.tree_size === Number(count);
  });
}

/** Every read of a session's records: the client's, its receipts, the back-office's lists. */
export async function everything(
  t: TestApp,
  s: Session,
  at: string,
  block: PartnerBlock,
): Promise<unknown[]> {
  const call = async (url: string) => {
    const answer = await t.app.inject({ method: 'GET', url, headers: s.headers });
    return `${answer.statusCode} ${answer.body}`;
  };
  return [
    ...(await reads(t, s, at)),
    ...(await Promise.all([...s.receiptUrls, ...block.urls].map(call))),
    await statusOf(t, s, block.code, at),
    await call('/api/v1/customers/ann/requests'),
    await call('/api/v1/customers/bob/consents?include=controls'),
    await findEvidencePageNewestFirst(t.db, s.tenantId, {}, undefined, 100),
    await findCookieDecisionPage(t.db, s.tenantId, {}, 'oldest', undefined, 100),
  ];
}

/**
 * What both forms are compared on: a session, a data-subject request, a partner block, `bob`
 * erased (their key and salt gone, their records' tombstones kept), the log settled; then every
 * read of them.
 */
export async function recordEverything(t: TestApp, at: string) {
  const recorded = await session(t);
  const opened = await t.app.inject({
    method: 'POST',
    url: '/api/v1/customers/ann/requests',
    headers: { ...recorded.headers, 'content-type': 'application/json' },
    payload: JSON.stringify({ kind: 'access' }),
  });
  expect(opened.statusCode).toBe(201);
  const blocks = await partnerBlock(t, recorded);
  await eraseCustomer(t.db, t.vault, registry, recorded.tenantId, 'bob', by);
  await logSettled(t, recorded);
  return { recorded, blocks, before: await everything(t, recorded, at, blocks) };
}

/** `ann` erased: the decision's receipt still proves it, without the customer's opening. */
export async function expectErasedStillProven(t: TestApp, s: Session): Promise<void> {
  const erased = await eraseCustomer(t.db, t.vault, registry, s.tenantId, 'ann', by);
  expect(erased).toMatchObject({ erased: true });
  const receipt = await t.app.inject({
    method: 'GET',
    url: s.receiptUrls[0] ?? '',
    headers: s.headers,
  });
  expect(receipt.statusCode).toBe(200);
  expect(JSON.parse(receipt.body)).toMatchObject({ data: { opening: null } });
}
